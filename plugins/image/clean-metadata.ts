/**
 * clean-metadata for images: EXIF (with GPS), XMP, IPTC, ICC profile and text chunks are
 * dropped by re-encoding without them. The EXIF orientation is applied to the pixels first,
 * so the picture looks the same once its orientation tag is gone.
 */
import { definePlugin, singleInput } from '../../core/contract/index.js';
import { IMAGE_LIMITS, RASTER_FORMATS, keepsAnimation, processImage } from './engine.js';
import { PRESERVING_QUALITY, noOptions } from './options.js';

export const cleanMetadataPlugin = definePlugin({
  id: 'image-clean-metadata',
  kind: 'tool',
  op: 'clean-metadata',
  title: 'Remove image metadata',
  inputs: RASTER_FORMATS,
  options: noOptions,
  plan: 'pro',
  // What it links: sharp (Apache-2.0) with libvips (LGPL-3.0-or-later), pdf-lib (MIT), heic-decode (ISC) with libheif (LGPL-3.0).
  licenses: ['Apache-2.0', 'LGPL-3.0-or-later', 'MIT', 'ISC'],
  engines: [],
  limits: IMAGE_LIMITS,
  run(inputs, _options, ctx) {
    const input = singleInput(inputs);
    const to = input.format;
    // sharp writes no metadata unless asked to (keepMetadata/withExif), and openImage auto-orients.
    return processImage(input, ctx, { to, animated: keepsAnimation(to, to), encode: { quality: PRESERVING_QUALITY } });
  },
});
