import { readFile } from 'node:fs/promises';
import { buildSchema, validateSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { Registry } from '../../../core/registry/index.js';
import { standardPlugins } from '../../../plugins/index.js';
import { pdfToMarkdownPlugin } from '../../../plugins/markdown/pdf-to-markdown/index.js';
import { printGraphQLSchema } from './schema.js';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { servicesOverSqlite } from '../../../core/services/testing/services.js';
import { graphqlOperations, operationTable } from '../operations/table.js';

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

  it('types every date as DateTime', () => {
    const sdl = printGraphQLSchema(new Registry(standardPlugins));
    expect(sdl).toContain('scalar DateTime');
    for (const field of [
      'createdAt: DateTime!',
      'lastUsedAt: DateTime',
      'resetDate: DateTime!',
      'expiresAt: DateTime!',
      'time: DateTime!',
      'at: DateTime!',
      'updatedAt: DateTime!',
    ]) {
      expect(sdl).toContain(field);
    }
    expect(sdl.match(/^\s+\w*(At|Date|Since): String/gm)).toBeNull();
  });

  it('takes convert and batch options as one typed plugin field (@oneOf), never JSON', () => {
    const sdl = printGraphQLSchema(new Registry(standardPlugins));
    expect(sdl).toContain('input ConvertOptions @oneOf {');
    expect(sdl).toMatch(/imageResize: ImageResizeOptions\n/);
    expect(sdl).toMatch(/rotatePdf: RotatePdfOptions\n/);
    // Extraction tools take their options as mutation arguments, not through ConvertOptions.
    const convertOptions = sdl.match(/^input ConvertOptions @oneOf \{[\s\S]*?^\}/m)?.[0] ?? '';
    expect(convertOptions).not.toMatch(/pdfToMarkdown: PdfToMarkdownOptions/);
    expect(sdl).toMatch(/convert\([^)]*options: ConvertOptions/);
    expect(sdl).toMatch(/batchConvert\([^)]*options: ConvertOptions/);
    // Whole degrees only; a discriminated union becomes one input with an enum discriminator.
    expect(sdl).toMatch(/input RotatePdfOptions \{\s+"""[^"]+"""\s+angle: Int!/);
    expect(sdl).toMatch(/input SplitPdfOptionsSplit \{[^}]*mode: SplitPdfOptionsSplitMode![^}]*ranges: String\n\}/);
    const inputs = sdl.match(/^input [\s\S]*?^\}/gm) ?? [];
    expect(inputs.filter((input) => /: \[?JSON/.test(input))).toEqual([]);
  });

  it('takes a pipeline and an export as typed inputs made from their zod, never JSON', () => {
    const sdl = printGraphQLSchema(new Registry(standardPlugins));
    const field = (name: string) => sdl.match(new RegExp(`^ {2}${name}\\([\\s\\S]*?^ {2}\\)`, 'm'))?.[0] ?? '';
    expect(field('createPipeline')).toContain('pipeline: PipelineInput!');
    expect(field('batchConvert')).toContain('export: S3ExportInput');
    expect(field('createPipeline') + field('batchConvert')).not.toMatch(/: \[?JSON/);
    expect(sdl).toMatch(/input PipelineInput \{[^}]*steps: \[PipelineStepInput!\]!/);
    expect(sdl).toMatch(/input PipelineStepInput \{[^}]*extractOptions: ExtractOptions[^}]*options: ConvertOptions/);
    expect(sdl).toMatch(/input ExtractOptions @oneOf \{[^}]*pdfToMarkdown: PdfToMarkdownOptions/);
    expect(sdl).toMatch(/input S3ExportInput \{[^}]*secretAccessKey: String!/);
  });

  it('stays valid when no installed conversion or op takes options (a partial install)', () => {
    const sdl = printGraphQLSchema(new Registry([pdfToMarkdownPlugin]));
    expect(validateSchema(buildSchema(sdl))).toEqual([]);
    expect(sdl).toContain('none: Boolean');
  });

  it('declares a root field for every operation of the table with a GraphQL section', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-graphql-schema-'));
    const { store, services } = servicesOverSqlite(
      dir,
      new Registry(standardPlugins),
      'graphql-schema-test-secret-of-32-bytes',
    );
    try {
      const sectioned = operationTable(services).filter((operation) => operation.graphql);
      expect(graphqlOperations(services.capabilities).map(({ name }) => name)).toEqual(
        expect.arrayContaining(sectioned.map(({ name }) => name)),
      );
      const sdl = printGraphQLSchema(new Registry(standardPlugins));
      for (const { name, graphql } of sectioned)
        expect(sdl).toMatch(new RegExp(`^ {2}${graphql!.field ?? name}[(:]`, 'm'));
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
