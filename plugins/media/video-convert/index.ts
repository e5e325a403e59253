/**
 * Video conversion to every video target (ctx.target). The legacy and broadcast containers
 * convert to MP4/MOV/AVI/WEBM only (spec).
 */
import { definePlugin } from '../../../core/contract/index.js';
import type { FormatId } from '../../../schema/index.js';
import {
  LEGACY_VIDEO_FORMATS,
  MAIN_VIDEO_FORMATS,
  VIDEO_INPUTS,
  VIDEO_TARGETS,
  isVideoTarget,
} from '../shared/formats.js';
import { mediaFamily, mediaLimits } from '../shared/family.js';
import { videoConvertOptions } from './options.js';

/** Whether `from` may become `to`: legacy containers reach only the main four. */
function supportsVideoConversion(from: FormatId, to: FormatId): boolean {
  return (
    (MAIN_VIDEO_FORMATS as readonly FormatId[]).includes(to) ||
    !(LEGACY_VIDEO_FORMATS as readonly FormatId[]).includes(from)
  );
}

export const videoConvertPlugin = definePlugin({
  ...mediaFamily,
  id: 'video-convert',
  kind: 'convert',
  title: 'Video conversion',
  inputs: VIDEO_INPUTS,
  outputs: VIDEO_TARGETS,
  supports: supportsVideoConversion,
  options: videoConvertOptions,
  plan: 'free',
  // Encoders use every core: one video run at a time per worker.
  limits: mediaLimits(30, 1),
  async run(inputs, _options, ctx) {
    // The registry routes only the listed outputs here.
    if (!isVideoTarget(ctx.target)) throw new Error(`video-convert cannot produce ${ctx.target}`);
    return (await import('./run.js')).convertVideo(inputs, ctx, ctx.target);
  },
});
