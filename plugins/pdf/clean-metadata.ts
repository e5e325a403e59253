/**
 * clean-metadata for PDF: removes the document information dictionary (title, author,
 * subject, keywords, creator and producer programs, dates), every XMP metadata stream (the
 * document's and those attached to pages, images or fonts) and /PieceInfo (private data that
 * editing programs leave on pages). The file is rewritten whole, not updated incrementally,
 * so nothing removed can be recovered from it.
 */
import { definePlugin } from '../../core/contract/index.js';
import { noOptions } from './options.js';
import { deleteKeys, rewriteObjects } from './shared/object-edit.js';
import { QPDF } from '../../core/engines/qpdf.js';
import { pdfLimits } from './shared/run.js';
import { transformPdf } from './shared/transform.js';

export const pdfCleanMetadataPlugin = definePlugin({
  id: 'pdf-clean-metadata',
  kind: 'tool',
  op: 'clean-metadata',
  title: 'Remove PDF metadata',
  inputs: ['pdf'],
  options: noOptions,
  plan: 'pro',
  // What it links: pdf-lib and yazl (MIT), sharp (Apache-2.0) with libvips (LGPL-3.0-or-later); engines declare their own.
  licenses: ['MIT', 'Apache-2.0', 'LGPL-3.0-or-later'],
  engines: [QPDF],
  limits: pdfLimits(2),
  run: (inputs, _options, ctx) =>
    transformPdf(inputs, ctx, ({ input, output }) =>
      rewriteObjects(input.path, output, ctx, (objects) => {
        objects.editTrailer((trailer) => deleteKeys(trailer, ['/Info']));
        objects.editDictionaries((dictionary) => deleteKeys(dictionary, ['/Metadata', '/PieceInfo']));
      }),
    ),
});
