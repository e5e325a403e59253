/** rotate-pdf: every page turned clockwise by `angle`, on top of any rotation it already has. */
import { definePlugin } from '../../../core/contract/index.js';
import { pdfFamily } from '../shared/family.js';
import { rotateOptions } from './options.js';

export const rotatePdfPlugin = definePlugin({
  ...pdfFamily,
  id: 'rotate-pdf',
  kind: 'tool',
  op: 'rotate-pdf',
  title: 'Rotate PDF pages',
  inputs: ['pdf'],
  options: rotateOptions,
  plan: 'pro',
  run: async (inputs, options, ctx) => (await import('./run.js')).rotatePdf(inputs, options, ctx),
});
