/**
 * Raster conversions: one plugin per target format, because a run learns its output format
 * only from its own manifest. Animation is kept from GIF/WebP to GIF/WebP; other targets get
 * the first frame (first page of a TIFF, first image of a HEIF collection).
 */
import { definePlugin, type Plugin } from '../../core/contract/index.js';
import { FORMATS, type FormatId } from '../../schema/index.js';
import { IMAGE_LIMITS, RASTER_FORMATS, keepsAnimation, processImage, singleInput } from './engine.js';
import { convertOptions } from './options.js';

/** Every format the family reads. */
export const IMAGE_INPUTS = [...RASTER_FORMATS, 'svg', 'heic', 'heif'] as const satisfies readonly FormatId[];
const CONVERT_TARGETS = ['jpg', 'png', 'webp', 'avif', 'gif', 'tiff'] as const satisfies readonly FormatId[];

function imageConvertPlugin(to: (typeof CONVERT_TARGETS)[number]): Plugin {
  return definePlugin({
    id: `image-to-${to}`,
    kind: 'convert',
    title: `Image to ${FORMATS[to].extension.toUpperCase()}`,
    inputs: IMAGE_INPUTS,
    outputs: [to],
    options: convertOptions,
    plan: 'free',
    engines: [],
    limits: IMAGE_LIMITS,
    run(inputs, { quality }, ctx) {
      const input = singleInput(inputs);
      return processImage(input, ctx, { to, animated: keepsAnimation(input.format, to), encode: { quality } });
    },
  });
}

export const imageConvertPlugins: Plugin[] = CONVERT_TARGETS.map(imageConvertPlugin);
