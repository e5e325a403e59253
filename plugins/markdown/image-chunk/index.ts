/** op=chunk on an image: chunks for retrieval cut from the model its OCR gives. */
import { definePlugin } from '../../../core/contract/index.js';
import { imageOcrFamily, OCR_IMAGE_INPUTS } from '../shared/image-family.js';
import { imageChunkOptions } from './options.js';

export const imageChunkPlugin = definePlugin({
  ...imageOcrFamily,
  id: 'image-chunk',
  kind: 'tool',
  title: 'Image chunks for retrieval (through OCR)',
  op: 'chunk',
  inputs: OCR_IMAGE_INPUTS,
  outputs: ['jsonl'],
  targetOptional: true,
  options: imageChunkOptions,
  plan: 'pro',
  run: async (inputs, options, ctx) => (await import('./run.js')).imageChunkRun(inputs, options, ctx),
});
