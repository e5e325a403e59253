/**
 * transcribe: speech to text for audio and video files. One row per file:
 * { language, duration, text, segments: [{ start, end, text }] }, times in seconds (run.ts says
 * how the engine is chosen).
 */
import { definePlugin } from '../../../core/contract/index.js';
import { MEDIA_INPUTS, transcribeRowSchema, type FormatId } from '../../../schema/index.js';
import { transcribeFamily } from '../shared/family.js';
import { transcribeOptions } from './options.js';

/**
 * Credit weight of a transcription over the spec's class table (audio 3, video 10 per file up to
 * 100 MB): 3x, so a short audio file costs 9 credits and a short video 30. Speech recognition
 * runs for a large fraction of the media's real time, where a conversion takes a small one.
 * This constant is the one place the weight is set.
 */
export const TRANSCRIBE_CREDIT_WEIGHT = 3;

/** Every audio and video format the media family reads. */
export const TRANSCRIBE_INPUTS: readonly FormatId[] = MEDIA_INPUTS;

export const transcribePlugin = definePlugin({
  ...transcribeFamily,
  id: 'transcribe',
  kind: 'extract',
  op: 'transcribe',
  title: 'Transcription',
  inputs: TRANSCRIBE_INPUTS,
  options: transcribeOptions,
  plan: 'business',
  creditWeight: TRANSCRIBE_CREDIT_WEIGHT,
  // The spec's limits: 10 files per request (each up to 2 hours and 2 GB, checked in the run).
  extraction: { maxFiles: 10, row: transcribeRowSchema },
  run: async (inputs, options, ctx) => (await import('./run.js')).transcribe(inputs, options, ctx),
});
