import { definePlugin } from '../../../core/contract/index.js';
import { MEDIA_INPUTS } from '../shared/formats.js';
import { MEDIA_ENGINES, mediaLimits } from '../shared/media.js';
import { cleanMetadataOptions } from './options.js';
import { cleanMetadata } from './run.js';

/** clean-metadata for audio and video; images, PDF and Office are other families' plugins for the same op. */
export const mediaCleanMetadataPlugin = definePlugin({
  id: 'media-clean-metadata',
  kind: 'tool',
  op: 'clean-metadata',
  title: 'Remove hidden metadata from audio and video',
  inputs: MEDIA_INPUTS,
  options: cleanMetadataOptions,
  plan: 'pro',
  // What it links: fluent-ffmpeg (MIT); ffmpeg itself is declared by its engine.
  licenses: ['MIT'],
  engines: MEDIA_ENGINES,
  limits: mediaLimits(2, 2),
  run: (inputs, _options, ctx) => cleanMetadata(inputs, ctx),
});
