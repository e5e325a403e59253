/**
 * PDF -> DOCX on a scan: the report's first page rendered to an image-only PDF is OCRed by the
 * PDF -> Markdown engine and comes back with its headings, paragraphs and the table grid.
 *
 * Known gap (engine, November 2026): on this scan two justified OCR lines of the second
 * paragraph are taken for a two-column borderless table, so that paragraph comes back split
 * (its words all there, in order within each part). The test pins what holds and checks the
 * second paragraph by its words only; tighten it when the engine keeps OCR paragraphs whole.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { isFileResult } from '../../../core/contract/index.js';
import { runPlugin } from '../../../core/contract/testing/index.js';
import { runProcess } from '../../../core/engines/process.js';
import { pdfToDocxPlugin } from './index.js';
import { HEADINGS, LIST_ITEMS, PARAGRAPHS, TABLE, readDocx, reportPdf, scannedReportPdf } from '../testing/docx.js';

const dir = await mkdtemp(path.join(os.tmpdir(), 'pdf-to-docx-scan-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

it('OCRs a scanned PDF first', async () => {
  const scan = await scannedReportPdf(dir, await reportPdf(dir));
  expect((await runProcess('pdftotext', [scan, '-'], { timeoutMs: 10_000 })).stdout.trim()).toBe('');
  const run = await runPlugin(pdfToDocxPlugin, [{ path: scan, format: 'pdf' }], {});
  if (!isFileResult(run.result)) throw new Error('expected a file');
  const { paragraphs, tables } = await readDocx(run.result.path);
  expect(
    paragraphs
      .filter((p) => /^Heading\d$/.test(p.style))
      .map((p) => ({ level: Number(p.style.slice(-1)), text: p.text })),
  ).toEqual(HEADINGS);
  for (const text of [PARAGRAPHS[0]!, PARAGRAPHS[2]!])
    expect(paragraphs.filter((p) => p.text === text)).toHaveLength(1);
  expect(tables).toContainEqual(TABLE);
  const everything = [...paragraphs.map((p) => p.text), ...tables.flat(2)].join(' ');
  for (const word of PARAGRAPHS[1]!.split(' ')) expect(everything).toContain(word);
  for (const item of LIST_ITEMS) expect(everything).toContain(item);
  await rm(run.workDir, { recursive: true, force: true });
}, 120_000);
