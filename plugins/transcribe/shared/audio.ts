/**
 * The transcription audio pipeline: any audio or video input -> ffprobe (duration, the audio
 * stream) -> ffmpeg -> 16 kHz mono 16-bit PCM WAV in the work dir, the format both speech
 * engines read. ffmpeg streams the conversion, so memory stays flat whatever the length; the
 * WAV on disk is 32 kB per second (230 MB for the 2-hour maximum). Engines that hold their
 * input in memory (whisper.cpp) get it in chunks cut at pauses (planChunks, readChunk).
 */
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import { PluginError, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import {
  PROBE_TIMEOUT_MS,
  durationOf,
  ffmpegFailure,
  probe,
  runFfmpeg,
  type MediaProbe,
} from '../../../core/engines/ffmpeg.js';
import { GB } from '../../../schema/index.js';
import { MAX_TRANSCRIBE_SECONDS } from './family.js';

/** The spec's per-file limits for transcription (the duration is also the work measure's maximum). */
export const MAX_DURATION_SEC = MAX_TRANSCRIBE_SECONDS;
export const MAX_FILE_BYTES = 2 * GB;
export const SAMPLE_RATE = 16_000;

/** Decoding to PCM runs at hundreds of times real time; this is a generous ceiling per media second. */
const CONVERT_MS_PER_SECOND = 250;
const CONVERT_BASE_MS = 30_000;

export interface PreparedAudio {
  /** 16 kHz mono PCM WAV in the work dir. */
  wavPath: string;
  /** Seconds, from the media (container duration, else the audio stream's). */
  durationSec: number;
}

/**
 * ffmpeg's output options for the WAV the recognisers read: what `select` picks (streams,
 * filters, length), downmixed and resampled to 16 kHz mono 16-bit PCM. No metadata and bitexact:
 * a plain 44-byte header, since pocketsphinx reads whatever follows byte 44 as samples (a LIST
 * chunk there skewed its noise estimate and cost words).
 */
function speechWavOptions(select: readonly string[]): string[] {
  return [
    ...select,
    ...['-ac', '1', '-ar', String(SAMPLE_RATE), '-c:a', 'pcm_s16le'],
    ...['-map_metadata', '-1', '-fflags', '+bitexact', '-flags:a', '+bitexact', '-f', 'wav'],
  ];
}

/** Label of a format in messages: "MP4", "WAV". */
const labelOf = (input: PluginInput) => input.format.toUpperCase();

function formatDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.round(seconds % 60);
  return h > 0
    ? `${h} h ${String(m).padStart(2, '0')} min`
    : m > 0
      ? `${m} min ${String(s).padStart(2, '0')} s`
      : `${s} s`;
}

/**
 * Probe and convert one input. Refuses, with a PluginError the client can act on: an empty
 * file, a file over 2 GB, one ffprobe cannot read, one with no audio stream, and media longer
 * than 2 hours. `progress` receives the conversion's 0-100.
 */
