/**
 * Audio conversion to every audio target (ctx.target). Every audio input converts to every
 * target; the main video containers do too, which extracts their audio track.
 */
import { definePlugin } from '../../../core/contract/index.js';
import { AUDIO_INPUTS, AUDIO_TARGETS, MAIN_VIDEO_FORMATS, isAudioTarget } from '../shared/formats.js';
import { MEDIA_ENGINES, mediaLimits } from '../shared/media.js';
import { audioConvertOptions } from './options.js';
import { convertAudio } from './run.js';

export const audioConvertPlugin = definePlugin({
  id: 'audio-convert',
  kind: 'convert',
  title: 'Audio conversion',
  inputs: [...AUDIO_INPUTS, ...MAIN_VIDEO_FORMATS],
  outputs: AUDIO_TARGETS,
  options: audioConvertOptions,
  plan: 'free',
  // What it links: fluent-ffmpeg (MIT); ffmpeg itself is declared by its engine.
  licenses: ['MIT'],
  engines: MEDIA_ENGINES,
  limits: mediaLimits(10, 2),
  run(inputs, _options, ctx) {
    // The registry routes only the listed outputs here.
    if (!isAudioTarget(ctx.target)) throw new Error(`audio-convert cannot produce ${ctx.target}`);
    return convertAudio(inputs, ctx, ctx.target);
  },
});
