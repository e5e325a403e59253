import { definePlugin } from '../../../core/contract/index.js';
import { MAIN_VIDEO_FORMATS } from '../shared/formats.js';
import { MEDIA_ENGINES, mediaLimits } from '../shared/media.js';
import { compressVideoOptions } from './options.js';
import { compressVideo } from './run.js';

export const compressVideoPlugin = definePlugin({
  id: 'compress-video',
  kind: 'tool',
  op: 'compress-video',
  title: 'Compress video',
  inputs: MAIN_VIDEO_FORMATS,
  options: compressVideoOptions,
  plan: 'pro',
  // What it links: fluent-ffmpeg (MIT); ffmpeg itself is declared by its engine.
  licenses: ['MIT'],
  engines: MEDIA_ENGINES,
  limits: mediaLimits(60, 1),
  run: (inputs, options, ctx) => compressVideo(inputs, options, ctx),
});
