import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { Registry } from '../../../core/registry/index.js';
import { standardPlugins } from '../../../plugins/index.js';
import { printGraphQLSchema } from './schema.js';

describe('GraphQL schema', () => {
  it('is current in schema/schema.graphql (regenerate: npx tsx apps/server/graphql/print-schema.ts)', async () => {
    const committed = await readFile(new URL('../../../schema/schema.graphql', import.meta.url), 'utf8');
    expect(committed).toBe(printGraphQLSchema(new Registry(standardPlugins)));
  });

  it('types the options of every plugin that has options', () => {
    const sdl = printGraphQLSchema(new Registry(standardPlugins));
    expect(sdl).toContain('input ImageResizeOptions {');
    expect(sdl).toContain('resize: ImageResizeOptionsResize!');
    expect(sdl).toContain('fit: ImageResizeOptionsResizeFit = inside');
    expect(sdl).toContain('enum ImageResizeOptionsResizeFit {');
    expect(sdl).toMatch(/input ImageCompressOptions \{\s+"""[^"]+"""\s+quality: Int = 75/);
  });
});
