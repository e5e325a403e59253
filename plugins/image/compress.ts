/** compress: re-encode JPG (mozjpeg), PNG (palette quantisation) or WebP at a target quality. */
import { definePlugin, singleInput } from '../../core/contract/index.js';
import { IMAGE_LIMITS, keepsAnimation, processImageNoLarger } from './engine.js';
import { compressOptions } from './options.js';

export const compressPlugin = definePlugin({
  id: 'image-compress',
  kind: 'tool',
  op: 'compress',
  title: 'Compress image',
  inputs: ['jpg', 'jpeg', 'png', 'webp'],
  options: compressOptions,
  plan: 'pro',
  // What it links: sharp (Apache-2.0) with libvips (LGPL-3.0-or-later), pdf-lib (MIT), heic-decode (ISC) with libheif (LGPL-3.0).
  licenses: ['Apache-2.0', 'LGPL-3.0-or-later', 'MIT', 'ISC'],
  engines: [],
  limits: IMAGE_LIMITS,
  run(inputs, { quality }, ctx) {
    const input = singleInput(inputs);
    const to = input.format;
    // A compress that grows the file helps no one: an already small input comes back as it was.
    return processImageNoLarger(input, ctx, {
      to,
      animated: keepsAnimation(to, to),
      encode: { quality, smallest: true },
    });
  },
});
