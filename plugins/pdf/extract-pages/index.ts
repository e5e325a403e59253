/**
 * extract-pages: keep the listed pages. The result keeps the document's own order whatever order
 * the list is written in, and the document-level parts of the original (metadata, page labels).
 */
import { definePlugin } from '../../../core/contract/index.js';
import { pdfFamily } from '../shared/family.js';
import { extractPagesOptions } from './options.js';

export const extractPagesPlugin = definePlugin({
  ...pdfFamily,
  id: 'extract-pages',
  kind: 'tool',
  op: 'extract-pages',
  title: 'Extract PDF pages',
  inputs: ['pdf'],
  options: extractPagesOptions,
  plan: 'pro',
  run: async (inputs, options, ctx) => (await import('./run.js')).extractPages(inputs, options, ctx),
});
