import { singleInput, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import { processImageNoLarger } from '../shared/engine.js';
import { keepsAnimation } from '../shared/formats.js';
import type { CompressOptions } from './options.js';

export function compressImage(
  inputs: readonly PluginInput[],
  { quality }: CompressOptions,
  ctx: RunContext,
): Promise<FileResult> {
  const input = singleInput(inputs);
  const to = input.format;
  // A compress that grows the file helps no one: an already small input comes back as it was.
  return processImageNoLarger(input, ctx, {
    to,
    animated: keepsAnimation(to, to),
    encode: { quality, smallest: true },
  });
}
