/**
 * The MP4/QuickTime header reader against ffprobe: the same streams (index, type, frame size, duration) on the
 * project's fixtures, on files made here in every mov-family container, and on public files; undefined on what it
 * must decline; and bounded on truncated, corrupted and hostile files.
 */
import { mkdtempSync } from 'node:fs';
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probe } from '../../../core/engines/ffmpeg.js';
import { runProcess } from '../../../core/engines/process.js';
import type { FormatId } from '../../../schema/index.js';
import { FixtureSet, type FixtureName } from '../testing/fixtures.js';
import { readHeaders } from './family.js';
import { readMovHeaders } from './mov-headers.js';

const PUBLIC_DIR = path.join(import.meta.dirname, '../testing/public-mp4');
const PUBLIC_DECLINED = ['sample_fragmented.mp4', 'metadata.mp4', 'test_case_1185230.mp4'];

const dir = mkdtempSync(path.join(os.tmpdir(), 'mov-headers-'));
const fixtures = new FixtureSet([
  'mp4',
  'mov',
  'm4a',
  'm4b',
  'm4v',
  '3gp',
  'odd-size-mp4',
  'video-only-mp4',
  'no-streams-mp4',
  'truncated-mp4',
  'mkv',
]);

const VIDEO = ['-f', 'lavfi', '-i', 'testsrc2=size=160x120:rate=24:duration=2'];
const TONE = ['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100:duration=2'];
const TONE_48K = ['-f', 'lavfi', '-i', 'sine=frequency=300:sample_rate=48000:duration=1.5'];
const PICTURE = ['-f', 'lavfi', '-i', 'color=c=red:size=64x64:duration=0.04'];
const X264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];
const AV = [...VIDEO, ...TONE, ...X264, '-c:a', 'aac'];
const CHAPTERS = ['-f', 'ffmetadata', '-i', path.join(dir, 'chapters.txt')];
const SUBTITLES = ['-i', path.join(dir, 'subtitles.srt')];

/** Files made with ffmpeg, by name (the extension is the format): what the reader reads like ffprobe. */
const READ: Record<string, string[]> = {
  'av.mp4': AV,
  'faststart.mp4': [...AV, '-movflags', '+faststart'],
  'av.mov': AV,
  'timecode.mov': [...AV, '-timecode', '10:00:00:00'],
  'timecode-faststart.mov': [...AV, '-timecode', '01:00:00:00', '-movflags', '+faststart'],
  'timecode.mp4': [...AV, '-timecode', '10:00:00:00'],
  'two-audio.mp4': [...VIDEO, ...TONE, ...TONE_48K, '-map', '0', '-map', '1', '-map', '2', ...X264, '-c:a', 'aac'],
  'audio-first.mp4': [...TONE, ...VIDEO, '-map', '0', '-map', '1', ...X264, '-c:a', 'aac'],
  'subtitles.mp4': [...VIDEO, ...SUBTITLES, '-map', '0', '-map', '1', ...X264, '-c:s', 'mov_text'],
  'subtitles.mov': [
    ...VIDEO,
    ...TONE,
    ...SUBTITLES,
    '-map',
    '0',
    '-map',
    '1',
    '-map',
    '2',
    ...X264,
    '-c:s',
    'mov_text',
  ],
  'chapters.mov': [
    ...VIDEO,
    ...TONE,
    ...CHAPTERS,
    '-map',
    '0',
    '-map',
    '1',
    '-map_chapters',
    '2',
    ...X264,
    '-c:a',
    'aac',
  ],
  'chapters.m4b': [...TONE, ...CHAPTERS, '-map', '0', '-map_chapters', '1', '-c:a', 'aac', '-f', 'ipod'],
  'ipod.m4a': [...TONE, '-c:a', 'aac', '-f', 'ipod'],
  'h263.3gp': [
    '-f',
    'lavfi',
    '-i',
    'testsrc2=size=176x144:rate=15:duration=2',
    ...TONE,
    '-c:v',
    'h263',
    '-c:a',
    'aac',
    '-ar',
    '8000',
  ],
  'mpeg4-mp3.mp4': [...VIDEO, ...TONE, '-c:v', 'mpeg4', '-c:a', 'libmp3lame'],
  'prores-pcm.mov': [...VIDEO, ...TONE, '-c:v', 'prores_ks', '-c:a', 'pcm_s16le'],
  'pcm24-96k.mov': [
    ...VIDEO,
    '-f',
    'lavfi',
    '-i',
    'sine=sample_rate=96000:duration=2',
    '-c:v',
    'mjpeg',
    '-c:a',
    'pcm_s24le',
  ],
  'alac.m4a': [...TONE, '-c:a', 'alac'],
  'hevc.mp4': [...AV.slice(0, 8), '-c:v', 'libx265', '-preset', 'ultrafast', '-x265-params', 'log-level=error'],
  'opus.mp4': [...VIDEO, ...TONE_48K, ...X264, '-c:a', 'libopus'],
  'vp9.mp4': [...VIDEO, '-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8'],
  'qtrle.mov': ['-f', 'lavfi', '-i', 'testsrc2=size=80x60:rate=10:duration=1', '-c:v', 'qtrle'],
  'no-edit-list.mp4': [...AV, '-use_editlist', '0'],
  'delayed-audio.mp4': [...VIDEO, '-itsoffset', '0.5', ...TONE, '-map', '0', '-map', '1', ...X264, '-c:a', 'aac'],
  'start-offset.mp4': [...AV, '-output_ts_offset', '3'],
  'two-video.mov': [
    ...VIDEO,
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=96x64:rate=12:duration=2',
    '-map',
    '0',
    '-map',
    '1',
    ...X264,
  ],
  'movie-timescale.mp4': [...AV, '-movie_timescale', '600'],
  'video.m4v': AV,
};

