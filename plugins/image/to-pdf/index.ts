/** Any image to a one-page PDF at the image's pixel size (1 px = 1 pt); animations give their first frame. */
import { definePlugin } from '../../../core/contract/index.js';
import { imageFamily } from '../shared/family.js';
import { IMAGE_INPUTS, IMAGE_INPUT_ENGINES } from '../shared/formats.js';
import { imageToPdfOptions } from './options.js';

export const imageToPdfPlugin = definePlugin({
  ...imageFamily,
  id: 'image-to-pdf',
  kind: 'convert',
  title: 'Image to PDF',
  inputs: IMAGE_INPUTS,
  outputs: ['pdf'],
  options: imageToPdfOptions,
  plan: 'free',
  engines: IMAGE_INPUT_ENGINES,
  run: async (inputs, options, ctx) => (await import('./run.js')).imageToPdf(inputs, options, ctx),
});
