/** compress: re-encode JPG (mozjpeg), PNG (palette quantisation) or WebP at a target quality. */
import { definePlugin } from '../../../core/contract/index.js';
import { imageFamily } from '../shared/family.js';
import { compressOptions } from './options.js';

export const compressPlugin = definePlugin({
  ...imageFamily,
  id: 'image-compress',
  kind: 'tool',
  op: 'compress',
  title: 'Compress image',
  inputs: ['jpg', 'jpeg', 'png', 'webp'],
  options: compressOptions,
  plan: 'pro',
  run: async (inputs, options, ctx) => (await import('./run.js')).compressImage(inputs, options, ctx),
});
