/**
 * Test support for the media family: small media files made with ffmpeg's lavfi sources (a
 * 440 Hz tone, the testsrc2 pattern), 3 s each, into a temp dir; plus probes of the results.
 * Every fixture carries tags, and some chapters, cover art or a timecode track, so the
 * metadata ops have something to remove.
 */
import { mkdtempSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { probe, type MediaProbe } from '../../../core/engines/ffmpeg.js';
import { runProcess } from '../../../core/engines/process.js';
import type { FormatId } from '../../../schema/index.js';

export const FIXTURE_SECONDS = 3;
export const FIXTURE_MARKER = 'Transmute fixture';
export const FIXTURE_SIZE = { width: 320, height: 240 } as const;

const TONE = ['-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=44100:duration=${FIXTURE_SECONDS}`];
const PATTERN = [
  '-f',
  'lavfi',
  '-i',
  `testsrc2=size=${FIXTURE_SIZE.width}x${FIXTURE_SIZE.height}:rate=24:duration=${FIXTURE_SECONDS}`,
];
// Keyframe every second: trims land within one second of what was asked.
const X264 = ['-c:v', 'libx264', '-preset', 'veryfast', '-g', '24', '-pix_fmt', 'yuv420p'];
const TAGS = [
  '-metadata',
  `title=${FIXTURE_MARKER}`,
  '-metadata',
  `artist=${FIXTURE_MARKER}`,
  '-metadata',
  `comment=${FIXTURE_MARKER} secret`,
];
const CHAPTERS = 'chapters';
const STEREO = ['-ac', '2'];

type Recipe = { format: FormatId } & (
  | { args: string[] } // ffmpeg arguments before the output file; CHAPTERS adds a chapter input
  | { make: (file: string, encode: (args: readonly string[], output: string) => Promise<void>) => Promise<void> }
);

const audio = (format: FormatId, codec: string[]): Recipe => ({
  format,
  args: [...TONE, ...STEREO, ...codec, ...TAGS],
});
const videoArgs = (codec: string[]) => [...PATTERN, ...TONE, ...STEREO, ...codec, ...TAGS];
const video = (format: FormatId, codec: string[]): Recipe => ({ format, args: videoArgs(codec) });

export const FIXTURES = {
  // audio inputs
  mp3: audio('mp3', ['-c:a', 'libmp3lame']),
  wav: audio('wav', ['-c:a', 'pcm_s16le']),
  ogg: audio('ogg', ['-c:a', 'libvorbis']),
  flac: audio('flac', ['-c:a', 'flac']),
  aac: audio('aac', ['-c:a', 'aac']),
  m4a: audio('m4a', ['-c:a', 'aac', CHAPTERS]),
  opus: audio('opus', ['-c:a', 'libopus']),
  aiff: audio('aiff', ['-c:a', 'pcm_s16be', '-write_id3v2', '1']),
  wma: audio('wma', ['-c:a', 'wmav2']),
  amr: { format: 'amr', make: writeAmr },
  m4b: audio('m4b', ['-c:a', 'aac', CHAPTERS]),
  mp2: audio('mp2', ['-c:a', 'mp2']),
  ac3: audio('ac3', ['-c:a', 'ac3']),
  // video inputs
  mp4: video('mp4', [...X264, '-c:a', 'aac', '-metadata', 'location=+48.8584+002.2945/', CHAPTERS]),
  mov: video('mov', [...X264, '-c:a', 'aac', '-timecode', '10:00:00:00', CHAPTERS]),
  avi: video('avi', ['-c:v', 'mpeg4', '-g', '24', '-c:a', 'libmp3lame']),
  webm: video('webm', ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-g', '24', '-c:a', 'libopus']),
  mkv: video('mkv', [...X264, '-c:a', 'aac', '-metadata:s:v:0', `title=${FIXTURE_MARKER} track`, CHAPTERS]),
  wmv: video('wmv', ['-c:v', 'wmv2', '-g', '24', '-c:a', 'wmav2']),
  flv: video('flv', [...X264, '-c:a', 'aac']),
  m4v: video('m4v', [...X264, '-c:a', 'aac']),
  '3gp': video('3gp', [...X264, '-c:a', 'aac']),
  mpeg: video('mpeg', ['-c:v', 'mpeg2video', '-g', '24', '-c:a', 'mp2']),
  ts: video('ts', [...X264, '-c:a', 'aac']),
  mts: video('mts', [...X264, '-c:a', 'ac3']),
  m2ts: video('m2ts', [...X264, '-c:a', 'ac3']),
  vob: video('vob', ['-c:v', 'mpeg2video', '-g', '24', '-c:a', 'ac3']),
  ogv: video('ogv', ['-c:v', 'libtheora', '-g', '24', '-c:a', 'libvorbis']),
  // special cases
  'mp3-cover': {
    format: 'mp3',
    args: [
      ...TONE,
      '-f',
      'lavfi',
      '-i',
      'color=c=red:size=64x64:duration=0.04',
      '-map',
      '0:a',
      '-map',
      '1:v',
      '-c:a',
      'libmp3lame',
      '-c:v',
      'png',
      '-disposition:v',
      'attached_pic',
      ...TAGS,
    ],
  },
  'flac-24bit': audio('flac', ['-c:a', 'flac', '-sample_fmt', 's32', '-bits_per_raw_sample', '24']),
  'quiet-wav': audio('wav', ['-c:a', 'pcm_s16le', '-af', 'volume=-20dB']),
  'odd-size-mp4': { format: 'mp4', args: ['-f', 'lavfi', '-i', 'testsrc2=size=321x241:rate=24:duration=2', ...X264] },
  // bad inputs
  'video-only-mp4': { format: 'mp4', args: [...PATTERN, ...X264] },
  'silent-wav': {
    format: 'wav',
    args: ['-f', 'lavfi', '-i', `anullsrc=r=44100:cl=stereo:duration=${FIXTURE_SECONDS}`, '-c:a', 'pcm_s16le'],
  },
  'no-streams-mp4': { format: 'mp4', args: [...PATTERN, '-t', '0', ...X264] },
  'huge-frame-avi': {
    format: 'avi',
    args: ['-f', 'lavfi', '-i', 'color=size=9000x2:duration=0.1', '-c:v', 'rawvideo', '-pix_fmt', 'gray'],
  },
  'empty-wav': { format: 'wav', make: (file) => writeFile(file, '') },
  'random-mp3': { format: 'mp3', make: (file) => writeFile(file, pseudoRandomBytes(20_000, 7)) },
  // MP4 keeps its index (moov) at the end: half a file cannot be read at all.
  'truncated-mp4': {
    format: 'mp4',
    make: async (file, encode) => {
      await encode(videoArgs([...X264, '-c:a', 'aac']), `${file}.whole.mp4`);
      const whole = await readFile(`${file}.whole.mp4`);
      await writeFile(file, whole.subarray(0, Math.floor(whole.length / 2)));
    },
  },
} satisfies Record<string, Recipe>;

export type FixtureName = keyof typeof FIXTURES;
export interface Fixture {
  path: string;
  format: FormatId;
}

/** Deterministic noise (a linear congruential generator), so failures reproduce. */
function pseudoRandomBytes(length: number, seed: number): Buffer {
  const bytes = Buffer.alloc(length);
  let state = seed;
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    bytes[i] = (state >> 16) & 0xff;
  }
  return bytes;
}

/**
 * AMR-NB by hand (Debian's ffmpeg decodes AMR but has no encoder): the storage-format magic,
 * then 12.2 kbit/s frames of 20 ms, each a mode byte and 31 bytes of payload. AMR frames carry
 * no checksum, so noise decodes as (noisy) audio.
 */
async function writeAmr(file: string): Promise<void> {
  const frames = (FIXTURE_SECONDS * 1000) / 20;
  const payload = pseudoRandomBytes(frames * 31, 3);
  const body = Buffer.concat(
    Array.from({ length: frames }, (_, i) =>
      Buffer.concat([Buffer.from([0x3c]), payload.subarray(i * 31, (i + 1) * 31)]),
    ),
  );
  await writeFile(file, Buffer.concat([Buffer.from('#!AMR\n'), body]));
}

const CHAPTER_FILE = `;FFMETADATA1
[CHAPTER]
TIMEBASE=1/1000
START=0
END=1500
title=${FIXTURE_MARKER} chapter one
[CHAPTER]
TIMEBASE=1/1000
START=1500
END=3000
title=${FIXTURE_MARKER} chapter two
`;

/**
 * Named fixtures in a fresh temp dir. Paths are known at once (conformance samples are declared
 * before any test runs); the files exist after `make()`, to be awaited in beforeAll.
 */
export class FixtureSet {
  readonly dir = mkdtempSync(path.join(os.tmpdir(), 'media-fixtures-'));
  private readonly names: ReadonlySet<FixtureName>;

  constructor(names: readonly FixtureName[]) {
    this.names = new Set(names);
  }

  get(name: FixtureName): Fixture {
    if (!this.names.has(name)) throw new Error(`fixture '${name}' is not in this set`);
    return { path: path.join(this.dir, `${name}.${FIXTURES[name].format}`), format: FIXTURES[name].format };
  }

  async make(): Promise<void> {
    const chapterFile = path.join(this.dir, 'chapters.txt');
    await writeFile(chapterFile, CHAPTER_FILE);
    const encode = (args: readonly string[], output: string) => encodeFixture(args, chapterFile, output);
    const queue = [...this.names];
    // Two at a time: ffmpeg encoders are multi-threaded already.
    await Promise.all(
      [0, 1].map(async () => {
        for (let name = queue.shift(); name; name = queue.shift()) {
          const recipe: Recipe = FIXTURES[name];
          const file = this.get(name).path;
          await ('make' in recipe ? recipe.make(file, encode) : encode(recipe.args, file));
        }
      }),
    );
  }

  cleanup(): Promise<void> {
    return rm(this.dir, { recursive: true, force: true });
  }
}

async function encodeFixture(args: readonly string[], chapterFile: string, output: string): Promise<void> {
  const withChapters = args.includes(CHAPTERS);
  const codecArgs = args.filter((arg) => arg !== CHAPTERS);
  const inputCount = codecArgs.filter((arg) => arg === '-i').length;
  const chapterArgs = withChapters ? ['-f', 'ffmetadata', '-i', chapterFile, '-map_chapters', String(inputCount)] : [];
  // Inputs first (every -i pair sits before the codec options in the recipes), then chapters.
  const lastInput = codecArgs.lastIndexOf('-i') + 2;
  await runProcess(
    'ffmpeg',
    [
      '-nostdin',
      '-v',
      'error',
      '-y',
      ...codecArgs.slice(0, lastInput),
      ...chapterArgs,
      ...codecArgs.slice(lastInput),
      output,
    ],
    { timeoutMs: 60_000 },
  );
}

/** Probe a result file. */
export function probeFile(file: string): Promise<MediaProbe> {
  return probe(file, { timeoutMs: 15_000 });
}

/** Integrated loudness in LUFS, measured independently of the plugin (ebur128 filter). */
export async function integratedLoudness(file: string): Promise<number> {
  const { stderr } = await runProcess(
    'ffmpeg',
    ['-nostdin', '-hide_banner', '-i', file, '-af', 'ebur128', '-f', 'null', '-'],
    { timeoutMs: 60_000 },
  );
  const summary = stderr.slice(stderr.lastIndexOf('Summary:'));
  const match = /I:\s+(-?[\d.]+) LUFS/.exec(summary);
  if (!match) throw new Error(`no loudness summary in ffmpeg output: ${summary}`);
  return Number(match[1]);
}

/** Every tag value of the container, its streams and chapters. */
export function allTagValues(media: MediaProbe): string[] {
  return [media.tags, ...media.streams.map((s) => s.tags), ...media.chapters.map((c) => c.tags)].flatMap((tags) =>
    Object.values(tags),
  );
}

/** Decoded frames of the first video stream (ffprobe -count_frames: exact, unlike header counts). */
export async function countFrames(file: string): Promise<number> {
  const { stdout } = await runProcess(
    'ffprobe',
    [
      '-v',
      'error',
      '-count_frames',
      '-select_streams',
      'v:0',
      '-show_entries',
      'stream=nb_read_frames',
      '-of',
      'csv=p=0',
      file,
    ],
    { timeoutMs: 30_000 },
  );
  return Number(stdout.trim());
}