export async function prepareAudio(
  input: PluginInput,
  ctx: RunContext,
  progress: (percent: number) => void,
): Promise<PreparedAudio> {
  ctx.signal.throwIfAborted();
  const label = labelOf(input);
  if (input.bytes === 0) throw new PluginError(`The ${label} file is empty (0 bytes)`);
  if (input.bytes > MAX_FILE_BYTES) {
    // Rounded up, so a file just over the limit never reads "2.00 GB".
    throw new PluginError(
      `The file is ${(Math.ceil((input.bytes / GB) * 100) / 100).toFixed(2)} GB; transcription takes files up to ` +
        `${MAX_FILE_BYTES / GB} GB`,
    );
  }
  let media: MediaProbe;
  try {
    media = await probe(input.path, {
      signal: ctx.signal,
      timeoutMs: Math.min(PROBE_TIMEOUT_MS, ctx.remainingMs()),
      format: input.format,
    });
  } catch (err) {
    throw ffmpegFailure(err, ctx.signal, { label, paths: [input.path] });
  }
  const audio = media.streams.find((s) => s.type === 'audio');
  if (!audio) throw new PluginError(`The ${label} file has no audio track, so there is nothing to transcribe`);
  const duration = durationOf(media, 'audio');
  if (duration !== undefined && duration > MAX_DURATION_SEC) {
    throw new PluginError(
      `The recording is ${formatDuration(duration)} long; transcription takes up to ${MAX_DURATION_SEC / 3600} hours ` +
        `per file`,
    );
  }
  if (duration === 0) throw new PluginError(`The ${label} file's audio is empty (0 seconds)`);

  const wavPath = path.join(ctx.workDir, 'speech-16k.wav');
  const timeoutMs = Math.min(
    ctx.remainingMs(),
    CONVERT_BASE_MS + CONVERT_MS_PER_SECOND * (duration ?? MAX_DURATION_SEC),
  );
  try {
    const { stderr } = await runFfmpeg({
      input: input.path,
      inputFormat: input.format,
      output: wavPath,
      // The first audio stream only; `-t` stops a file whose header lied about its length at the 2-hour limit.
      configure: (command) =>
        command.outputOptions(
          speechWavOptions(['-map', `0:${audio.index}`, '-vn', '-sn', '-dn', '-t', String(MAX_DURATION_SEC + 1)]),
        ),
      signal: ctx.signal,
      timeoutMs,
      ...(duration ? { durationSec: duration } : {}),
      onProgress: progress,
    });
    if (/Output file is empty, nothing was encoded/.test(stderr))
      throw new PluginError(`The ${label} file contains no decodable audio`);
  } catch (err) {
    throw ffmpegFailure(err, ctx.signal, { label, paths: [input.path, wavPath], timeoutMs });
  }
  // Media whose length was unknown before decoding: the PCM's own length (32 000 bytes a second).
  let durationSec = duration;
  if (durationSec === undefined) {
    const { size } = await stat(wavPath);
    durationSec = Math.max(0, size - 44) / (SAMPLE_RATE * 2);
    if (durationSec > MAX_DURATION_SEC)
      throw new PluginError(
        `The recording is longer than ${MAX_DURATION_SEC / 3600} hours; transcription takes up to ` +
          `${MAX_DURATION_SEC / 3600} hours per file`,
      );
  }
  return { wavPath, durationSec };
}

// ---------------------------------------------------------------------------------------------
// Chunks: long recordings are recognised piece by piece, cut where it is quietest

/** Where the samples lie in a WAV file ffmpeg wrote (its header may carry a LIST chunk). */
export interface PcmLayout {
  dataOffset: number;
  dataBytes: number;
}

export async function pcmLayout(wavPath: string): Promise<PcmLayout> {
  const file = await open(wavPath, 'r');
  try {
    const { size } = await file.stat();
    const head = Buffer.alloc(12);
    await file.read(head, 0, 12, 0);
    if (head.toString('latin1', 0, 4) !== 'RIFF' || head.toString('latin1', 8, 12) !== 'WAVE')
      throw new Error('not a RIFF WAVE file');
    const chunk = Buffer.alloc(8);
    for (let offset = 12; offset + 8 <= size; ) {
      await file.read(chunk, 0, 8, offset);
      const id = chunk.toString('latin1', 0, 4);
      const length = chunk.readUInt32LE(4);
      if (id === 'data') return { dataOffset: offset + 8, dataBytes: Math.min(length, size - offset - 8) };
      offset += 8 + length + (length % 2);
    }
    throw new Error('WAV file without a data chunk');
  } finally {
    await file.close();
  }
}

export interface AudioChunk {
  /** Seconds from the start of the recording. */
  start: number;
  end: number;
  /** No frame reaches the speech floor: nothing to recognise (whisper invents text on silence). */
  silent: boolean;
}

export interface ChunkPlanOptions {
  /** Longest chunk; whisper reads 30-second windows. */
  maxSeconds: number;
  /** A cut is never placed earlier than this into a chunk. */
  minSeconds: number;
}

const FRAME_SAMPLES = 320; // 20 ms
const FRAME_SECONDS = FRAME_SAMPLES / SAMPLE_RATE;
/** A cut is placed in the quietest 0.3 s of the search range (a pause between words). */
const PAUSE_FRAMES = 15;
/** A cut may move later than the quietest pause to one at most this much louder. */
const CUT_TOLERANCE_DB = 3;
/** Frames quieter than this are silence (dBFS): room noise, not speech. */
const SPEECH_FLOOR_DB = -50;

