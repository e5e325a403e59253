/**
 * How long a recording is, read by ffprobe from its headers (never decoded): the transcription
 * work measure (issue 27) and the run's own duration. Light: the manifest's family imports it.
 */
import type { PluginInput } from '../../../core/contract/index.js';
import { probe, type MediaProbe } from '../../../core/engines/ffmpeg.js';

/** The spec's per-file limit, and so the work one job (one file) may carry: 2 hours of media. */
export const MAX_TRANSCRIBE_SECONDS = 2 * 3600;
/** ffprobe's deadline for one file, at acceptance and in the run. */
export const PROBE_TIMEOUT_MS = 30_000;

/** The duration to report: the audio stream's own when known, else the container's. */
export function audioDuration(media: MediaProbe): number | undefined {
  const audio = media.streams.find((s) => s.type === 'audio');
  return audio?.durationSec ?? media.durationSec;
}

/** The seconds of speech in one input; undefined when the headers do not tell (the run then judges the file). */
export async function speechSeconds(
  input: Pick<PluginInput, 'path'>,
  { signal, timeoutMs }: { signal: AbortSignal; timeoutMs: number },
): Promise<number | undefined> {
  return audioDuration(await probe(input.path, { signal, timeoutMs: Math.min(timeoutMs, PROBE_TIMEOUT_MS) }));
}
