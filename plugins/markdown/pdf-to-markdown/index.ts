/** PDF -> Markdown extractor: one row {pages, markdown, stats} per input PDF. */
import { definePlugin } from '../../../core/contract/index.js';
import { pdfToMarkdownRowSchema } from '../../../schema/index.js';
import { markdownFamily } from '../shared/family.js';
import { pdfToMarkdownOptions } from './options.js';

export const pdfToMarkdownPlugin = definePlugin({
  ...markdownFamily,
  id: 'pdf-to-markdown',
  kind: 'extract',
  title: 'PDF to Markdown',
  op: 'pdf-to-markdown',
  inputs: ['pdf'],
  options: pdfToMarkdownOptions,
  plan: 'pro',
  extraction: { maxFiles: 25, row: pdfToMarkdownRowSchema },
  run: async (inputs, options, ctx) => (await import('./run.js')).pdfToMarkdownRun(inputs, options, ctx),
});
