/**
 * clean-metadata for PDF: removes the document information dictionary (title, author,
 * subject, keywords, creator and producer programs, dates), every XMP metadata stream (the
 * document's and those attached to pages, images or fonts) and /PieceInfo (private data that
 * editing programs leave on pages). The file is rewritten whole, not updated incrementally,
 * so nothing removed can be recovered from it.
 */
import { definePlugin } from '../../../core/contract/index.js';
import { QPDF_REWRITE, pdfFamily, pdfLimits } from '../shared/family.js';
import { noOptions } from '../shared/options.js';

export const pdfCleanMetadataPlugin = definePlugin({
  ...pdfFamily,
  id: 'pdf-clean-metadata',
  kind: 'tool',
  op: 'clean-metadata',
  title: 'Remove PDF metadata',
  inputs: ['pdf'],
  options: noOptions,
  plan: 'pro',
  limits: pdfLimits({ ...QPDF_REWRITE, secondsPerMegabyte: 2 }),
  run: async (inputs, _options, ctx) => (await import('./run.js')).cleanPdfMetadata(inputs, ctx),
});
