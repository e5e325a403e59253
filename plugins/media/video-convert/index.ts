/**
 * Video conversions, one plugin per target (a run learns its output format only from its own
 * manifest). The legacy and broadcast containers convert to MP4/MOV/AVI/WEBM only (spec).
 */
import { definePlugin, type Plugin } from '../../../core/contract/index.js';
import type { FormatId } from '../../../schema/index.js';
import { LEGACY_VIDEO_FORMATS, MAIN_VIDEO_FORMATS, VIDEO_INPUTS, VIDEO_TARGETS, type VideoTarget } from '../shared/formats.js';
import { MEDIA_ENGINES, mediaLimits } from '../shared/media.js';
import { videoConvertOptions } from './options.js';
import { convertVideo } from './run.js';

const TITLES: Record<VideoTarget, string> = {
  mp4: 'Video to MP4',
  mov: 'Video to MOV',
  avi: 'Video to AVI',
  webm: 'Video to WEBM',
  gif: 'Video to animated GIF',
  prores: 'Video to ProRes 422 HQ (.mov)',
  dnxhr: 'Video to DNxHR HQ (.mov)',
};

/** Whether `from` may become `to`: legacy containers reach only the main four. */
export function supportsVideoConversion(from: FormatId, to: FormatId): boolean {
  return (MAIN_VIDEO_FORMATS as readonly FormatId[]).includes(to) || !(LEGACY_VIDEO_FORMATS as readonly FormatId[]).includes(from);
}

export function videoConvertPlugin(to: VideoTarget): Plugin {
  return definePlugin({
    id: `video-to-${to}`,
    kind: 'convert',
    title: TITLES[to],
    // Listed exactly, so format listings do not offer what `supports` refuses.
    inputs: VIDEO_INPUTS.filter((from) => supportsVideoConversion(from, to)),
    outputs: [to],
    supports: supportsVideoConversion,
    options: videoConvertOptions,
    plan: 'free',
    engines: MEDIA_ENGINES,
    // Encoders use every core: one video run at a time per worker.
    limits: mediaLimits(30, 1),
    run: (inputs, _options, ctx) => convertVideo(inputs, ctx, to),
  });
}

export const videoConvertPlugins: Plugin[] = VIDEO_TARGETS.map(videoConvertPlugin);
