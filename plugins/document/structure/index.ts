/** op=structure: an office, web or spreadsheet file -> the document model as JSON (also the job's `result`). */
import { definePlugin } from '../../../core/contract/index.js';
import { DOCUMENT_INPUTS, documentFamily } from '../shared/family.js';
import { structureOptions } from './options.js';

export const documentStructurePlugin = definePlugin({
  ...documentFamily,
  id: 'document-structure',
  kind: 'tool',
  title: 'Document structure (office, web and spreadsheet files)',
  op: 'structure',
  inputs: DOCUMENT_INPUTS,
  outputs: ['json'],
  targetOptional: true,
  options: structureOptions,
  plan: 'pro',
  run: async (inputs, options, ctx) => (await import('./run.js')).structure(inputs, options, ctx),
});
