/**
 * The media engine: every ffmpeg and ffprobe run of the service goes through this module.
 *
 * ffmpeg commands are built with fluent-ffmpeg (the project's choice) and run here with a
 * timeout and an AbortSignal. A run leads its own process group, which is killed whole: confined, the process is
 * bwrap, and a bwrap killed while it sets its jail up leaves the jail's first process waiting for it for ever (that
 * process is still in bwrap's group then, and dies with it). Progress is ffmpeg's `time=` position over the media
 * duration, parsed from stderr lines ourselves: fluent-ffmpeg's own 'progress' event starts an extra ffprobe with no
 * timeout. ffprobe itself runs through runProcess with JSON output, because fluent-ffmpeg's ffprobe()
 * has no abort or timeout and parses the fragile text format.
 */
import path from 'node:path';
import ffmpeg from 'fluent-ffmpeg';
import { z } from 'zod';
import { PluginError, type EngineRequirement } from '../contract/index.js';
import type { FormatId } from '../../schema/index.js';
import { withDetail, withoutServerPaths } from './common.js';
import { resolveCommand } from './paths.js';
import { engineSpawn } from './confine.js';
import { killGroup } from './execution/process-tree.js';
import { EngineError, commandExists, runProcess } from './process.js';

export type FfmpegCommand = ffmpeg.FfmpegCommand;

// Debian builds ffmpeg with its GPL parts (x264, x265).
export const FFMPEG: EngineRequirement = { command: 'ffmpeg', debian: 'ffmpeg', license: 'GPL-2.0-or-later' };
export const FFPROBE: EngineRequirement = { command: 'ffprobe', debian: 'ffmpeg', license: 'GPL-2.0-or-later' };

const STDERR_TAIL_LINES = 100;
/**
 * The input may open local files and pipes only: an HLS or concat playlist hidden in an uploaded
 * "video" cannot make ffmpeg fetch URLs (nested opens inherit the list). Other files it names are
 * outside the jail anyway.
 */
const PROTOCOL_WHITELIST = ['-protocol_whitelist', 'file,pipe'];

/**
 * The demuxers ffmpeg may read each uploaded format with. Left to itself ffmpeg picks the demuxer by probing
 * the content, and it skips an ID3 tag (header and declared footer) before it does: an "MP3" that passed
 * sniffing on its ID3 header can hold an ffconcat or HLS playlist behind the tag, which ffmpeg then follows
 * into other files (and names them in its errors). With one demuxer the input is forced (`-f`); where the
 * format's sniff list admits several containers, the others are refused (`-format_whitelist`).
 */
const DEMUXERS: Partial<Record<FormatId, readonly string[]>> = {
  mp3: ['mp3'],
  mp2: ['mp3'],
  wav: ['wav'],
  ogg: ['ogg'],
  opus: ['ogg'],
  ogv: ['ogg'],
  flac: ['flac'],
  aac: ['aac'],
  aiff: ['aiff'],
  wma: ['asf'],
  wmv: ['asf'],
  amr: ['amr'],
  ac3: ['ac3', 'eac3'],
  mp4: ['mov'],
  mov: ['mov'],
  m4a: ['mov'],
  m4b: ['mov'],
  m4v: ['mov'],
  '3gp': ['mov'],
  prores: ['mov'],
  dnxhr: ['mov'],
  avi: ['avi'],
  webm: ['matroska'],
  mkv: ['matroska'],
  flv: ['flv', 'live_flv'],
  // file-type names MPEG program streams, elementary video and MPEG audio frames alike "mpg"/"mp2".
  mpeg: ['mpeg', 'mpegvideo', 'mp3'],
  vob: ['mpeg', 'mpegvideo', 'mp3'],
  ts: ['mpegts'],
  mts: ['mpegts'],
  m2ts: ['mpegts'],
};

/** The demuxers ffmpeg may read `format` with (none listed: ffmpeg picks by content). */
export function demuxersOf(format: FormatId): readonly string[] {
  return DEMUXERS[format] ?? [];
}

/** ffmpeg/ffprobe input options that read a file as `format` only (none for a format not listed). */
export function demuxerOptions(format: FormatId | undefined): string[] {
  const demuxers = format ? DEMUXERS[format] : undefined;
  if (!demuxers) return [];
  return demuxers.length === 1 ? ['-f', demuxers[0]!] : ['-format_whitelist', demuxers.join(',')];
}

