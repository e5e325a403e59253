import { definePlugin } from '../../../core/contract/index.js';
import { MAIN_VIDEO_FORMATS } from '../shared/formats.js';
import { mediaFamily, mediaLimits } from '../shared/family.js';
import { compressVideoOptions } from './options.js';

export const compressVideoPlugin = definePlugin({
  ...mediaFamily,
  id: 'compress-video',
  kind: 'tool',
  op: 'compress-video',
  title: 'Compress video',
  inputs: MAIN_VIDEO_FORMATS,
  options: compressVideoOptions,
  plan: 'pro',
  limits: mediaLimits(60, 1),
  run: async (inputs, options, ctx) => (await import('./run.js')).compressVideo(inputs, options, ctx),
});
