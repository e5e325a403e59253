/** op=structure on a PDF: the document model from the PDF -> Markdown engine's own structure. */
import { definePlugin } from '../../../core/contract/index.js';
import { markdownFamily } from '../shared/family.js';
import { pdfStructureOptions } from './options.js';

export const pdfStructurePlugin = definePlugin({
  ...markdownFamily,
  id: 'pdf-structure',
  kind: 'tool',
  title: 'PDF structure (the document model)',
  op: 'structure',
  inputs: ['pdf'],
  outputs: ['json'],
  targetOptional: true,
  options: pdfStructureOptions,
  plan: 'pro',
  run: async (inputs, options, ctx) => (await import('./run.js')).pdfStructureRun(inputs, options, ctx),
});
