/** op=thumbnail: a PNG, WEBP or JPG picture of a PDF page, a video frame, an office document or an image. */
import { definePlugin } from '../../../core/contract/index.js';
import { thumbnailFamily } from '../shared/family.js';
import { IMAGE_INPUTS, OFFICE_INPUTS, THUMBNAIL_OUTPUTS, VIDEO_INPUTS } from './formats.js';
import { thumbnailOptions } from './options.js';

export const thumbnailPlugin = definePlugin({
  ...thumbnailFamily,
  id: 'thumbnail',
  kind: 'tool',
  op: 'thumbnail',
  title: 'Thumbnail of a PDF, image, video or office document',
  inputs: ['pdf', ...IMAGE_INPUTS, ...VIDEO_INPUTS, ...OFFICE_INPUTS],
  // `to` picks the picture's format, whatever the input (an exception to "ops keep the format").
  outputs: THUMBNAIL_OUTPUTS,
  options: thumbnailOptions,
  // Tool operations are Pro and up (the spec's plan table).
  plan: 'pro',
  run: async (inputs, options, ctx) => (await import('./run.js')).thumbnail(inputs, options, ctx),
});
