/** Writes schema/schema.graphql for the standard distribution: `npx tsx apps/server/graphql/print-schema.ts`. */
import { writeFile } from 'node:fs/promises';
import { Registry } from '../../../core/registry/index.js';
import { standardPlugins } from '../../../plugins/index.js';
import { printGraphQLSchema } from './schema.js';

await writeFile(
  new URL('../../../schema/schema.graphql', import.meta.url),
  printGraphQLSchema(new Registry(standardPlugins)),
);
