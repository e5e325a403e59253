/** op=structure on an image (PNG, JPEG, TIFF, WebP): the document model through OCR, with pages and boxes. */
import { definePlugin } from '../../../core/contract/index.js';
import { imageOcrFamily, OCR_IMAGE_INPUTS } from '../shared/image-family.js';
import { imageStructureOptions } from './options.js';

export const imageStructurePlugin = definePlugin({
  ...imageOcrFamily,
  id: 'image-structure',
  kind: 'tool',
  title: 'Image structure through OCR (the document model)',
  op: 'structure',
  inputs: OCR_IMAGE_INPUTS,
  outputs: ['json'],
  targetOptional: true,
  options: imageStructureOptions,
  plan: 'pro',
  run: async (inputs, options, ctx) => (await import('./run.js')).imageStructureRun(inputs, options, ctx),
});
