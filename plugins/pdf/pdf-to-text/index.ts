/**
 * pdf-to-text: the embedded text layer as UTF-8 plain text in reading order (pdftotext without
 * -layout: columns come out one after another instead of side by side), pages separated by a
 * form feed (\f), Unix line ends.
 */
import { definePlugin } from '../../../core/contract/index.js';
import { PDFTOTEXT } from '../../../core/engines/poppler.js';
import { QPDF } from '../../../core/engines/qpdf.js';
import { QPDF_REWRITE, pdfFamily, pdfLimits } from '../shared/family.js';
import { noOptions } from '../shared/options.js';

export const pdfToTextPlugin = definePlugin({
  ...pdfFamily,
  id: 'pdf-to-text',
  kind: 'tool',
  op: 'pdf-to-text',
  title: 'PDF to text',
  inputs: ['pdf'],
  outputs: ['txt'],
  options: noOptions,
  plan: 'pro',
  engines: [QPDF, PDFTOTEXT],
  limits: pdfLimits({ ...QPDF_REWRITE, secondsPerMegabyte: 2 }),
  run: async (inputs, _options, ctx) => (await import('./run.js')).pdfToText(inputs, ctx),
});
