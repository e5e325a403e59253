/**
 * clean-metadata for images: EXIF (with GPS), XMP, IPTC, ICC profile and text chunks are
 * dropped by re-encoding without them. The EXIF orientation is applied to the pixels first,
 * so the picture looks the same once its orientation tag is gone.
 */
import { definePlugin } from '../../../core/contract/index.js';
import { imageFamily } from '../shared/family.js';
import { RASTER_FORMATS } from '../shared/formats.js';
import { noOptions } from '../shared/options.js';

export const cleanMetadataPlugin = definePlugin({
  ...imageFamily,
  id: 'image-clean-metadata',
  kind: 'tool',
  op: 'clean-metadata',
  title: 'Remove image metadata',
  inputs: RASTER_FORMATS,
  options: noOptions,
  plan: 'pro',
  run: async (inputs, _options, ctx) => (await import('./run.js')).cleanImageMetadata(inputs, ctx),
});
