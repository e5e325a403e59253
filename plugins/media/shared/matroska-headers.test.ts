/**
 * The Matroska/WebM header reader against ffprobe: the same streams (index, type, frame size, sample rate, channels)
 * and duration on the project's fixtures and on files made here; undefined on what it must decline; bounded on
 * truncated, corrupted and hostile files.
 */
import { mkdtempSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probe } from '../../../core/engines/ffmpeg.js';
import { runProcess } from '../../../core/engines/process.js';
import type { FormatId } from '../../../schema/index.js';
import { FixtureSet } from '../testing/fixtures.js';
import { readHeaders } from './family.js';
import { readMatroskaHeaders } from './matroska-headers.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'matroska-headers-'));
const fixtures = new FixtureSet(['mkv', 'webm']);

const VIDEO = ['-f', 'lavfi', '-i', 'testsrc2=size=160x120:rate=24:duration=2'];
const TONE = ['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100:duration=2'];
const X264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];
const VP8 = ['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8'];
const SUBTITLES = ['-i', path.join(dir, 'subtitles.srt')];

/** Files made with ffmpeg, by name: what the reader reads like ffprobe. */
const READ: Record<string, string[]> = {
  'av.mkv': [...VIDEO, ...TONE, ...X264, '-c:a', 'aac'],
  'vp9-opus.webm': [
    ...VIDEO,
    ...TONE,
    '-c:v',
    'libvpx-vp9',
    '-deadline',
    'realtime',
    '-cpu-used',
    '8',
    '-c:a',
    'libopus',
  ],
  'vp8-vorbis.webm': [...VIDEO, ...TONE, ...VP8, '-c:a', 'libvorbis'],
  'subtitles.mkv': [...VIDEO, ...TONE, ...SUBTITLES, '-map', '0', '-map', '1', '-map', '2', ...X264, '-c:a', 'aac'],
  'ass.mkv': [...VIDEO, ...SUBTITLES, '-map', '0', '-map', '1', ...X264, '-c:s', 'ass'],
  'webvtt.webm': [...VIDEO, ...SUBTITLES, '-map', '0', '-map', '1', ...VP8, '-c:s', 'webvtt'],
  'two-audio.mkv': [
    ...[...VIDEO, ...TONE, '-f', 'lavfi', '-i', 'sine=sample_rate=48000:duration=1'],
    ...['-map', '0', '-map', '1', '-map', '2', ...X264, '-c:a', 'flac'],
  ],
  'audio-first.mkv': [...TONE, ...VIDEO, '-map', '0', '-map', '1', ...X264, '-c:a', 'libmp3lame'],
  'odd-size.mkv': ['-f', 'lavfi', '-i', 'testsrc2=size=321x241:rate=24:duration=1', ...X264],
  'mpeg4-ac3.mkv': [...VIDEO, ...TONE, '-c:v', 'mpeg4', '-c:a', 'ac3'],
  'pcm-96k.mkv': [...TONE, '-c:a', 'pcm_s24le', '-ar', '96000'],
  'six-channels.mkv': ['-f', 'lavfi', '-i', 'sine=sample_rate=48000:duration=1', '-c:a', 'aac', '-ac', '6'],
  'hevc.mkv': [...VIDEO, '-c:v', 'libx265', '-preset', 'ultrafast', '-x265-params', 'log-level=error'],
  'cues-first.mkv': [...VIDEO, ...TONE, ...X264, '-c:a', 'aac', '-reserve_index_space', '2000'],
};

const FONT = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';

async function ffmpeg(args: readonly string[], output: string): Promise<void> {
  await runProcess('ffmpeg', ['-nostdin', '-v', 'error', '-y', ...args, path.join(dir, output)], { timeoutMs: 60_000 });
}

const formatOf = (file: string): FormatId => (file.endsWith('.webm') ? 'webm' : 'mkv');

/** The reader's answer equals ffprobe's: the duration, the streams, their kind, frame size, rate and channels. */
async function expectLikeFfprobe(file: string): Promise<void> {
  const label = path.basename(file);
  const headers = await readHeaders({ path: file, format: formatOf(file) });
  const probed = await probe(file, { timeoutMs: 30_000, format: formatOf(file) });
  expect(headers, label).toBeDefined();
  expect(Math.abs(headers!.durationSec! - probed.durationSec!), label).toBeLessThan(0.05);
  const layout = (s: (typeof probed.streams)[number]) => [s.index, s.type, s.width, s.height, s.sampleRate, s.channels];
  expect(headers!.streams.map(layout), label).toEqual(probed.streams.map(layout));
}

beforeAll(async () => {
  await writeFile(path.join(dir, 'subtitles.srt'), '1\n00:00:00,000 --> 00:00:01,000\nhello\n');
  const made = Object.entries(READ);
  await Promise.all([
    fixtures.make(),
    ...[0, 1].map(async () => {
      for (let next = made.shift(); next; next = made.shift()) await ffmpeg(next[1], next[0]);
    }),
    ffmpeg([...VIDEO, '-attach', FONT, '-metadata:s:t', 'mimetype=application/x-truetype-font', ...X264], 'font.mkv'),
  ]);
  // Written to a pipe: no duration, and elements of unknown size (a live recording).
  const piped = path.join(dir, 'piped.webm');
  const pipe = `ffmpeg -nostdin -v error ${[...VIDEO, ...VP8].join(' ')} -f webm - > '${piped}'`;
  await runProcess('sh', ['-c', pipe], { timeoutMs: 60_000 });
}, 240_000);
afterAll(async () => {
  await Promise.all([rm(dir, { recursive: true, force: true }), fixtures.cleanup()]);
});

