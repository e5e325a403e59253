/**
 * PDF -> DOCX: an editable document rebuilt from the PDF's structure (headings, paragraphs,
 * lists, tables) by the PDF -> Markdown engine, written as DOCX by pandoc (run.ts says how).
 */
import { definePlugin } from '../../../core/contract/index.js';
import { PANDOC } from '../../../core/engines/pandoc.js';
import { QPDF } from '../../../core/engines/qpdf.js';
import { TESSERACT } from '../../../core/engines/tesseract.js';
import { markdownFamily, markdownTimeout } from '../shared/family.js';
import { pdfToDocxOptions } from './options.js';

export const pdfToDocxPlugin = definePlugin({
  ...markdownFamily,
  id: 'pdf-to-docx',
  kind: 'convert',
  title: 'PDF to editable DOCX (structure: headings, paragraphs, lists, tables)',
  inputs: ['pdf'],
  outputs: ['docx'],
  options: pdfToDocxOptions,
  plan: 'free',
  // pandoc writes the DOCX; tesseract OCRs scanned pages (English, the engine's default language);
  // qpdf counts the pages at acceptance.
  engines: [PANDOC, TESSERACT, QPDF],
  // Text PDFs take a second or two; a scan is OCRed page by page (about a second a page on one core).
  // Pages are the family's measure: at most 2,000, a second more of deadline each.
  limits: { ...markdownFamily.limits, timeoutMs: markdownTimeout(60_000, 20_000) },
  run: async (inputs, options, ctx) => (await import('./run.js')).pdfToDocx(inputs, options, ctx),
});
