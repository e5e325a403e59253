import type { Sharp } from 'sharp';
import { singleInput, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import { processImage } from '../shared/engine.js';
import { keepsAnimation } from '../shared/formats.js';
import { PRESERVING_QUALITY } from '../shared/options.js';

// The classic sepia matrix (Microsoft's, as used by CSS sepia(1)): rows give output R, G, B.
const SEPIA: [[number, number, number], [number, number, number], [number, number, number]] = [
  [0.393, 0.769, 0.189],
  [0.349, 0.686, 0.168],
  [0.272, 0.534, 0.131],
];

const FILTERS = {
  grayscale: (image: Sharp) => image.grayscale(),
  sepia: (image: Sharp) => image.recomb(SEPIA),
  invert: (image: Sharp) => image.negate({ alpha: false }),
};
export type ColourFilter = keyof typeof FILTERS;

export function filterImage(
  filter: ColourFilter,
  inputs: readonly PluginInput[],
  ctx: RunContext,
): Promise<FileResult> {
  const input = singleInput(inputs);
  const to = input.format;
  return processImage(input, ctx, {
    to,
    animated: keepsAnimation(to, to),
    encode: { quality: PRESERVING_QUALITY },
    edit: FILTERS[filter],
  });
}