describe('Matroska/WebM headers read in-process, as ffprobe reads them', () => {
  it("reads the project's MKV and WEBM fixtures", async () => {
    await expectLikeFfprobe(fixtures.get('mkv').path);
    await expectLikeFfprobe(fixtures.get('webm').path);
  });

  it('reads files made with every kind of track, subtitles, cues first', async () => {
    for (const name of Object.keys(READ)) await expectLikeFfprobe(path.join(dir, name));
  });

  it('declines attachments (ffmpeg adds them as streams), a recording without duration, truncation', async () => {
    const font = path.join(dir, 'font.mkv');
    expect((await probe(font, { timeoutMs: 30_000, format: 'mkv' })).streams.map((s) => s.type)).toEqual([
      'video',
      'attachment',
    ]);
    expect(await readMatroskaHeaders(font)).toBeUndefined();
    expect(await readMatroskaHeaders(path.join(dir, 'piped.webm'))).toBeUndefined();
    const whole = await readFile(path.join(dir, 'av.mkv'));
    await writeFile(path.join(dir, 'half.mkv'), whole.subarray(0, 200));
    expect(await readMatroskaHeaders(path.join(dir, 'half.mkv'))).toBeUndefined();
  });
});

/** Deterministic noise (a linear congruential generator), so failures reproduce. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x80000000;
  };
}

describe('Matroska header reader on hostile input: never hangs, throws or reads much', () => {
  const hostile = path.join(dir, 'hostile.mkv');
  const readBytes = async (data: Buffer) => {
    await writeFile(hostile, data);
    return readMatroskaHeaders(hostile);
  };
  let whole: Buffer;
  /** Where the first Cluster starts: everything the reader reads lies before it. */
  let headerEnd: number;

  beforeAll(async () => {
    whole = await readFile(path.join(dir, 'av.mkv'));
    headerEnd = whole.indexOf(Buffer.from([0x1f, 0x43, 0xb6, 0x75]));
  });

  it('declines truncation inside the headers, and survives corrupted headers', async () => {
    for (let cut = 1; cut < headerEnd; cut += 3) expect(await readBytes(whole.subarray(0, cut))).toBeUndefined();
    const next = random(3);
    const started = Date.now();
    for (let round = 0; round < 300; round++) {
      const data = Buffer.from(whole);
      for (let flips = 1 + Math.floor(next() * 4); flips > 0; flips--) {
        data[Math.floor(next() * headerEnd)] = Math.floor(next() * 256);
      }
      const media = await readBytes(data);
      if (media) {
        expect(media.streams.map((s) => s.index)).toEqual(media.streams.map((_, i) => i));
        expect(media.durationSec).toBeGreaterThan(0);
      }
    }
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('declines a million Void elements after reading a few thousand of them, and sizes past the end', async () => {
    const segmentAt = whole.indexOf(Buffer.from([0x18, 0x53, 0x80, 0x67]));
    // The Segment's size field (8 bytes, as ffmpeg writes it), then a million 2-byte Void elements before its children.
    const sizeAt = segmentAt + 4;
    const voids = Buffer.alloc(2_000_000);
    for (let at = 0; at < voids.length; at += 2) voids[at] = 0xec;
    for (let at = 1; at < voids.length; at += 2) voids[at] = 0x80;
    const segmentSize = whole.length - sizeAt - 8 + voids.length;
    const size = Buffer.alloc(8);
    size.writeBigUInt64BE(BigInt(segmentSize) | (1n << 56n));
    const padded = Buffer.concat([whole.subarray(0, sizeAt), size, voids, whole.subarray(sizeAt + 8)]);
    const started = Date.now();
    expect(await readBytes(padded)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(10_000);
    // The same surgery without the Voids reads as before.
    size.writeBigUInt64BE(BigInt(segmentSize - voids.length) | (1n << 56n));
    const rebuilt = Buffer.concat([whole.subarray(0, sizeAt), size, whole.subarray(sizeAt + 8)]);
    expect((await readBytes(rebuilt))?.streams).toHaveLength(2);
    // A Segment claiming more than the file holds, and one of unknown size.
    size.writeBigUInt64BE((BigInt(segmentSize) * 1000n) | (1n << 56n));
    expect(await readBytes(Buffer.concat([whole.subarray(0, sizeAt), size, whole.subarray(sizeAt + 8)]))).toBe(
      undefined,
    );
    size.writeBigUInt64BE(0x01ffffffffffffffn);
    expect(await readBytes(Buffer.concat([whole.subarray(0, sizeAt), size, whole.subarray(sizeAt + 8)]))).toBe(
      undefined,
    );
  });
});
