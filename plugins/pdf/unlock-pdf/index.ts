/**
 * unlock-pdf: the PDF without its password, given the password. The password reaches qpdf only
 * inside its 0600 job file (see core/engines/qpdf.ts).
 */
import { definePlugin } from '../../../core/contract/index.js';
import { pdfFamily } from '../shared/family.js';
import { unlockOptions } from './options.js';

export const unlockPdfPlugin = definePlugin({
  ...pdfFamily,
  id: 'unlock-pdf',
  kind: 'tool',
  op: 'unlock-pdf',
  title: 'Remove the password from a PDF',
  inputs: ['pdf'],
  options: unlockOptions,
  plan: 'pro',
  run: async (inputs, options, ctx) => (await import('./run.js')).unlockPdf(inputs, options, ctx),
});
