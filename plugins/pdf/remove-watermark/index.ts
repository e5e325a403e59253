/**
 * remove-watermark on pdf-lib: finds the watermarks a PDF declares as such and removes them
 * (the rules are in run.ts); toolReport.detected counts what was removed.
 */
import { definePlugin } from '../../../core/contract/index.js';
import { pdfFamily, pdfLimits } from '../shared/family.js';
import { noOptions } from '../shared/options.js';

export const removeWatermarkPlugin = definePlugin({
  ...pdfFamily,
  id: 'remove-watermark',
  kind: 'tool',
  op: 'remove-watermark',
  title: 'Remove watermarks from a PDF',
  inputs: ['pdf'],
  options: noOptions,
  plan: 'pro',
  // What it links: pdf-lib (MIT); qpdf declares its own.
  licenses: ['MIT'],
  // pdf-lib holds the whole document in memory and walks every page's content.
  limits: pdfLimits({ secondsPerMegabyte: 3, secondsPerPage: 0.2, maxPages: 5_000 }),
  run: async (inputs, _options, ctx) => (await import('./run.js')).removeWatermark(inputs, ctx),
});
