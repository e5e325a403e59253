import { definePlugin } from '../../../core/contract/index.js';
import { MEDIA_INPUTS } from '../shared/formats.js';
import { mediaFamily } from '../shared/family.js';
import { cleanMetadataOptions } from './options.js';

/** clean-metadata for audio and video; images, PDF and Office are other families' plugins for the same op. */
export const mediaCleanMetadataPlugin = definePlugin({
  ...mediaFamily,
  id: 'media-clean-metadata',
  kind: 'tool',
  op: 'clean-metadata',
  title: 'Remove hidden metadata from audio and video',
  inputs: MEDIA_INPUTS,
  options: cleanMetadataOptions,
  plan: 'pro',
  run: async (inputs, _options, ctx) => (await import('./run.js')).cleanMetadata(inputs, ctx),
});