/** Every sample of the PCM (-1..1), read once as a stream, 1 MB at a time. */
async function forEachSample(
  wavPath: string,
  layout: PcmLayout,
  signal: AbortSignal | undefined,
  onSample: (sample: number) => void,
): Promise<void> {
  let carry: Buffer | undefined;
  const stream = createReadStream(wavPath, {
    start: layout.dataOffset,
    end: layout.dataOffset + layout.dataBytes - 1,
    highWaterMark: 1 << 20,
    ...(signal ? { signal } : {}),
  });
  for await (const raw of stream as AsyncIterable<Buffer>) {
    const data: Buffer = carry ? Buffer.concat([carry, raw]) : raw;
    const whole = data.length - (data.length % 2);
    carry = whole < data.length ? data.subarray(whole) : undefined;
    for (let i = 0; i < whole; i += 2) onSample(data.readInt16LE(i) / 32768);
  }
}

/** The level of every 20 ms frame (dBFS), read once as a stream: 180 kB an hour in memory. */
export async function frameEnergies(wavPath: string, layout: PcmLayout, signal?: AbortSignal): Promise<Float32Array> {
  const frameCount = Math.ceil(layout.dataBytes / 2 / FRAME_SAMPLES);
  const energy = new Float32Array(frameCount); // dBFS per frame
  let frame = 0;
  let sum = 0;
  let inFrame = 0;
  await forEachSample(wavPath, layout, signal, (sample) => {
    sum += sample * sample;
    if (++inFrame === FRAME_SAMPLES) {
      energy[frame++] = 10 * Math.log10(sum / FRAME_SAMPLES + 1e-10);
      sum = 0;
      inFrame = 0;
    }
  });
  if (inFrame > 0) energy[frame++] = 10 * Math.log10(sum / inFrame + 1e-10);

  return energy.subarray(0, frame);
}

/** The 10th percentile of the frame levels: the floor the recording never goes below for long. */
export function noiseFloorDb(energy: Float32Array): number {
  if (!energy.length) return -100;
  const sorted = Float32Array.from(energy).sort();
  return sorted[Math.floor(sorted.length * 0.1)]!;
}

/**
 * Above this floor (dBFS) a recording carries steady noise (room, tape, crowd); synthetic speech sits at digital
 * silence (-100).
 */
export const NOISY_FLOOR_DB = -70;

/**
 * Frames quieter than one least significant bit of 16-bit PCM (-90.3 dBFS RMS): only samples that
 * are mostly exact zeros get there. A microphone's analogue noise never does; speech synthesisers
 * (espeak-ng, flite) pause in such silence, and pad their output with it.
 */
const DIGITAL_SILENCE_DB = -90;
/** Share of frames at digital silence that marks synthetic (or digitally gated) audio. */
const DIGITAL_SILENCE_SHARE = 0.01;

/** Whether at least 1% of the frames are digital silence (see DIGITAL_SILENCE_DB). */
export function hasDigitalSilence(energy: Float32Array): boolean {
  let silent = 0;
  for (const level of energy) if (level < DIGITAL_SILENCE_DB) silent++;
  return energy.length > 0 && silent >= Math.max(1, energy.length * DIGITAL_SILENCE_SHARE);
}

// ---------------------------------------------------------------------------------------------
// Band-limited audio: an 8 kHz source (telephone audio, an 8 kHz voice such as flite kal) upsampled
// to 16 kHz holds nothing above 4 kHz

/** Spectral blocks: 32 ms at 16 kHz, a power of two for the FFT. */
const BLOCK_SAMPLES = 512;
const HZ_PER_BIN = SAMPLE_RATE / BLOCK_SAMPLES;
/**
 * The band an 8 kHz source carries (above its low rumble), and the band above it that it cannot
 * carry, clear of the resampler's transition (an 8 kHz source resampled by ffmpeg still leaks up to
 * about 4.4 kHz).
 */
const SPEECH_BAND_HZ = [300, 3600] as const;
const HIGH_BAND_HZ = [4500, 7800] as const;
/**
 * Band-limited when the high band holds less than this (dB) of the speech band's energy over the
 * blocks with sound: full-band speech puts -13 to -32 dB there (fricatives, sibilants, breath;
 * LibriVox, flite rms/slt/awb, espeak-ng), an 8 kHz source upsampled to 16 kHz only the dither and
 * resampler leakage, -62 to -72 dB (flite kal, LibriVox through 8 kHz).
 */
const BAND_LIMITED_DB = -50;

