/** op=chunk: an office, web or spreadsheet file -> chunks for retrieval as JSON Lines (also the job's `result`). */
import { definePlugin } from '../../../core/contract/index.js';
import { DOCUMENT_INPUTS, documentFamily } from '../shared/family.js';
import { chunkOptions } from './options.js';

export const documentChunkPlugin = definePlugin({
  ...documentFamily,
  id: 'document-chunk',
  kind: 'tool',
  title: 'Chunks for retrieval (office, web and spreadsheet files)',
  op: 'chunk',
  inputs: DOCUMENT_INPUTS,
  outputs: ['jsonl'],
  targetOptional: true,
  options: chunkOptions,
  plan: 'pro',
  run: async (inputs, options, ctx) => (await import('./run.js')).chunk(inputs, options, ctx),
});