/** fluent-ffmpeg's internals (not typed) that confineRun wraps. */
interface FluentInternals {
  _getArguments(): string[];
  _spawnFfmpeg(args: string[], options: unknown, ...rest: unknown[]): unknown;
  _getFfmpegPath(callback: (err: Error | null, path: string) => void): void;
}

/**
 * The command's one ffmpeg run is spawned in a process group of its own (killRun kills that group), and, when
 * engines are confined (confine.ts), as bwrap with the jail's arguments first. Only that run: fluent-ffmpeg's
 * capability queries (`ffmpeg -encoders`, `-formats`, cached per process, no input) go to ffmpeg itself, and the
 * ffmpeg path stays the real one (fluent-ffmpeg keeps one per process).
 */
function confineRun(command: FfmpegCommand): FfmpegCommand {
  const jailed = engineSpawn(resolveCommand(FFMPEG.command), [], {});
  const internals = command as unknown as FluentInternals;
  const buildArguments = internals._getArguments.bind(command);
  const spawnFfmpeg = internals._spawnFfmpeg.bind(command);
  let runArguments: string[] | undefined;
  internals._getArguments = () => (runArguments = buildArguments());
  internals._spawnFfmpeg = (args, options, ...rest) => {
    if (args !== runArguments) return spawnFfmpeg(args, options, ...rest);
    const spawnOptions = { ...(options as Record<string, unknown>), detached: true };
    if (!jailed.args.length) return spawnFfmpeg(args, spawnOptions, ...rest);
    internals._getFfmpegPath = (callback) => callback(null, jailed.file);
    return spawnFfmpeg([...jailed.args, ...args], spawnOptions, ...rest);
  };
  return command;
}

/** SIGKILL to the run's process group (confineRun), whatever is in it, and to the run itself. */
function killRun(command: FfmpegCommand): void {
  const run = (command as unknown as { ffmpegProc?: { pid?: number } }).ffmpegProc;
  killGroup(run?.pid);
  command.kill('SIGKILL');
}

// ---------------------------------------------------------------------------------------------
// ffprobe

/** ffprobe prints numbers as strings, and omits or writes "N/A" for unknown values. */
const optionalNumber = z
  .union([z.number(), z.string()])
  .optional()
  .transform((value) => {
    const n = value === undefined ? NaN : Number(value);
    return Number.isFinite(n) ? n : undefined;
  });
const tagsSchema = z
  .record(z.string(), z.unknown())
  .optional()
  .transform((tags) => Object.fromEntries(Object.entries(tags ?? {}).map(([key, value]) => [key, String(value)])));

const probeSchema = z.object({
  format: z.object({
    format_name: z.string(),
    duration: optionalNumber,
    tags: tagsSchema,
  }),
  streams: z
    .array(
      z.object({
        index: z.number().int(),
        codec_type: z.string().default('unknown'),
        codec_name: z.string().optional(),
        width: optionalNumber,
        height: optionalNumber,
        sample_rate: optionalNumber,
        channels: optionalNumber,
        bits_per_raw_sample: optionalNumber,
        duration: optionalNumber,
        nb_frames: optionalNumber,
        disposition: z.object({ attached_pic: z.number().optional() }).optional(),
        tags: tagsSchema,
      }),
    )
    .default([]),
  chapters: z.array(z.object({ id: z.number(), tags: tagsSchema })).default([]),
});

export interface MediaStream {
  index: number;
  /** video, audio, subtitle, data or attachment. */
  type: string;
  codec: string | undefined;
  width: number | undefined;
  height: number | undefined;
  sampleRate: number | undefined;
  channels: number | undefined;
  /** Bit depth of lossless sources (24 for a 24-bit FLAC); undefined for lossy codecs. */
  bitsPerRawSample: number | undefined;
  durationSec: number | undefined;
  frameCount: number | undefined;
  /** Cover art: a still picture stored as a video stream. */
  attachedPicture: boolean;
  tags: Record<string, string>;
}

export interface MediaProbe {
  /** ffprobe's demuxer name(s), e.g. "mov,mp4,m4a,3gp,3g2,mj2". */
  formatName: string;
  /** Container duration, else the longest stream; undefined when unknown. */
  durationSec: number | undefined;
  tags: Record<string, string>;
  streams: MediaStream[];
  chapters: Array<{ id: number; tags: Record<string, string> }>;
}