/** Files made with ffmpeg that the reader must decline: ffprobe reads them, differently or with more in them. */
const DECLINED: Record<string, string[]> = {
  'cover.m4a': [
    ...TONE,
    ...PICTURE,
    '-map',
    '0',
    '-map',
    '1',
    '-c:a',
    'aac',
    '-c:v',
    'png',
    '-disposition:v',
    'attached_pic',
  ],
  'cover-video.mp4': [
    ...AV.slice(0, 8),
    ...PICTURE,
    ...[
      '-map',
      '0',
      '-map',
      '1',
      '-map',
      '2',
      ...X264,
      '-c:a',
      'aac',
      '-c:v:1',
      'png',
      '-disposition:v:1',
      'attached_pic',
    ],
  ],
  'fragmented.mp4': [...AV, '-movflags', 'frag_keyframe+empty_moov'],
  'fragmented-dash.mp4': [...VIDEO, ...X264, '-movflags', 'frag_keyframe+empty_moov+default_base_moof'],
  'smooth.ismv': [...AV, '-f', 'ismv'],
};

const FORMAT_OF: Record<string, FormatId> = {
  '.mp4': 'mp4',
  '.mov': 'mov',
  '.m4a': 'm4a',
  '.m4b': 'm4b',
  '.m4v': 'm4v',
  '.3gp': '3gp',
  '.ismv': 'mp4',
};

async function ffmpeg(args: readonly string[], output: string): Promise<void> {
  await runProcess('ffmpeg', ['-nostdin', '-v', 'error', '-y', ...args, path.join(dir, output)], { timeoutMs: 60_000 });
}

/** The reader's answer equals ffprobe's where the reader answers: streams, their kind and size, the durations. */
async function expectLikeFfprobe(file: string): Promise<void> {
  const format = FORMAT_OF[path.extname(file)]!;
  const headers = await readHeaders({ path: file, format });
  const probed = await probe(file, { timeoutMs: 30_000, format });
  expect(headers, path.basename(file)).toBeDefined();
  const label = path.basename(file);
  expect(Math.abs(headers!.durationSec! - probed.durationSec!), label).toBeLessThan(0.05);
  expect(
    headers!.streams.map((s) => [s.index, s.type, s.width, s.height]),
    label,
  ).toEqual(
    probed.streams.map((s) => [
      s.index,
      s.type,
      s.type === 'video' ? s.width : undefined,
      s.type === 'video' ? s.height : undefined,
    ]),
  );
  for (const [i, stream] of headers!.streams.entries()) {
    const theirs = probed.streams[i]!;
    if (theirs.durationSec !== undefined) {
      expect(Math.abs(stream.durationSec! - theirs.durationSec), `${label} stream ${i}`).toBeLessThan(0.05);
    }
    if (stream.sampleRate !== undefined) expect(stream.sampleRate, `${label} stream ${i}`).toBe(theirs.sampleRate);
    expect(theirs.attachedPicture).toBe(false);
  }
}

