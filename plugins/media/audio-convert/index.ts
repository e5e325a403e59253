/**
 * Audio conversion to every audio target (ctx.target). Every audio input converts to every
 * target; the main video containers do too, which extracts their audio track.
 */
import { definePlugin } from '../../../core/contract/index.js';
import { AUDIO_INPUTS, AUDIO_TARGETS, MAIN_VIDEO_FORMATS, isAudioTarget } from '../shared/formats.js';
import { mediaFamily, mediaLimits } from '../shared/family.js';
import { audioConvertOptions } from './options.js';

export const audioConvertPlugin = definePlugin({
  ...mediaFamily,
  id: 'audio-convert',
  kind: 'convert',
  title: 'Audio conversion',
  inputs: [...AUDIO_INPUTS, ...MAIN_VIDEO_FORMATS],
  outputs: AUDIO_TARGETS,
  options: audioConvertOptions,
  plan: 'free',
  limits: mediaLimits(10, 2),
  async run(inputs, _options, ctx) {
    // The registry routes only the listed outputs here.
    if (!isAudioTarget(ctx.target)) throw new Error(`audio-convert cannot produce ${ctx.target}`);
    return (await import('./run.js')).convertAudio(inputs, ctx, ctx.target);
  },
});
