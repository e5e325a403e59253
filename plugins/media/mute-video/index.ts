import { definePlugin } from '../../../core/contract/index.js';
import { MAIN_VIDEO_FORMATS } from '../shared/formats.js';
import { mediaFamily } from '../shared/family.js';
import { muteVideoOptions } from './options.js';

export const muteVideoPlugin = definePlugin({
  ...mediaFamily,
  id: 'mute-video',
  kind: 'tool',
  op: 'mute-video',
  title: 'Remove the audio from a video',
  inputs: MAIN_VIDEO_FORMATS,
  options: muteVideoOptions,
  plan: 'pro',
  run: async (inputs, _options, ctx) => (await import('./run.js')).muteVideo(inputs, ctx),
});