/** Hann window and the FFT's twiddle factors for BLOCK_SAMPLES, computed once. */
const HANN = Float64Array.from(
  { length: BLOCK_SAMPLES },
  (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / BLOCK_SAMPLES),
);
const COS = Float64Array.from({ length: BLOCK_SAMPLES / 2 }, (_, i) => Math.cos((-2 * Math.PI * i) / BLOCK_SAMPLES));
const SIN = Float64Array.from({ length: BLOCK_SAMPLES / 2 }, (_, i) => Math.sin((-2 * Math.PI * i) / BLOCK_SAMPLES));

/** In-place iterative radix-2 FFT of BLOCK_SAMPLES complex values. */
function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j]!, re[i]!];
      [im[i], im[j]] = [im[j]!, im[i]!];
    }
  }
  for (let size = 2; size <= n; size <<= 1) {
    const step = n / size;
    for (let start = 0; start < n; start += size) {
      for (let k = 0; k < size / 2; k++) {
        const a = start + k;
        const b = a + size / 2;
        const wr = COS[k * step]!;
        const wi = SIN[k * step]!;
        const tr = re[b]! * wr - im[b]! * wi;
        const ti = re[b]! * wi + im[b]! * wr;
        re[b] = re[a]! - tr;
        im[b] = im[a]! - ti;
        re[a] = re[a]! + tr;
        im[a] = im[a]! + ti;
      }
    }
  }
}

/**
 * The energy at 4.5-7.8 kHz (HIGH_BAND_HZ) against the speech band's (300-3600 Hz), in dB, summed over the 32 ms
 * blocks with sound (above SPEECH_FLOOR_DB); read once as a stream. Undefined when no block has sound.
 */
export async function highBandLevelDb(
  wavPath: string,
  layout: PcmLayout,
  signal?: AbortSignal,
): Promise<number | undefined> {
  const re = new Float64Array(BLOCK_SAMPLES);
  const im = new Float64Array(BLOCK_SAMPLES);
  const block = new Float64Array(BLOCK_SAMPLES);
  let filled = 0;
  let speech = 0;
  let high = 0;
  const analyse = () => {
    let power = 0;
    for (const sample of block) power += sample * sample;
    if (10 * Math.log10(power / BLOCK_SAMPLES + 1e-10) < SPEECH_FLOOR_DB) return;
    for (let i = 0; i < BLOCK_SAMPLES; i++) {
      re[i] = block[i]! * HANN[i]!;
      im[i] = 0;
    }
    fft(re, im);
    for (let bin = 1; bin < BLOCK_SAMPLES / 2; bin++) {
      const hz = bin * HZ_PER_BIN;
      const binPower = re[bin]! * re[bin]! + im[bin]! * im[bin]!;
      if (hz >= SPEECH_BAND_HZ[0] && hz <= SPEECH_BAND_HZ[1]) speech += binPower;
      else if (hz >= HIGH_BAND_HZ[0] && hz <= HIGH_BAND_HZ[1]) high += binPower;
    }
  };
  await forEachSample(wavPath, layout, signal, (sample) => {
    block[filled++] = sample;
    if (filled === BLOCK_SAMPLES) {
      analyse();
      filled = 0;
    }
  });
  return speech > 0 ? 10 * Math.log10(high / speech + 1e-12) : undefined;
}

/** Whether the audio carries nothing above 4 kHz (see BAND_LIMITED_DB). */
export const isBandLimited = (highBandDb: number | undefined) =>
  highBandDb !== undefined && highBandDb < BAND_LIMITED_DB;

/**
 * The WAV a recogniser reads, whether it pauses in digital silence (synthetic speech), and whether
 * it is band-limited (nothing above 4 kHz).
 */
export interface CleanedAudio extends PreparedAudio {
  digitalSilence: boolean;
  bandLimited: boolean;
}

/**
 * The WAV through ffmpeg `filters` (16 kHz mono PCM again, same length, so times are kept) when
 * its noise floor is above NOISY_FLOOR_DB and it has no digital silence; else the WAV itself,
 * marked when it pauses in digital silence. Real recordings here sit at -47 to -30 dBFS, espeak-ng
 * and flite at -100; espeak-ng reading a long text without full stops pauses too little to bring
 * its 10th percentile down, but its padding is still digital silence.
 */
