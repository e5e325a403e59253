import { singleInput, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import type { FormatId } from '../../../schema/index.js';
import { processImage } from '../shared/engine.js';
import { hasAlphaChannel, keepsAnimation } from '../shared/formats.js';
import type { ResizeOptions } from './options.js';

/**
 * contain pads with transparency, or white where the format has no alpha (sharp flattens
 * before it resizes, so JPEG padding must be opaque already).
 */
function paddingFor(format: FormatId) {
  return { r: 255, g: 255, b: 255, alpha: hasAlphaChannel(format) ? 0 : 1 };
}

export function resizeImage(
  inputs: readonly PluginInput[],
  { resize, quality }: ResizeOptions,
  ctx: RunContext,
): Promise<FileResult> {
  const input = singleInput(inputs);
  const to = input.format;
  const { width, height, fit } = resize;
  return processImage(input, ctx, {
    to,
    animated: keepsAnimation(to, to),
    encode: { quality },
    edit: (image) => image.resize({ width, height, fit, background: paddingFor(to) }),
  });
}
