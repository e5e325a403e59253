/**
 * compress-pdf: ghostscript's pdfwrite. Without `quality`, its /ebook profile: colour and grey
 * images above 150 dpi downsampled to 150 dpi (bicubic), monochrome to 300 dpi, re-encoded as
 * JPEG at medium quality; fonts subset and compressed, duplicate images and unused objects
 * dropped. With `quality` (10-95), image resolution and JPEG quality follow it. Text and vector
 * graphics stay sharp. When the result is not smaller, the original is returned unchanged.
 */
import { definePlugin } from '../../../core/contract/index.js';
import { GHOSTSCRIPT } from '../../../core/engines/ghostscript.js';
import { QPDF } from '../../../core/engines/qpdf.js';
import { GHOSTSCRIPT_RENDER, pdfFamily, pdfLimits } from '../shared/family.js';
import { compressPdfOptions } from './options.js';

export const compressPdfPlugin = definePlugin({
  ...pdfFamily,
  id: 'compress-pdf',
  kind: 'tool',
  op: 'compress-pdf',
  title: 'Compress a PDF',
  inputs: ['pdf'],
  options: compressPdfOptions,
  plan: 'pro',
  engines: [QPDF, GHOSTSCRIPT],
  limits: pdfLimits(GHOSTSCRIPT_RENDER),
  run: async (inputs, options, ctx) => (await import('./run.js')).compressPdf(inputs, options, ctx),
});
