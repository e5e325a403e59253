import { singleInput, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import { processImage } from '../shared/engine.js';
import { keepsAnimation } from '../shared/formats.js';
import type { ConvertOptions } from './options.js';

export function convertImage(
  inputs: readonly PluginInput[],
  { quality }: ConvertOptions,
  ctx: RunContext,
): Promise<FileResult> {
  const input = singleInput(inputs);
  return processImage(input, ctx, {
    to: ctx.target,
    animated: keepsAnimation(input.format, ctx.target),
    encode: { quality },
  });
}
