import { definePlugin } from '../../../core/contract/index.js';
import { AUDIO_WRITABLE } from '../shared/encoders.js';
import { mediaFamily, mediaLimits } from '../shared/family.js';
import { normalizeAudioOptions } from './options.js';

export const normalizeAudioPlugin = definePlugin({
  ...mediaFamily,
  id: 'normalize-audio',
  kind: 'tool',
  op: 'normalize-audio',
  title: 'Normalise loudness to -16 LUFS (EBU R128)',
  // Every audio input this server can write back in its own format (not AMR: no encoder).
  inputs: AUDIO_WRITABLE,
  options: normalizeAudioOptions,
  plan: 'pro',
  limits: mediaLimits(20, 2),
  run: async (inputs, _options, ctx) => (await import('./run.js')).normalizeAudio(inputs, ctx),
});
