/**
 * What every media plugin does around its ffmpeg command: probe and validate the input, turn
 * bad input into a PluginError a client can act on, give ffmpeg a deadline that scales with the
 * media's duration, report progress, and pick the output path.
 */
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { PluginError, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import {
  PROBE_TIMEOUT_MS,
  ffmpegFailure,
  probe,
  runFfmpeg,
  type MediaProbe,
  type MediaStream,
} from '../../../core/engines/ffmpeg.js';
import { FORMATS, type FormatId } from '../../../schema/index.js';
import type { Configure } from './encoders.js';
import { DEADLINE_BASE_MS, acceptedProbe, readHeaders, type ProbeNeeds } from './family.js';

/** Frames larger than 8K on either side are refused: nothing legitimate needs them, and they exhaust memory. */
export const MAX_FRAME_SIDE = 8192;

/**
 * Seconds of work one second of media may take, on top of DEADLINE_BASE_MS. Generous on a
 * 2-core machine: x264 veryfast runs 720p at about 4x real time, audio encoders at 100x and more.
 */
export const WORK_RATE = { streamCopy: 0.1, audio: 0.5, video: 3 } as const;
const HD_PIXELS = 1280 * 720;

/** Video work scales with frame area above 720p (1080p costs 2.25x, 4K 9x). */
export function videoWorkRate(media: MediaProbe, perHdSecond: number = WORK_RATE.video): number {
  const video = mainVideoStream(media);
  return perHdSecond * Math.max(1, ((video?.width ?? 0) * (video?.height ?? 0)) / HD_PIXELS);
}

export function firstAudioStream(media: MediaProbe): MediaStream | undefined {
  return media.streams.find((s) => s.type === 'audio');
}

/** The main video stream: cover art is stored as a video stream too, and is not it. */
export function mainVideoStream(media: MediaProbe): MediaStream | undefined {
  return media.streams.find((s) => s.type === 'video' && !s.attachedPicture);
}

/** `-map` arguments selecting the streams that pass `keep`, in their original order. */
export function mapStreams(media: MediaProbe, keep: (stream: MediaStream) => boolean): string[] {
  return media.streams.filter(keep).flatMap((stream) => ['-map', `0:${stream.index}`]);
}

/** Formats that hold cover art (an attached picture), which re-encoding ops then keep by copying. */
const COVER_ART_FORMATS: ReadonlySet<FormatId> = new Set(['mp3', 'flac', 'm4a', 'm4b']);

/** Arguments that carry the input's cover art over to `format` untouched, when it can hold one. */
export function keepCoverArt(media: MediaProbe, format: FormatId): string[] {
  if (!COVER_ART_FORMATS.has(format)) return [];
  const maps = mapStreams(media, (s) => s.attachedPicture);
  return maps.length ? [...maps, '-c:v', 'copy'] : [];
}

export interface FfmpegStep {
  output: string;
  configure: Configure;
  /** Length of this step's output in seconds (default: the input's duration). */
  durationSec?: number;
  /** The part of the job's 0-100 progress this step fills (default: all of it). */
  progressSpan?: readonly [number, number];
}

/** One input file, probed and validated, with the deadline its run must keep. */
export class MediaRun {
  private readonly deadline: number;

  private constructor(
    private readonly input: PluginInput,
    private readonly ctx: RunContext,
    readonly media: MediaProbe,
    workRate: number,
  ) {
    const duration = media.durationSec;
    const ownBudget = duration === undefined ? Infinity : DEADLINE_BASE_MS + workRate * duration * 1000;
    this.deadline = Date.now() + Math.min(ownBudget, ctx.remainingMs());
  }

  /**
   * Probe the input and refuse what cannot be media: empty, unreadable, no audio or video
   * stream, zero duration, absurd frame size. `workRate` sets the deadline (see WORK_RATE). `needs` says what the
   * run reads of the probe: a `layout` run takes the file's headers as read in-process (acceptance's, else read now),
   * a `codecs` run ffprobe's answer.
   */
  static async open(
    input: PluginInput,
    ctx: RunContext,
    workRate: number | ((media: MediaProbe) => number),
    { needs }: { needs: ProbeNeeds },
  ): Promise<MediaRun> {
    const label = input.format.toUpperCase();
    if (input.bytes === 0) throw new PluginError(`The ${label} file is empty (0 bytes)`);
    // What acceptance read when this process accepted the job: the same file read the same way.
    let media: MediaProbe | undefined = acceptedProbe(input, needs);
    if (!media && needs === 'layout') media = await readHeaders(input);
    try {
      media ??= await probe(input.path, {
        signal: ctx.signal,
        timeoutMs: Math.min(PROBE_TIMEOUT_MS, ctx.remainingMs()),
        format: input.format,
      });
    } catch (err) {
      throw ffmpegFailure(err, ctx.signal, { label, paths: [input.path] });
    }
    const video = mainVideoStream(media);
    if ((!video && !firstAudioStream(media)) || media.durationSec === 0) {
      throw new PluginError(`The ${label} file contains no audio or video; it may be empty or truncated`);
    }
    if (video) {
      const { width = 0, height = 0 } = video;
      if (!(width > 0 && height > 0)) throw new PluginError(`The ${label} file's video has no valid frame size`);
      if (width > MAX_FRAME_SIDE || height > MAX_FRAME_SIDE) {
        throw new PluginError(
          `The video is ${width}x${height} pixels; frames up to ${MAX_FRAME_SIDE}x${MAX_FRAME_SIDE} are supported`,
        );
      }
    }
    return new MediaRun(input, ctx, media, typeof workRate === 'function' ? workRate(media) : workRate);
  }

  get label(): string {
    return this.input.format.toUpperCase();
  }

  get durationSec(): number | undefined {
    return this.media.durationSec;
  }

  audioStream(): MediaStream {
    const stream = firstAudioStream(this.media);
    if (!stream) throw new PluginError(`The ${this.label} file has no audio track`);
    return stream;
  }

  videoStream(): MediaStream {
    const stream = mainVideoStream(this.media);
    if (!stream) throw new PluginError(`The ${this.label} file has no video track`);
    return stream;
  }

  /** A fresh path in the work dir named after the client's file, with `format`'s extension. */
  async outputPath(format: FormatId): Promise<string> {
    // A directory of its own: the input may sit in the work dir under the very same name.
    const dir = await mkdtemp(path.join(this.ctx.workDir, 'media-'));
    const stem = path.parse(this.input.filename).name || 'output';
    return path.join(dir, `${stem}.${FORMATS[format].extension}`);
  }

  /** Run one ffmpeg command on the input; returns ffmpeg's stderr tail (for analysis passes). */
  async ffmpeg({
    output,
    configure,
    durationSec = this.durationSec,
    progressSpan = [0, 100],
  }: FfmpegStep): Promise<string> {
    const [from, to] = progressSpan;
    const timeoutMs = Math.max(0, Math.min(this.deadline - Date.now(), this.ctx.remainingMs()));
    try {
      const { stderr } = await runFfmpeg({
        input: this.input.path,
        inputFormat: this.input.format,
        output,
        configure,
        signal: this.ctx.signal,
        timeoutMs,
        ...(durationSec ? { durationSec } : {}),
        onProgress: (percent) => this.ctx.progress(Math.floor(from + ((to - from) * percent) / 100)),
      });
      // ffmpeg exits 0 when every frame failed to decode or fell outside the cut.
      if (/Output file is empty, nothing was encoded/.test(stderr)) {
        throw new PluginError(`The ${this.label} file contains no decodable audio or video`);
      }
      return stderr;
    } catch (err) {
      throw ffmpegFailure(err, this.ctx.signal, { label: this.label, paths: [this.input.path, output], timeoutMs });
    }
  }
}
