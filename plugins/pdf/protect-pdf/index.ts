/**
 * protect-pdf: AES-256 encryption with one password. The password reaches qpdf only inside its
 * 0600 job file (see core/engines/qpdf.ts): never argv, never a log line, never a file left behind.
 */
import { definePlugin } from '../../../core/contract/index.js';
import { pdfFamily } from '../shared/family.js';
import { protectOptions } from './options.js';

export const protectPdfPlugin = definePlugin({
  ...pdfFamily,
  id: 'protect-pdf',
  kind: 'tool',
  op: 'protect-pdf',
  title: 'Protect a PDF with a password',
  inputs: ['pdf'],
  options: protectOptions,
  plan: 'pro',
  run: async (inputs, options, ctx) => (await import('./run.js')).protectPdf(inputs, options, ctx),
});
