/**
 * The transcription audio pipeline: any audio or video input -> ffprobe (duration, the audio
 * stream) -> ffmpeg -> 16 kHz mono 16-bit PCM WAV in the work dir, the format both speech
 * engines read. ffmpeg streams the conversion, so memory stays flat whatever the length; the
 * WAV on disk is 32 kB per second (230 MB for the 2-hour maximum).
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { PluginError, type PluginInput, type RunContext } from '../../core/contract/index.js';
import { ffmpegFailure, probe, runFfmpeg, type MediaProbe } from '../../core/engines/ffmpeg.js';
import { GB } from '../../schema/index.js';

/** The spec's per-file limits for transcription. */
export const MAX_DURATION_SEC = 2 * 3600;
export const MAX_FILE_BYTES = 2 * GB;
export const SAMPLE_RATE = 16_000;

const PROBE_TIMEOUT_MS = 30_000;
/** Decoding to PCM runs at hundreds of times real time; this is a generous ceiling per media second. */
const CONVERT_MS_PER_SECOND = 250;
const CONVERT_BASE_MS = 30_000;

export interface PreparedAudio {
  /** 16 kHz mono PCM WAV in the work dir. */
  wavPath: string;
  /** Seconds, from the media (container duration, else the audio stream's). */
  durationSec: number;
}

/** Label of a format in messages: "MP4", "WAV". */
const labelOf = (input: PluginInput) => input.format.toUpperCase();

function formatDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.round(seconds % 60);
  return h > 0 ? `${h} h ${String(m).padStart(2, '0')} min` : m > 0 ? `${m} min ${String(s).padStart(2, '0')} s` : `${s} s`;
}

/** The duration to report: the audio stream's own when known, else the container's. */
export function audioDuration(media: MediaProbe): number | undefined {
  const audio = media.streams.find((s) => s.type === 'audio');
  return audio?.durationSec ?? media.durationSec;
}

/**
 * Probe and convert one input. Refuses, with a PluginError the client can act on: an empty
 * file, a file over 2 GB, one ffprobe cannot read, one with no audio stream, and media longer
 * than 2 hours. `progress` receives the conversion's 0-100.
 */
export async function prepareAudio(input: PluginInput, ctx: RunContext, progress: (percent: number) => void): Promise<PreparedAudio> {
  ctx.signal.throwIfAborted();
  const label = labelOf(input);
  if (input.bytes === 0) throw new PluginError(`The ${label} file is empty (0 bytes)`);
  if (input.bytes > MAX_FILE_BYTES) {
    // Rounded up, so a file just over the limit never reads "2.00 GB".
    throw new PluginError(`The file is ${(Math.ceil((input.bytes / GB) * 100) / 100).toFixed(2)} GB; transcription takes files up to ${MAX_FILE_BYTES / GB} GB`);
  }
  let media: MediaProbe;
  try {
    media = await probe(input.path, { signal: ctx.signal, timeoutMs: Math.min(PROBE_TIMEOUT_MS, ctx.remainingMs()) });
  } catch (err) {
    throw ffmpegFailure(err, ctx.signal, { label, paths: [input.path] });
  }
  const audio = media.streams.find((s) => s.type === 'audio');
  if (!audio) throw new PluginError(`The ${label} file has no audio track, so there is nothing to transcribe`);
  const duration = audioDuration(media);
  if (duration !== undefined && duration > MAX_DURATION_SEC) {
    throw new PluginError(`The recording is ${formatDuration(duration)} long; transcription takes up to ${MAX_DURATION_SEC / 3600} hours per file`);
  }
  if (duration === 0) throw new PluginError(`The ${label} file's audio is empty (0 seconds)`);

  const wavPath = path.join(ctx.workDir, 'speech-16k.wav');
  const timeoutMs = Math.min(ctx.remainingMs(), CONVERT_BASE_MS + CONVERT_MS_PER_SECOND * (duration ?? MAX_DURATION_SEC));
  try {
    const { stderr } = await runFfmpeg({
      input: input.path,
      output: wavPath,
      // The first audio stream only, downmixed and resampled for the recognisers; `-t` stops a
      // file whose header lied about its length at the 2-hour limit.
      configure: (command) =>
        command.outputOptions('-map', `0:${audio.index}`, '-vn', '-sn', '-dn', '-ac', '1', '-ar', String(SAMPLE_RATE), '-c:a', 'pcm_s16le', '-t', String(MAX_DURATION_SEC + 1), '-f', 'wav'),
      signal: ctx.signal,
      timeoutMs,
      ...(duration ? { durationSec: duration } : {}),
      onProgress: progress,
    });
    if (/Output file is empty, nothing was encoded/.test(stderr)) throw new PluginError(`The ${label} file contains no decodable audio`);
  } catch (err) {
    throw ffmpegFailure(err, ctx.signal, { label, paths: [input.path, wavPath], timeoutMs });
  }
  // Media whose length was unknown before decoding: the PCM's own length (32 000 bytes a second).
  let durationSec = duration;
  if (durationSec === undefined) {
    const { size } = await stat(wavPath);
    durationSec = Math.max(0, size - 44) / (SAMPLE_RATE * 2);
    if (durationSec > MAX_DURATION_SEC) throw new PluginError(`The recording is longer than ${MAX_DURATION_SEC / 3600} hours; transcription takes up to ${MAX_DURATION_SEC / 3600} hours per file`);
  }
  return { wavPath, durationSec };
}
