/** Redaction of PDFs: op redact (MuPDF WASM): matched text removed, black boxes where it was. */
import { definePlugin } from '../../../core/contract/index.js';
import { redactFamily } from '../shared/family.js';
import { redactOptions } from './options.js';

export const redactPlugin = definePlugin({
  ...redactFamily,
  id: 'pdf-redact',
  kind: 'tool',
  op: 'redact',
  title: 'Redact a PDF (matched text removed)',
  inputs: ['pdf'],
  options: redactOptions,
  plan: 'pro',
  run: async (inputs, options, ctx) => (await import('./run.js')).runRedact(inputs, options, ctx),
});
