/**
 * subtitle-convert: SubRip (SRT) <-> WebVTT. Cues keep their times and text; SRT output is
 * numbered from 1; VTT output starts with the WEBVTT header and keeps cue identifiers. Going to
 * SRT drops VTT cue settings, NOTE/STYLE/REGION blocks and VTT-only tags (voice, class, ruby,
 * timestamps), keeping <b>, <i> and <u>.
 */
import { z } from 'zod';
import { definePlugin } from '../../../core/contract/index.js';
import { dataFamily } from '../shared/family.js';

export const subtitleConvertPlugin = definePlugin({
  ...dataFamily,
  id: 'subtitle-convert',
  kind: 'convert',
  title: 'Subtitle conversion (SRT, VTT)',
  inputs: ['srt', 'vtt'],
  outputs: ['vtt', 'srt'],
  options: z.object({}),
  plan: 'free',
  run: async (inputs, _options, ctx) => (await import('./run.js')).convertSubtitles(inputs, ctx),
});
