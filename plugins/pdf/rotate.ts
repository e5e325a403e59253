/** rotate-pdf: every page turned clockwise by `angle`, on top of any rotation it already has. */
import { definePlugin } from '../../core/contract/index.js';
import { QPDF, runQpdf } from '../../core/engines/qpdf.js';
import { rotateOptions } from './options.js';
import { pdfLimits } from './shared/run.js';
import { transformPdf } from './shared/transform.js';

export const rotatePdfPlugin = definePlugin({
  id: 'rotate-pdf',
  kind: 'tool',
  op: 'rotate-pdf',
  title: 'Rotate PDF pages',
  inputs: ['pdf'],
  options: rotateOptions,
  plan: 'pro',
  // What it links: pdf-lib and yazl (MIT), sharp (Apache-2.0) with libvips (LGPL-3.0-or-later); engines declare their own.
  licenses: ['MIT', 'Apache-2.0', 'LGPL-3.0-or-later'],
  engines: [QPDF],
  limits: pdfLimits(1),
  run: (inputs, { angle }, ctx) =>
    // qpdf's "+N" adds N degrees clockwise to each page's /Rotate; content is not re-rendered.
    transformPdf(inputs, ctx, ({ input, output }) =>
      runQpdf({ inputFile: input.path, outputFile: output, rotate: `+${angle}` }, ctx),
    ),
});
