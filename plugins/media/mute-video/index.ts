import { definePlugin } from '../../../core/contract/index.js';
import { MAIN_VIDEO_FORMATS } from '../shared/formats.js';
import { MEDIA_ENGINES, mediaLimits } from '../shared/media.js';
import { muteVideoOptions } from './options.js';
import { muteVideo } from './run.js';

export const muteVideoPlugin = definePlugin({
  id: 'mute-video',
  kind: 'tool',
  op: 'mute-video',
  title: 'Remove the audio from a video',
  inputs: MAIN_VIDEO_FORMATS,
  options: muteVideoOptions,
  plan: 'pro',
  // What it links: fluent-ffmpeg (MIT); ffmpeg itself is declared by its engine.
  licenses: ['MIT'],
  engines: MEDIA_ENGINES,
  limits: mediaLimits(2, 2),
  run: (inputs, _options, ctx) => muteVideo(inputs, ctx),
});
