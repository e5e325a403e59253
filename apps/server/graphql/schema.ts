/** The GraphQL schema of a registry's capabilities: every type file added to one builder. */
// The file path, not the package name: vitest resolves `graphql` to its .mjs build while Pothos
// (loaded by Node) gets index.js, and graphql refuses schema objects of another instance.
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import type { Registry } from '../../../core/registry/index.js';
import { CapabilityService } from '../../../core/services/capabilities.js';
import { addAccount } from './account.js';
import { addBatch } from './batch.js';
import { createBuilder } from './builder.js';
import { addDocumentTypes } from './document-types.js';
import { addCredits } from './credits.js';
import { addExtraction } from './extraction.js';
import { addFormats } from './formats.js';
import { addHistory } from './history.js';
import { addJob } from './job.js';
import { addOperationFields } from './operation-fields.js';
import { addPipelineInputs } from './pipeline.js';
import { graphqlOperations } from '../operations/table.js';
import { addOptionInputs } from './option-inputs.js';
import { addSignedUrl } from './signed-url.js';
import { addWebhooks } from './webhooks.js';

export function buildGraphQLSchema(capabilities: CapabilityService): GraphQLSchema {
  const builder = createBuilder();
  const optionInputs = addOptionInputs(builder, capabilities);
  // The document model and chunks, typed, on Job (op=structure's and op=chunk's results).
  addDocumentTypes(builder, addJob(builder));
  addBatch(builder);
  addExtraction(builder, capabilities);
  addAccount(builder, addCredits(builder));
  addHistory(builder);
  addSignedUrl(builder);
  addWebhooks(builder);
  addFormats(builder, optionInputs);
  addPipelineInputs(builder, optionInputs);
  // Every root field of the operation table (the extraction tools' from the registry).
  addOperationFields(builder, graphqlOperations(capabilities), optionInputs);
  return builder.toSchema();
}

/** SDL as committed in schema/schema.graphql. */
export function printGraphQLSchema(registry: Registry): string {
  return `${printSchema(lexicographicSortSchema(buildGraphQLSchema(new CapabilityService(registry))))}\n`;
}