beforeAll(async () => {
  await writeFile(
    path.join(dir, 'chapters.txt'),
    ';FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1000\ntitle=one\n' +
      '[CHAPTER]\nTIMEBASE=1/1000\nSTART=1000\nEND=2000\ntitle=two\n',
  );
  await writeFile(
    path.join(dir, 'subtitles.srt'),
    '1\n00:00:00,000 --> 00:00:01,000\nhello\n\n2\n00:00:01,000 --> 00:00:02,000\nworld\n',
  );
  const made = Object.entries({ ...READ, ...DECLINED });
  await Promise.all([
    fixtures.make(),
    ...[0, 1].map(async () => {
      for (let next = made.shift(); next; next = made.shift()) await ffmpeg(next[1], next[0]);
    }),
  ]);
}, 240_000);
afterAll(async () => {
  await Promise.all([rm(dir, { recursive: true, force: true }), fixtures.cleanup()]);
});

describe('MP4/QuickTime headers read in-process, as ffprobe reads them', () => {
  it("reads the project's fixtures of every mov-family format", async () => {
    const names: FixtureName[] = ['mp4', 'mov', 'm4a', 'm4b', 'm4v', '3gp', 'odd-size-mp4', 'video-only-mp4'];
    for (const name of names) await expectLikeFfprobe(fixtures.get(name).path);
  });

  it('reads files made in every mov-family container: every kind of track, edit lists, chapters', async () => {
    for (const name of Object.keys(READ)) await expectLikeFfprobe(path.join(dir, name));
  });

  it('reads public files written by other tools (mp4parse-rust, go-mp4, mp4ff test data)', async () => {
    const names = (await readdir(PUBLIC_DIR)).filter((name) => /\.(mp4|3gp)$/.test(name));
    const read = names.filter((name) => !PUBLIC_DECLINED.includes(name));
    expect(read.length).toBeGreaterThanOrEqual(12);
    for (const name of read) await expectLikeFfprobe(path.join(PUBLIC_DIR, name));
  });

  it('declines cover art, fragments, two moov boxes, no duration, truncation and other formats', async () => {
    const declined = [
      ...Object.keys(DECLINED).map((name) => path.join(dir, name)),
      ...PUBLIC_DECLINED.map((name) => path.join(PUBLIC_DIR, name)),
      fixtures.get('no-streams-mp4').path,
      fixtures.get('truncated-mp4').path,
    ];
    for (const file of declined) expect(await readMovHeaders(file), path.basename(file)).toBeUndefined();
    // Another format (Matroska here), or not there at all.
    expect(await readMovHeaders(fixtures.get('mkv').path)).toBeUndefined();
    expect(await readMovHeaders(path.join(dir, 'missing.mp4'))).toBeUndefined();
    // What it declines, ffprobe reads (the run then has ffprobe's answer): cover art as an attached picture.
    const cover = await probe(path.join(dir, 'cover.m4a'), { timeoutMs: 30_000, format: 'm4a' });
    expect(cover.streams.map((s) => s.attachedPicture)).toEqual([false, true]);
  });
});

// ---------------------------------------------------------------------------------------------
// Bounded on hostile input

function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.length, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, body]);
}

/** The top-level boxes of a file: type, offset and size. */
function topLevel(data: Buffer): Array<{ type: string; at: number; size: number }> {
  const boxes: Array<{ type: string; at: number; size: number }> = [];
  for (let at = 0; at + 8 <= data.length; ) {
    const size = data.readUInt32BE(at);
    boxes.push({ type: data.toString('latin1', at + 4, at + 8), at, size });
    at += size;
  }
  return boxes;
}

