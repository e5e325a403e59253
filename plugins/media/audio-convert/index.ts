/**
 * Audio conversions, one plugin per target (a run learns its output format only from its own
 * manifest). Every audio input converts to every target; the main video containers do too, which
 * extracts their audio track.
 */
import { definePlugin, type Plugin } from '../../../core/contract/index.js';
import { AUDIO_INPUTS, AUDIO_TARGETS, MAIN_VIDEO_FORMATS, type AudioTarget } from '../shared/formats.js';
import { MEDIA_ENGINES, mediaLimits } from '../shared/media.js';
import { audioConvertOptions } from './options.js';
import { convertAudio } from './run.js';

export function audioConvertPlugin(to: AudioTarget): Plugin {
  return definePlugin({
    id: `audio-to-${to}`,
    kind: 'convert',
    title: `Audio to ${to.toUpperCase()}`,
    inputs: [...AUDIO_INPUTS, ...MAIN_VIDEO_FORMATS],
    outputs: [to],
    options: audioConvertOptions,
    plan: 'free',
    engines: MEDIA_ENGINES,
    limits: mediaLimits(10, 2),
    run: (inputs, _options, ctx) => convertAudio(inputs, ctx, to),
  });
}

export const audioConvertPlugins: Plugin[] = AUDIO_TARGETS.map(audioConvertPlugin);
