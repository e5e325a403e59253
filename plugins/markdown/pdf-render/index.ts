/**
 * PDF -> Markdown, HTML or the document model as JSON (`to=md|html|json`), rendered from the
 * engine's document model. PDF -> TXT stays the text layer's (pdf-to-text).
 */
import { definePlugin } from '../../../core/contract/index.js';
import { markdownFamily } from '../shared/family.js';
import { pdfRenderOptions } from './options.js';

export const pdfRenderPlugin = definePlugin({
  ...markdownFamily,
  id: 'pdf-render',
  kind: 'convert',
  title: 'PDF to Markdown, HTML or JSON (through the document model)',
  inputs: ['pdf'],
  outputs: ['md', 'html', 'json'],
  options: pdfRenderOptions,
  plan: 'pro',
  run: async (inputs, options, ctx) => (await import('./run.js')).pdfRenderRun(inputs, options, ctx),
});
