/**
 * The document family through the conformance kit (what a third-party reader runs too): op=structure
 * answers the model, op=chunk chunks within the limit, to=md renders the model, on real files.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'vitest';
import { pluginConformanceSuite } from '../../core/contract/testing/index.js';
import { documentChunkPlugin } from './chunk/index.js';
import { documentRenderPlugin } from './render/index.js';
import { documentStructurePlugin } from './structure/index.js';
import { standardPlugins } from '../index.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../test/fixtures/documents');
const docx = { path: path.join(FIXTURES, 'heading123.docx'), format: 'docx' as const };
const pptx = { path: path.join(FIXTURES, 'SampleShow.pptx'), format: 'pptx' as const };
const xlsx = { path: path.join(FIXTURES, 'SampleSS.xlsx'), format: 'xlsx' as const };

pluginConformanceSuite(
  documentStructurePlugin,
  [
    { name: 'a DOCX', files: [docx], expectFormat: 'json' },
    { name: 'a PPTX', files: [pptx], expectFormat: 'json' },
    { name: 'an XLSX', files: [xlsx], expectFormat: 'json' },
  ],
  { against: standardPlugins },
);

pluginConformanceSuite(
  documentChunkPlugin,
  [
    ...(['cl100k', 'words'] as const).map((tokenizer) => ({
      name: `a DOCX in chunks of 48 tokens (${tokenizer})`,
      files: [docx],
      options: { maxTokens: 48, tokenizer },
      expectFormat: 'jsonl' as const,
      check: async (run: { result: unknown }) => {
        const chunks = (await readFile((run.result as { path: string }).path, 'utf8'))
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l));
        expect(chunks.length).toBeGreaterThan(3);
        for (const chunk of chunks) expect(chunk.tokens).toBeLessThanOrEqual(48);
      },
    })),
  ],
  { against: standardPlugins },
);

pluginConformanceSuite(
  documentRenderPlugin,
  [
    {
      name: 'a PPTX to Markdown',
      files: [pptx],
      target: 'md',
      expectFormat: 'md',
      check: async (run) => {
        const markdown = await readFile((run.result as { path: string }).path, 'utf8');
        expect(markdown).toContain('## This is the second slide');
      },
    },
  ],
  { against: standardPlugins },
);
