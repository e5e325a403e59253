/** OCR of PDFs: op ocr (OCRmyPDF, tesseract, ghostscript). */
import { definePlugin } from '../../../core/contract/index.js';
import { ocrFamily } from '../shared/family.js';
import { ocrOptions } from './options.js';

export const ocrPlugin = definePlugin({
  ...ocrFamily,
  id: 'pdf-ocr',
  kind: 'tool',
  op: 'ocr',
  title: 'OCR a PDF (searchable text layer)',
  inputs: ['pdf'],
  options: ocrOptions,
  plan: 'pro',
  run: async (inputs, options, ctx) => (await import('./run.js')).runOcr(inputs, options, ctx),
});
