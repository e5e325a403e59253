/**
 * PDF -> DOCX on a PDF printed by LibreOffice from a known DOCX: the DOCX that comes back has the
 * same headings (levels by size rank), the same table cell grid, the list as a Word list, and
 * each paragraph whole (not one paragraph per printed line).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { isFileResult } from '../../../core/contract/index.js';
import { pluginConformanceSuite } from '../../../core/contract/testing/index.js';
import { pdfToDocxPlugin } from './index.js';
import {
  HEADINGS,
  LIST_ITEMS,
  LITERAL_TEXT,
  PARAGRAPHS,
  TABLE,
  literalPdf,
  readDocx,
  reportPdf,
} from '../testing/docx.js';
import { standardPlugins } from '../../index.js';

const dir = await mkdtemp(path.join(os.tmpdir(), 'pdf-to-docx-'));
const report = { path: path.join(dir, 'report.pdf'), format: 'pdf' as const };
const literal = { path: path.join(dir, 'literal.pdf'), format: 'pdf' as const };
beforeAll(() => Promise.all([reportPdf(dir), literalPdf(dir)]), 120_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

pluginConformanceSuite(
  pdfToDocxPlugin,
  [
    {
      name: 'headings, paragraphs, the list and the table of the original DOCX',
      files: [report],
      target: 'docx',
      expectFormat: 'docx',
      async check(run) {
        if (!isFileResult(run.result)) throw new Error('expected a file');
        const { paragraphs, tables } = await readDocx(run.result.path);
        const headings = paragraphs.filter((p) => /^Heading\d$/.test(p.style));
        expect(headings.map((h) => ({ level: Number(h.style.slice(-1)), text: h.text }))).toEqual(HEADINGS);
        // Each paragraph is one DOCX paragraph, however many lines it took in the PDF.
        for (const text of PARAGRAPHS) expect(paragraphs.filter((p) => p.text === text)).toHaveLength(1);
        for (const item of LIST_ITEMS) expect(paragraphs.find((p) => p.text === item)?.numbered).toBe(true);
        expect(tables).toEqual([TABLE]);
        // Nothing else: no running headers, page numbers or stray line fragments.
        expect(paragraphs).toHaveLength(HEADINGS.length + PARAGRAPHS.length + LIST_ITEMS.length);
      },
    },
    {
      name: 'characters Markdown reads as syntax stay text',
      files: [literal],
      target: 'docx',
      expectFormat: 'docx',
      async check(run) {
        if (!isFileResult(run.result)) throw new Error('expected a file');
        expect((await readDocx(run.result.path)).paragraphs.map((p) => p.text)).toEqual([LITERAL_TEXT]);
      },
    },
  ],
  { against: standardPlugins },
);
