import { definePlugin } from '../../../core/contract/index.js';
import { MEDIA_INPUTS } from '../shared/formats.js';
import { MEDIA_ENGINES, mediaLimits } from '../shared/media.js';
import { trimMediaOptions } from './options.js';
import { trimMedia } from './run.js';

export const trimMediaPlugin = definePlugin({
  id: 'trim-media',
  kind: 'tool',
  op: 'trim-media',
  title: 'Trim audio or video (lossless)',
  inputs: MEDIA_INPUTS,
  options: trimMediaOptions,
  plan: 'pro',
  // What it links: fluent-ffmpeg (MIT); ffmpeg itself is declared by its engine.
  licenses: ['MIT'],
  engines: MEDIA_ENGINES,
  limits: mediaLimits(2, 2),
  run: (inputs, options, ctx) => trimMedia(inputs, options, ctx),
});
