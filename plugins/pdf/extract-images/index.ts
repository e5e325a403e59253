/**
 * extract-images: a ZIP of the raster images embedded in a PDF, as stored: JPEG stays the very
 * same JPEG (pdfimages -j), everything else becomes PNG. Entries are named after the page the
 * image first appears on (`<name>-p2-1.png`); an image used on several pages, or twice, is
 * included once. Soft masks (transparency) come out as greyscale images of their own.
 */
import { definePlugin } from '../../../core/contract/index.js';
import { PDFIMAGES } from '../../../core/engines/poppler.js';
import { QPDF } from '../../../core/engines/qpdf.js';
import { pdfFamily, pdfLimits } from '../shared/family.js';
import { noOptions } from '../shared/options.js';

export const extractImagesPlugin = definePlugin({
  ...pdfFamily,
  id: 'extract-images',
  kind: 'tool',
  op: 'extract-images',
  title: 'Extract images from a PDF',
  inputs: ['pdf'],
  outputs: ['zip'],
  options: noOptions,
  plan: 'pro',
  engines: [QPDF, PDFIMAGES],
  // pdfimages decodes every image it writes as PNG: heavier per page than a qpdf rewrite.
  limits: pdfLimits({ secondsPerMegabyte: 3, secondsPerPage: 0.5, maxPages: 5_000 }),
  run: async (inputs, _options, ctx) => (await import('./run.js')).extractPdfImages(inputs, ctx),
});
