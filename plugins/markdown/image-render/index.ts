/** Image -> Markdown, HTML or the document model as JSON (`to=md|html|json`), rendered from the model its OCR gives. */
import { definePlugin } from '../../../core/contract/index.js';
import { imageOcrFamily, OCR_IMAGE_INPUTS } from '../shared/image-family.js';
import { imageRenderOptions } from './options.js';

export const imageRenderPlugin = definePlugin({
  ...imageOcrFamily,
  id: 'image-render',
  kind: 'convert',
  title: 'Image to Markdown, HTML or JSON (OCR, through the document model)',
  inputs: OCR_IMAGE_INPUTS,
  outputs: ['md', 'html', 'json'],
  options: imageRenderOptions,
  plan: 'pro',
  run: async (inputs, options, ctx) => (await import('./run.js')).imageRenderRun(inputs, options, ctx),
});
