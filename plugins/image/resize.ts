/** resize: fit an image into a box (cover, contain, inside, fill), same format, animation kept. */
import { definePlugin, singleInput } from '../../core/contract/index.js';
import type { FormatId } from '../../schema/index.js';
import { IMAGE_LIMITS, hasAlphaChannel, keepsAnimation, processImage } from './engine.js';
import { resizeOptions } from './options.js';

/**
 * contain pads with transparency, or white where the format has no alpha (sharp flattens
 * before it resizes, so JPEG padding must be opaque already).
 */
function paddingFor(format: FormatId) {
  return { r: 255, g: 255, b: 255, alpha: hasAlphaChannel(format) ? 0 : 1 };
}

export const resizePlugin = definePlugin({
  id: 'image-resize',
  kind: 'tool',
  op: 'resize',
  title: 'Resize image',
  inputs: ['jpg', 'jpeg', 'png', 'webp', 'gif', 'tiff', 'avif'],
  options: resizeOptions,
  plan: 'pro',
  // What it links: sharp (Apache-2.0) with libvips (LGPL-3.0-or-later), pdf-lib (MIT), heic-decode (ISC) with libheif (LGPL-3.0).
  licenses: ['Apache-2.0', 'LGPL-3.0-or-later', 'MIT', 'ISC'],
  engines: [],
  limits: IMAGE_LIMITS,
  run(inputs, { resize, quality }, ctx) {
    const input = singleInput(inputs);
    const to = input.format;
    const { width, height, fit } = resize;
    return processImage(input, ctx, {
      to,
      animated: keepsAnimation(to, to),
      encode: { quality },
      edit: (image) => image.resize({ width, height, fit, background: paddingFor(to) }),
    });
  },
});