export interface ProbeOptions {
  signal?: AbortSignal;
  timeoutMs: number;
  /** The format the file was accepted as: ffprobe reads it as that and nothing else (demuxerOptions). */
  format?: FormatId;
}

/** Read a media file's container, streams and chapters; EngineError when ffprobe cannot read it. */
export async function probe(filePath: string, options: ProbeOptions): Promise<MediaProbe> {
  return parseProbe(await probeOutput(filePath, options));
}

/**
 * ffprobe's JSON answer for the file, unparsed: what a media measure keeps for the job's run to reuse
 * (PluginInput.facts), which reads it with parseProbe.
 */
export async function probeOutput(filePath: string, { signal, timeoutMs, format }: ProbeOptions): Promise<unknown> {
  const args = [
    '-v',
    'level+error',
    ...PROTOCOL_WHITELIST,
    ...demuxerOptions(format),
    '-print_format',
    'json',
    '-show_format',
    '-show_streams',
    '-show_chapters',
    filePath,
  ];
  let stdout: string;
  try {
    ({ stdout } = await runProcess(FFPROBE.command, args, { signal, timeoutMs }));
  } catch (err) {
    if (err instanceof EngineError && err.reason === 'exit') {
      const detail = describeFfmpegError(err.stderrTail, [filePath]);
      throw new EngineError(
        `ffprobe could not read the file${detail ? `: ${detail}` : ''}`,
        'exit',
        'ffprobe',
        err.exitCode,
        err.stderrTail,
      );
    }
    throw err;
  }
  return JSON.parse(stdout) as unknown;
}

/** ffprobe's JSON answer (probeOutput) as a MediaProbe; a ZodError when it is not one. */
export function parseProbe(output: unknown): MediaProbe {
  const raw = probeSchema.parse(output);
  const streams: MediaStream[] = raw.streams.map((s) => ({
    index: s.index,
    type: s.codec_type,
    codec: s.codec_name,
    width: s.width,
    height: s.height,
    sampleRate: s.sample_rate,
    channels: s.channels,
    bitsPerRawSample: s.bits_per_raw_sample || undefined,
    durationSec: s.duration,
    frameCount: s.nb_frames,
    attachedPicture: s.disposition?.attached_pic === 1,
    tags: s.tags,
  }));
  const longestStream = Math.max(...streams.map((s) => s.durationSec ?? 0), 0);
  return {
    formatName: raw.format.format_name,
    durationSec: raw.format.duration ?? (longestStream > 0 ? longestStream : undefined),
    tags: raw.format.tags,
    streams,
    chapters: raw.chapters,
  };
}

/** ffprobe's deadline for one file: it reads headers and never decodes, so this only ends a stuck read. */
export const PROBE_TIMEOUT_MS = 30_000;

/**
 * What a duration is taken from: `media`, the container (else the longest stream); `audio`, the
 * first audio stream's own duration, else the container's (a video's audio track may be shorter).
 */
export type DurationOf = 'media' | 'audio';

/** The duration `of` the probed media in seconds; undefined when its headers do not tell. */
export function durationOf(media: MediaProbe, of: DurationOf): number | undefined {
  if (of === 'media') return media.durationSec;
  return media.streams.find((s) => s.type === 'audio')?.durationSec ?? media.durationSec;
}

/**
 * A file's duration in seconds, read by ffprobe from its headers within PROBE_TIMEOUT_MS at most:
 * the work measure of media jobs (bounded work). Undefined when the headers do not tell;
 * EngineError when ffprobe cannot read the file.
 */
export async function probeDurationSec(
  filePath: string,
  { signal, timeoutMs, format, of = 'media' }: ProbeOptions & { of?: DurationOf },
): Promise<number | undefined> {
  const limits = { timeoutMs: Math.min(timeoutMs, PROBE_TIMEOUT_MS), ...(signal ? { signal } : {}) };
  return durationOf(await probe(filePath, { ...limits, ...(format ? { format } : {}) }), of);
}

// ---------------------------------------------------------------------------------------------
// ffmpeg

