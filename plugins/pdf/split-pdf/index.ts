/**
 * split-pdf: a ZIP of PDFs, one per page (`<name>-p1.pdf`, ...) or one per listed range
 * (`<name>-1-3.pdf`, `<name>-4.pdf`, ...), in the order the ranges are written.
 */
import { definePlugin } from '../../../core/contract/index.js';
import { QPDF_REWRITE, pdfFamily, pdfLimits } from '../shared/family.js';
import { splitOptions } from './options.js';

export const splitPdfPlugin = definePlugin({
  ...pdfFamily,
  id: 'split-pdf',
  kind: 'tool',
  op: 'split-pdf',
  title: 'Split a PDF',
  inputs: ['pdf'],
  outputs: ['zip'],
  options: splitOptions,
  plan: 'pro',
  // One file per page: a ZIP of 5,000 PDFs is as far as a split usefully goes.
  limits: pdfLimits({ ...QPDF_REWRITE, secondsPerMegabyte: 2, secondsPerPage: 0.2, maxPages: 5_000 }),
  run: async (inputs, options, ctx) => (await import('./run.js')).splitPdf(inputs, options, ctx),
});
