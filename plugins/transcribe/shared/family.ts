/** What every transcribe plugin declares: the licences of what it links, the engines it runs, its default limits. */
import { scaledTimeout, type Plugin, type PluginInput, type WorkMeasure } from '../../../core/contract/index.js';
import { FFMPEG, FFPROBE, probeDurationSec } from '../../../core/engines/ffmpeg.js';
import { POCKETSPHINX } from '../../../core/engines/pocketsphinx.js';
import { WHISPER_LICENSE } from '../../../core/engines/whisper.js';

/** The spec's per-file limit, and so the work one job (one file) may carry: 2 hours of media. */
export const MAX_TRANSCRIBE_SECONDS = 2 * 3600;

/**
 * Seconds of speech (the audio stream's own duration), probed by ffprobe at acceptance
 * (bounded work), at most the spec's 2 hours; unmeasured when the headers do not tell (the run then
 * judges the file).
 */
export const transcribeWork: WorkMeasure = {
  unit: 'seconds',
  max: MAX_TRANSCRIBE_SECONDS,
  measure: (input, { signal, timeoutMs }) =>
    probeDurationSec(input.path, { signal, timeoutMs, format: input.format, of: 'audio' }),
  readsOnly: true,
};

// pocketsphinx decodes at about 0.3x real time here (7.7 s for 24.7 s of speech), whisper (base)
// nearer real time on a busy core. The size does not give the length (a 2-hour 16 kb/s Opus file
// is 14 MB), so without a measured duration the ceiling is wide: 15 minutes plus 3 minutes per MB.
const bytesTimeoutMs = scaledTimeout({ baseMs: 15 * 60_000, perMbMs: 180_000, maxMs: 6 * 3600_000 });
const MEASURED_BASE_MS = 10 * 60_000;
/** Deadline per measured media second: 1.5x real time (3 h 10 min for the 2-hour maximum). */
const MS_PER_MEDIA_SECOND = 1_500;

/** Ten minutes plus 1.5x the measured duration; the byte-based ceiling when it could not be measured. */
export function transcribeTimeoutMs(inputs: readonly PluginInput[], seconds?: number): number {
  return seconds === undefined ? bytesTimeoutMs(inputs) : MEASURED_BASE_MS + Math.ceil(seconds * MS_PER_MEDIA_SECOND);
}

export const transcribeFamily = {
  // whisper.cpp is linked (a Node addon); ffmpeg and pocketsphinx run as programs and declare their own licences.
  licenses: [WHISPER_LICENSE],
  engines: [FFMPEG, FFPROBE, POCKETSPHINX],
  limits: {
    timeoutMs: transcribeTimeoutMs,
    work: transcribeWork,
    // whisper with ggml-base: its 148 MB of weights, about 250 MB of compute buffers and one
    // 30 s chunk; small (466 MB) fits too, medium and large do not.
    memoryMb: 2048,
    // Recognition takes the cores it is given.
    concurrency: 1,
  },
} satisfies Pick<Plugin, 'licenses' | 'engines' | 'limits'>;
