/** OCR of PDFs: op ocr (OCRmyPDF, tesseract, ghostscript). */
import { definePlugin, type Plugin } from '../../core/contract/index.js';
import { GHOSTSCRIPT } from '../../core/engines/ghostscript.js';
import { OCRMYPDF } from '../../core/engines/ocrmypdf.js';
import { QPDF } from '../../core/engines/qpdf.js';
import { TESSERACT } from '../../core/engines/tesseract.js';
import { ocrTimeoutMs, ocrWork } from './limits.js';
import { ocrOptions } from './options.js';
import { runOcr } from './run.js';

export const ocrPlugin = definePlugin({
  id: 'pdf-ocr',
  kind: 'tool',
  op: 'ocr',
  title: 'OCR a PDF (searchable text layer)',
  inputs: ['pdf'],
  options: ocrOptions,
  plan: 'pro',
  // Links nothing beyond Node: every engine is a process, each declaring its own licence.
  licenses: [],
  // ocrmypdf drives tesseract and rasterises pages with ghostscript; qpdf opens the input first.
  engines: [QPDF, OCRMYPDF, TESSERACT, GHOSTSCRIPT],
  limits: { timeoutMs: ocrTimeoutMs, work: ocrWork, concurrency: 2 },
  run: runOcr,
});

export const ocrPlugins: Plugin[] = [ocrPlugin];
