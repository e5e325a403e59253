import { definePlugin } from '../../../core/contract/index.js';
import { AUDIO_WRITABLE } from '../shared/encoders.js';
import { MEDIA_ENGINES, mediaLimits } from '../shared/media.js';
import { normalizeAudioOptions } from './options.js';
import { normalizeAudio } from './run.js';

export const normalizeAudioPlugin = definePlugin({
  id: 'normalize-audio',
  kind: 'tool',
  op: 'normalize-audio',
  title: 'Normalise loudness to -16 LUFS (EBU R128)',
  // Every audio input this server can write back in its own format (not AMR: no encoder).
  inputs: AUDIO_WRITABLE,
  options: normalizeAudioOptions,
  plan: 'pro',
  // What it links: fluent-ffmpeg (MIT); ffmpeg itself is declared by its engine.
  licenses: ['MIT'],
  engines: MEDIA_ENGINES,
  limits: mediaLimits(20, 2),
  run: (inputs, _options, ctx) => normalizeAudio(inputs, ctx),
});
