/** PDF -> Markdown extractor (one row {pages, markdown, stats} per input PDF), and PDF -> DOCX built on it (docx.ts). */
import { readFile } from 'node:fs/promises';
import { scaledTimeout } from '../../core/contract/helpers.js';
import { definePlugin } from '../../core/contract/index.js';
import { TESSERACT_ALL_LANGUAGES } from '../../core/engines/tesseract.js';
import { pdfToMarkdown } from './engine/index.js';
import { markdownOptions } from './options.js';

export { pdfToDocxPlugin } from './docx.js';
export { pdfToMarkdown } from './engine/index.js';
export type { MarkdownResult, MarkdownStats } from './engine/index.js';

export default definePlugin({
  id: 'pdf-to-markdown',
  kind: 'extract',
  title: 'PDF to Markdown',
  op: 'pdf-to-markdown',
  inputs: ['pdf'],
  options: markdownOptions,
  plan: 'pro',
  // What it links: pdfjs-dist (Apache-2.0).
  licenses: ['Apache-2.0'],
  extraction: { maxFiles: 25 },
  // tesseract reads pages with no text layer (scans), in the languages `lang` offers.
  engines: [TESSERACT_ALL_LANGUAGES],
  // Text PDFs take well under a second a page; a scan about 0.1-0.3 MB a page at 300 dpi and
  // 2-10 s of OCR, so the deadline grows with the file: 60 s per MB over the first two minutes.
  limits: { timeoutMs: scaledTimeout({ baseMs: 120_000, perMbMs: 60_000, maxMs: 1_800_000 }), concurrency: 2 },
  async run(inputs, options, ctx) {
    const pdf = new Uint8Array(await readFile(inputs[0]!.path));
    const result = await pdfToMarkdown(pdf, { ...options, signal: ctx.signal, timeoutMs: ctx.remainingMs() });
    ctx.progress(100);
    return { row: { ...result } };
  },
});
