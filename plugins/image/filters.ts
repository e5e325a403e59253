/** Colour filters (grayscale, sepia, invert): same format out, alpha and animation kept. */
import type { Sharp } from 'sharp';
import { definePlugin, singleInput, type Plugin } from '../../core/contract/index.js';
import { IMAGE_LIMITS, keepsAnimation, processImage } from './engine.js';
import { PRESERVING_QUALITY, noOptions } from './options.js';

const FILTER_INPUTS = ['jpg', 'jpeg', 'png', 'webp', 'gif', 'tiff', 'avif'] as const;

// The classic sepia matrix (Microsoft's, as used by CSS sepia(1)): rows give output R, G, B.
const SEPIA: [[number, number, number], [number, number, number], [number, number, number]] = [
  [0.393, 0.769, 0.189],
  [0.349, 0.686, 0.168],
  [0.272, 0.534, 0.131],
];

function filterPlugin(op: string, title: string, apply: (image: Sharp) => Sharp): Plugin {
  return definePlugin({
    id: `image-${op}`,
    kind: 'tool',
    op,
    title,
    inputs: FILTER_INPUTS,
    options: noOptions,
    plan: 'pro',
    // What it links: sharp (Apache-2.0) with libvips (LGPL-3.0-or-later), pdf-lib (MIT), heic-decode (ISC) with libheif (LGPL-3.0).
    licenses: ['Apache-2.0', 'LGPL-3.0-or-later', 'MIT', 'ISC'],
    engines: [],
    limits: IMAGE_LIMITS,
    run(inputs, _options, ctx) {
      const input = singleInput(inputs);
      const to = input.format;
      return processImage(input, ctx, {
        to,
        animated: keepsAnimation(to, to),
        encode: { quality: PRESERVING_QUALITY },
        edit: apply,
      });
    },
  });
}

export const filterPlugins: Plugin[] = [
  filterPlugin('grayscale', 'Grayscale image', (image) => image.grayscale()),
  filterPlugin('sepia', 'Sepia image', (image) => image.recomb(SEPIA)),
  filterPlugin('invert', 'Invert image colours', (image) => image.negate({ alpha: false })),
];
