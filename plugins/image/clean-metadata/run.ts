import { singleInput, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import { processImage } from '../shared/engine.js';
import { keepsAnimation } from '../shared/formats.js';
import { PRESERVING_QUALITY } from '../shared/options.js';

export function cleanImageMetadata(inputs: readonly PluginInput[], ctx: RunContext): Promise<FileResult> {
  const input = singleInput(inputs);
  const to = input.format;
  // sharp writes no metadata unless asked to (keepMetadata/withExif), and openImage auto-orients.
  return processImage(input, ctx, { to, animated: keepsAnimation(to, to), encode: { quality: PRESERVING_QUALITY } });
}
