import { definePlugin } from '../../../core/contract/index.js';
import { MEDIA_INPUTS } from '../shared/formats.js';
import { mediaFamily } from '../shared/family.js';
import { trimMediaOptions } from './options.js';

export const trimMediaPlugin = definePlugin({
  ...mediaFamily,
  id: 'trim-media',
  kind: 'tool',
  op: 'trim-media',
  title: 'Trim audio or video (lossless)',
  inputs: MEDIA_INPUTS,
  options: trimMediaOptions,
  plan: 'pro',
  run: async (inputs, options, ctx) => (await import('./run.js')).trimMedia(inputs, options, ctx),
});
