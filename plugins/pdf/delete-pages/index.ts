/**
 * delete-pages: remove the listed pages. The result keeps the document-level parts of the
 * original (metadata, page labels); removing every page is refused.
 */
import { definePlugin } from '../../../core/contract/index.js';
import { pdfFamily } from '../shared/family.js';
import { deletePagesOptions } from './options.js';

export const deletePagesPlugin = definePlugin({
  ...pdfFamily,
  id: 'delete-pages',
  kind: 'tool',
  op: 'delete-pages',
  title: 'Delete PDF pages',
  inputs: ['pdf'],
  options: deletePagesOptions,
  plan: 'pro',
  run: async (inputs, options, ctx) => (await import('./run.js')).deletePages(inputs, options, ctx),
});
