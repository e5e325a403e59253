/**
 * Raster conversions: one plugin for every raster target, read from ctx.target. Animation is
 * kept from GIF/WebP to GIF/WebP; other targets get the first frame (first page of a TIFF,
 * first image of a HEIF collection).
 */
import { definePlugin } from '../../../core/contract/index.js';
import { imageFamily } from '../shared/family.js';
import { IMAGE_INPUTS, IMAGE_INPUT_ENGINES } from '../shared/formats.js';
import { convertOptions } from './options.js';

export const imageConvertPlugin = definePlugin({
  ...imageFamily,
  id: 'image-convert',
  kind: 'convert',
  title: 'Image conversion',
  inputs: IMAGE_INPUTS,
  outputs: ['jpg', 'png', 'webp', 'avif', 'gif', 'tiff'],
  options: convertOptions,
  plan: 'free',
  engines: IMAGE_INPUT_ENGINES,
  run: async (inputs, options, ctx) => (await import('./run.js')).convertImage(inputs, options, ctx),
});
