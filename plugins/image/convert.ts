/**
 * Raster conversions: one plugin for every raster target, read from ctx.target. Animation is
 * kept from GIF/WebP to GIF/WebP; other targets get the first frame (first page of a TIFF,
 * first image of a HEIF collection).
 */
import { definePlugin, singleInput } from '../../core/contract/index.js';
import type { FormatId } from '../../schema/index.js';
import { IMAGEMAGICK } from '../../core/engines/imagemagick.js';
import { IMAGE_LIMITS, MAGICK_FORMATS, RASTER_FORMATS, keepsAnimation, processImage } from './engine.js';
import { convertOptions } from './options.js';

/** Every format the family reads. */
export const IMAGE_INPUTS = [
  ...RASTER_FORMATS,
  'svg',
  'heic',
  'heif',
  ...MAGICK_FORMATS,
] as const satisfies readonly FormatId[];
/** The engines a plugin taking IMAGE_INPUTS needs: ImageMagick decodes BMP. */
export const IMAGE_INPUT_ENGINES = [IMAGEMAGICK];

export const imageConvertPlugin = definePlugin({
  id: 'image-convert',
  kind: 'convert',
  title: 'Image conversion',
  inputs: IMAGE_INPUTS,
  outputs: ['jpg', 'png', 'webp', 'avif', 'gif', 'tiff'],
  options: convertOptions,
  plan: 'free',
  // What it links: sharp (Apache-2.0) with libvips (LGPL-3.0-or-later), pdf-lib (MIT), heic-decode (ISC) with libheif (LGPL-3.0).
  licenses: ['Apache-2.0', 'LGPL-3.0-or-later', 'MIT', 'ISC'],
  engines: IMAGE_INPUT_ENGINES,
  limits: IMAGE_LIMITS,
  run(inputs, { quality }, ctx) {
    const input = singleInput(inputs);
    return processImage(input, ctx, {
      to: ctx.target,
      animated: keepsAnimation(input.format, ctx.target),
      encode: { quality },
    });
  },
});