export interface FfmpegJob {
  input: string;
  /** The format the input was accepted as: ffmpeg reads it as that and nothing else (demuxerOptions). */
  inputFormat?: FormatId;
  /** A file path; ffmpeg picks the container from its extension unless `configure` sets one. */
  output: string;
  /** Adds codecs, filters and options to a command that already has the input. */
  configure: (command: FfmpegCommand) => FfmpegCommand;
  signal: AbortSignal;
  timeoutMs: number;
  /** Length of the output timeline in seconds: turns ffmpeg's position into a percentage. */
  durationSec?: number;
  /** 0-100, called on every ffmpeg stats line and with 100 on success. */
  onProgress?: (percent: number) => void;
}

export interface FfmpegOutput {
  /** The last lines ffmpeg wrote to stderr (analysis filters such as loudnorm report there). */
  stderr: string;
}

/** Run one ffmpeg command to completion; EngineError on failure, timeout or abort. */
export async function runFfmpeg(job: FfmpegJob): Promise<FfmpegOutput> {
  // fluent-ffmpeg never settles when ffmpeg cannot be spawned (its own error handler throws): look first.
  if (!job.signal.aborted && !(await commandExists(FFMPEG.command)))
    throw new EngineError('ffmpeg is not installed', 'missing', 'ffmpeg', null, '');
  return runCommand(job);
}

function runCommand(job: FfmpegJob): Promise<FfmpegOutput> {
  const { signal, timeoutMs } = job;
  return new Promise<FfmpegOutput>((resolve, reject) => {
    if (signal.aborted) {
      reject(new EngineError('ffmpeg was not started: aborted', 'aborted', 'ffmpeg', null, ''));
      return;
    }
    const tail: string[] = [];
    let running = false;
    let settled = false;
    let failure: { reason: 'timeout' | 'aborted'; message: string } | undefined;

    // -nostdin: ffmpeg otherwise reads keystrokes from its stdin pipe. level+info tags each
    // message with its level, so errors can be told from information (describeFfmpegError).
    // The configured paths on every run (fluent-ffmpeg keeps one of each, process-wide); named
    // paths also spare fluent-ffmpeg its own lookup, which would read FFMPEG_PATH from the environment.
    const base = ffmpeg()
      .setFfmpegPath(resolveCommand(FFMPEG.command))
      .setFfprobePath(resolveCommand(FFPROBE.command))
      .input(job.input)
      .inputOptions(
        '-nostdin',
        '-hide_banner',
        '-loglevel',
        'level+info',
        ...PROTOCOL_WHITELIST,
        ...demuxerOptions(job.inputFormat),
      );
    const command = confineRun(job.configure(base).output(job.output));

    const stop = (reason: 'timeout' | 'aborted', message: string) => {
      if (failure || settled) return;
      failure = { reason, message };
      // Before 'start' there is no process yet: the 'start' handler kills it the moment it exists.
      if (running) killRun(command);
    };
    const timer = setTimeout(
      () => stop('timeout', `ffmpeg timed out after ${Math.round(timeoutMs / 1000)} s`),
      timeoutMs,
    );
    const onAbort = () => stop('aborted', 'ffmpeg was aborted');
    signal.addEventListener('abort', onAbort, { once: true });

    const settle = (error?: EngineError) => {
      if (settled) return;
      settled = true;
      // Whatever the run left in its group dies with it.
      if (running) killGroup((command as unknown as { ffmpegProc?: { pid?: number } }).ffmpegProc?.pid);
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (error) reject(error);
      else resolve({ stderr: tail.join('\n') });
    };

    command.on('start', () => {
      running = true;
      if (failure) killRun(command);
    });
    command.on('stderr', (line: string) => {
      tail.push(line);
      if (tail.length > STDERR_TAIL_LINES) tail.shift();
      const position = parseTimePosition(line);
      if (position !== undefined && job.onProgress && job.durationSec) {
        job.onProgress(Math.min(100, Math.max(0, (position / job.durationSec) * 100)));
      }
    });
    command.on('error', (err: Error & { code?: string }) => {
      const stderr = tail.join('\n');
      if (failure) settle(new EngineError(failure.message, failure.reason, 'ffmpeg', null, stderr));
      else if (err.code === 'ENOENT') settle(new EngineError('ffmpeg is not installed', 'missing', 'ffmpeg', null, ''));
      else {
        // fluent-ffmpeg appends raw stderr (with paths) after a colon: keep only its first clause.
        const detail = describeFfmpegError(stderr, [job.input, job.output]) || err.message.split(':')[0];
        settle(new EngineError(`ffmpeg failed: ${detail}`, 'exit', 'ffmpeg', exitCodeOf(err.message), stderr));
      }
    });
    command.on('end', () => {
      if (failure) settle(new EngineError(failure.message, failure.reason, 'ffmpeg', null, tail.join('\n')));
      else {
        job.onProgress?.(100);
        settle();
      }
    });
    command.run();
  });
}

