/** op=chunk on a PDF: chunks for retrieval cut from the engine's document model (running lines left out). */
import { definePlugin } from '../../../core/contract/index.js';
import { markdownFamily } from '../shared/family.js';
import { pdfChunkOptions } from './options.js';

export const pdfChunkPlugin = definePlugin({
  ...markdownFamily,
  id: 'pdf-chunk',
  kind: 'tool',
  title: 'PDF chunks for retrieval',
  op: 'chunk',
  // The family's, and js-tiktoken (MIT), the chunker's cl100k tokenizer.
  licenses: [...markdownFamily.licenses, 'MIT'],
  inputs: ['pdf'],
  outputs: ['jsonl'],
  targetOptional: true,
  options: pdfChunkOptions,
  plan: 'pro',
  run: async (inputs, options, ctx) => (await import('./run.js')).pdfChunkRun(inputs, options, ctx),
});