export async function cleanedForRecognition(
  audio: PreparedAudio,
  filters: readonly string[],
  ctx: RunContext,
): Promise<CleanedAudio> {
  const layout = await pcmLayout(audio.wavPath);
  const energy = await frameEnergies(audio.wavPath, layout, ctx.signal);
  const digitalSilence = hasDigitalSilence(energy);
  const bandLimited = isBandLimited(await highBandLevelDb(audio.wavPath, layout, ctx.signal));
  if (digitalSilence || noiseFloorDb(energy) <= NOISY_FLOOR_DB || !filters.length)
    return { ...audio, digitalSilence, bandLimited };
  const wavPath = path.join(ctx.workDir, 'speech-16k-denoised.wav');
  const timeoutMs = Math.min(ctx.remainingMs(), CONVERT_BASE_MS + CONVERT_MS_PER_SECOND * audio.durationSec);
  try {
    await runFfmpeg({
      input: audio.wavPath,
      output: wavPath,
      configure: (command) => command.outputOptions(speechWavOptions(['-af', filters.join(',')])),
      signal: ctx.signal,
      timeoutMs,
    });
  } catch (err) {
    throw ffmpegFailure(err, ctx.signal, { label: 'WAV', paths: [audio.wavPath, wavPath], timeoutMs });
  }
  return { wavPath, durationSec: audio.durationSec, digitalSilence: false, bandLimited };
}

/**
 * Plan the chunks of a 16 kHz mono PCM WAV: read it once as a stream (memory: one 20 ms energy
 * value per frame, 180 kB an hour), then cut each chunk at the quietest 0.3 s between `minSeconds`
 * and `maxSeconds` from its start, so a cut falls in a pause, not mid-word.
 */
export async function planChunks(
  wavPath: string,
  layout: PcmLayout,
  { maxSeconds, minSeconds }: ChunkPlanOptions,
  signal?: AbortSignal,
): Promise<AudioChunk[]> {
  const energy = await frameEnergies(wavPath, layout, signal);
  const frame = energy.length;
  const totalSeconds = layout.dataBytes / 2 / SAMPLE_RATE;
  const chunks: AudioChunk[] = [];
  let startFrame = 0;
  while (startFrame < frame) {
    let endFrame = frame;
    if ((frame - startFrame) * FRAME_SECONDS > maxSeconds) {
      // The run of PAUSE_FRAMES frames in [start + min, start + max] that is quietest, or the
      // latest one within 3 dB of it: long chunks mean fewer 30 s windows for whisper to encode.
      const from = startFrame + Math.floor(minSeconds / FRAME_SECONDS);
      const to = startFrame + Math.floor(maxSeconds / FRAME_SECONDS) - PAUSE_FRAMES;
      const levels = new Float64Array(Math.max(0, to - from + 1));
      let level = 0;
      for (let i = from; i < from + PAUSE_FRAMES; i++) level += energy[i]!;
      for (let i = from; i <= to; i++) {
        levels[i - from] = level / PAUSE_FRAMES;
        level += energy[i + PAUSE_FRAMES]! - energy[i]!;
      }
      const quietest = levels.reduce((min, value) => Math.min(min, value), Infinity);
      let best = to;
      while (best > from && levels[best - from]! > quietest + CUT_TOLERANCE_DB) best--;
      endFrame = best + Math.floor(PAUSE_FRAMES / 2);
    }
    let loudest = -Infinity;
    for (let i = startFrame; i < endFrame; i++) loudest = Math.max(loudest, energy[i]!);
    chunks.push({
      start: startFrame * FRAME_SECONDS,
      end: Math.min(endFrame * FRAME_SECONDS, totalSeconds),
      silent: loudest < SPEECH_FLOOR_DB,
    });
    startFrame = endFrame;
  }
  return chunks;
}

/** The PCM samples of `chunk` (16-bit little-endian), read from disk: one chunk in memory at a time. */
export async function readChunk(
  wavPath: string,
  layout: PcmLayout,
  chunk: Pick<AudioChunk, 'start' | 'end'>,
): Promise<Buffer> {
  const first = Math.round(chunk.start * SAMPLE_RATE) * 2;
  const last = Math.min(Math.round(chunk.end * SAMPLE_RATE) * 2, layout.dataBytes);
  const buffer = Buffer.alloc(Math.max(0, last - first));
  const file = await open(wavPath, 'r');
  try {
    await file.read(buffer, 0, buffer.length, layout.dataOffset + first);
  } finally {
    await file.close();
  }
  return buffer;
}