function exitCodeOf(message: string): number | null {
  const match = /exited with code (\d+)/.exec(message);
  return match ? Number(match[1]) : null;
}

/** ffmpeg's output position in seconds from a stats line ("... time=00:01:02.50 bitrate=..."). */
export function parseTimePosition(line: string): number | undefined {
  const match = /\btime=\s*(\d+):(\d{2}):(\d{2}(?:\.\d+)?)/.exec(line);
  if (!match) return undefined;
  return Number(match[1]) * 3600 + Number(match[2]) * 60 + Number(match[3]);
}

// Lines that say only that something failed, not what.
const GENERIC_LINE = new RegExp(
  '^(Conversion failed!|Exiting normally|Error opening output files?|Error while (filtering|' +
    'processing)|Error initializing output stream|Nothing was written into output file)',
  'i',
);
// With `-loglevel level+...` every message starts with its level, after the component's tag;
// continuation lines of a message have neither and keep the level of the line before.
const LOG_LINE =
  /^(?:\[[^\]]* @ 0x[0-9a-f]+\]\s*)?(?:\[(panic|fatal|error|warning|info|verbose|debug|trace)\]\s*)?(.*)$/;
const SERIOUS_LEVELS: ReadonlySet<string> = new Set(['panic', 'fatal', 'error']);

/**
 * The last two error lines of ffmpeg/ffprobe stderr (run with `-loglevel level+...`), safe to
 * show a client: log tags dropped and the server's paths removed ("/tmp/job/in.mp4: moov atom
 * not found" becomes "moov atom not found"). Empty when ffmpeg logged no error.
 */
export function describeFfmpegError(stderr: string, paths: readonly string[]): string {
  let level = 'info';
  const errors: string[] = [];
  for (const rawLine of stderr.split(/\r\n|\r|\n/)) {
    const [, lineLevel, text = ''] = LOG_LINE.exec(rawLine) ?? [];
    if (lineLevel) level = lineLevel;
    let line = text.trim();
    for (const p of paths) line = line.split(`${p}: `).join('').split(p).join(path.basename(p));
    if (!SERIOUS_LEVELS.has(level) || !line || GENERIC_LINE.test(line) || errors.at(-1) === line) continue;
    errors.push(line);
  }
  // Other paths too: a playlist or list hidden in the input names files ffmpeg was led to.
  return withoutServerPaths(errors.slice(-2).join('; '));
}

/** What a media failure message names: the file's kind ("MP4") and the server paths to hide. */
export interface MediaFailureContext {
  label: string;
  paths: readonly string[];
  /** The deadline ffmpeg was given, for a timeout's message. */
  timeoutMs?: number;
}

/**
 * ffmpeg and ffprobe failures as client messages: a file ffprobe cannot read, a command ffmpeg
 * could not complete (with its own error lines, paths removed), or a run past the deadline its
 * media's length allows. Aborts (the runner reports them), ffprobe timeouts and a missing
 * engine pass through.
 */
export function ffmpegFailure(
  err: unknown,
  signal: AbortSignal,
  { label, paths, timeoutMs }: MediaFailureContext,
): unknown {
  if (signal.aborted || !(err instanceof EngineError)) return err;
  const detail = () => describeFfmpegError(err.stderrTail, paths);
  if (err.command === FFPROBE.command) {
    if (err.reason !== 'exit') return err;
    return new PluginError(
      withDetail(`The ${label} file could not be read; it may be truncated, corrupt or not really ${label}`, detail()),
      { cause: err },
    );
  }
  if (err.reason === 'timeout') {
    const allowed = timeoutMs === undefined ? '' : ` the ${Math.round(timeoutMs / 1000)} s`;
    return new PluginError(
      `Processing the ${label} file took longer than${allowed} allowed for its length and was stopped`,
      { cause: err },
    );
  }
  if (err.reason !== 'exit') return err;
  return new PluginError(withDetail(`Could not process the ${label} file`, detail()), { cause: err });
}