/** Deterministic noise (a linear congruential generator), so failures reproduce. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x80000000;
  };
}

describe('MP4/QuickTime header reader on hostile input: never hangs, throws or reads much', () => {
  let whole: Buffer;
  let moov: { at: number; size: number };
  const hostile = path.join(dir, 'hostile.mp4');
  const readBytes = async (data: Buffer) => {
    await writeFile(hostile, data);
    return readMovHeaders(hostile);
  };

  beforeAll(async () => {
    whole = await readFile(path.join(dir, 'faststart.mp4'));
    moov = topLevel(whole).find((b) => b.type === 'moov')!;
  });

  it('declines every truncation inside a box', async () => {
    const boundaries = new Set(topLevel(whole).map((b) => b.at));
    const next = random(1);
    const cuts = [...Array.from({ length: 40 }, (_, i) => i * 7), ...Array.from({ length: 120 }, () => next())];
    for (const cut of cuts) {
      const length = cut < 1 ? Math.floor(cut * whole.length) : cut;
      if (boundaries.has(length) || length === 0) continue;
      expect(await readBytes(whole.subarray(0, length)), `cut at ${length}`).toBeUndefined();
    }
  });

  it('survives corrupted headers: an answer or undefined, with streams numbered in order', async () => {
    const next = random(2);
    const started = Date.now();
    for (let round = 0; round < 300; round++) {
      const data = Buffer.from(whole);
      for (let flips = 1 + Math.floor(next() * 4); flips > 0; flips--) {
        data[moov.at + Math.floor(next() * moov.size)] = Math.floor(next() * 256);
      }
      const media = await readBytes(data);
      if (media) {
        expect(media.streams.map((s) => s.index)).toEqual(media.streams.map((_, i) => i));
        expect(media.durationSec).toBeGreaterThan(0);
      }
    }
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('declines hostile box sizes and shapes', async () => {
    const { at, size } = moov;
    const before = whole.subarray(0, at);
    const moovPayload = whole.subarray(at + 8, at + size);
    const after = whole.subarray(at + size);
    const withMoov = (replacement: Buffer) => Buffer.concat([before, replacement, after]);

    // Size 0 ("to the end of the file") on a box that is not media data.
    const zeroSized = Buffer.from(whole);
    zeroSized.writeUInt32BE(0, at);
    expect(await readBytes(zeroSized)).toBeUndefined();
    // Size 1: a 64-bit size, here far past the file's end; and one smaller than its own header.
    const huge = Buffer.alloc(16);
    huge.writeUInt32BE(1, 0);
    huge.write('moov', 4, 'latin1');
    huge.writeBigUInt64BE(2n ** 62n, 8);
    expect(await readBytes(Buffer.concat([before, huge, moovPayload]))).toBeUndefined();
    const tiny = Buffer.from(huge);
    tiny.writeBigUInt64BE(4n, 8);
    expect(await readBytes(Buffer.concat([before, tiny, moovPayload]))).toBeUndefined();
    // A size past the file's end, and one below a header's 8 bytes.
    const past = Buffer.from(whole);
    past.writeUInt32BE(size + 1_000_000, at);
    expect(await readBytes(past)).toBeUndefined();
    const small = Buffer.from(whole);
    small.writeUInt32BE(4, at);
    expect(await readBytes(small)).toBeUndefined();
    // A moov inside the moov, and a second moov after it.
    expect(await readBytes(withMoov(box('moov', moovPayload, box('moov', moovPayload))))).toBeUndefined();
    expect(await readBytes(Buffer.concat([whole, box('moov', moovPayload)]))).toBeUndefined();
    // Deep nesting where the reader descends (udta > meta > ilst > ...).
    let nested = box('ilst');
    for (let depth = 0; depth < 200; depth++) nested = box(depth % 2 ? 'ilst' : 'meta', nested);
    expect(await readBytes(withMoov(box('moov', moovPayload, box('udta', nested))))).toBeUndefined();
    // A sanity check of the surgery: the moov rebuilt as it was reads as before.
    expect((await readBytes(withMoov(box('moov', moovPayload))))?.streams).toHaveLength(2);
  });

  it('declines a million tiny boxes after reading a few thousand of them, quickly', async () => {
    const free = box('free');
    const many = Buffer.concat([whole, Buffer.concat(Array.from({ length: 1_000_000 }, () => free))]);
    const started = Date.now();
    expect(await readBytes(many)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('declines a sample table claiming billions of entries without reading them', async () => {
    const data = Buffer.from(whole);
    const stts = data.indexOf('stts', moov.at, 'latin1');
    data.writeUInt32BE(0xffffffff, stts + 8);
    const started = Date.now();
    expect(await readBytes(data)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
