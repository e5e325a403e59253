/**
 * The media family through HTTP: every audio and video output, a legacy input, ProRes, GIF and
 * each media tool op, submitted as a client would, polled to done, downloaded and probed.
 */
import { execFileSync } from 'node:child_process';
import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mediaPlugins } from '../plugins/media/index.js';
import {
  allTagValues,
  FIXTURE_MARKER,
  FIXTURE_SECONDS,
  FIXTURE_SIZE,
  FixtureSet,
  integratedLoudness,
  probeFile,
  type FixtureName,
} from '../plugins/media/testing/fixtures.js';
import { AUDIO_TARGETS, VIDEO_TARGETS } from '../plugins/media/shared/formats.js';
import { FORMATS } from '../schema/index.js';
import { convertAndDownload, startServer, submitConvert, waitForJob, type TestServer } from './helpers.js';

const fixtures = new FixtureSet(['wav', 'mp3', 'mp4', 'mkv', 'webm', 'quiet-wav', 'truncated-mp4']);

const AUDIO_CODEC: Record<(typeof AUDIO_TARGETS)[number], string> = {
  mp3: 'mp3',
  wav: 'pcm_s16le',
  ogg: 'vorbis',
  aac: 'aac',
  flac: 'flac',
  m4a: 'aac',
  opus: 'opus',
  aiff: 'pcm_s16be',
};
const VIDEO_CODEC: Record<(typeof VIDEO_TARGETS)[number], string> = {
  mp4: 'h264',
  mov: 'h264',
  avi: 'mpeg4',
  webm: 'vp9',
  gif: 'gif',
  prores: 'prores',
  dnxhr: 'dnxhd',
};

describe('media over HTTP', () => {
  let server: TestServer;
  let key: string;

  beforeAll(async () => {
    [server] = await Promise.all([startServer({ plugins: mediaPlugins }), fixtures.make()]);
    key = await server.createKey('pro');
  });
  afterAll(async () => {
    await server?.close();
    await fixtures.cleanup();
  });

  /**
   * Submit, poll to done, download, probe; the file name carries the output's extension. Each job
   * gets its own Pro account: the harness polls every 100 ms, and one key's rate limit is 120/min.
   */
  async function convert(name: FixtureName, fields: Record<string, string>, extension: string) {
    const result = await convertAndDownload(
      server.url,
      await server.createKey('pro'),
      fixtures.get(name).path,
      fields,
      120_000,
    );
    expect(result.filename.endsWith(`.${extension}`)).toBe(true);
    return { ...result, media: await probeFile(result.outputPath) };
  }
  const codecsOf = (media: Awaited<ReturnType<typeof probeFile>>, type: string) =>
    media.streams.filter((s) => s.type === type).map((s) => s.codec);

  it('converts audio to every audio format', async () => {
    await Promise.all(
      AUDIO_TARGETS.map(async (to) => {
        const { media } = await convert(to === 'wav' ? 'mp3' : 'wav', { to }, FORMATS[to].extension);
        expect(codecsOf(media, 'audio')).toEqual([AUDIO_CODEC[to]]);
        expect(Math.abs(media.durationSec! - FIXTURE_SECONDS)).toBeLessThan(0.25);
      }),
    );
  });

  it('converts video to every video format (ProRes and DNxHR as .mov, GIF without audio)', async () => {
    for (const to of VIDEO_TARGETS) {
      const { media } = await convert(to === 'mp4' ? 'webm' : 'mp4', { to }, FORMATS[to].extension);
      expect(codecsOf(media, 'video')).toEqual([VIDEO_CODEC[to]]);
      expect(codecsOf(media, 'audio')).toHaveLength(to === 'gif' ? 0 : 1);
    }
  });

  it('converts a legacy container (MKV) to MP4, and extracts audio from video', async () => {
    const mp4 = await convert('mkv', { to: 'mp4' }, 'mp4');
    expect([codecsOf(mp4.media, 'video'), codecsOf(mp4.media, 'audio')]).toEqual([['h264'], ['aac']]);
    const mp3 = await convert('mp4', { to: 'mp3' }, 'mp3');
    expect(mp3.media.streams.map((s) => s.codec)).toEqual(['mp3']);
  });

  it('refuses a legacy container to GIF with 400', async () => {
    const res = await submitConvert(server.url, key, fixtures.get('mkv').path, { to: 'gif' });
    expect(res.status).toBe(400);
  });

  it('runs every media tool op', async () => {
    const [compressed, muted, trimmed, normalized, cleanVideo, cleanAudio] = await Promise.all([
      convert('mp4', { to: 'mp4', op: 'compress-video', quality: '30' }, 'mp4'),
      convert('webm', { to: 'webm', op: 'mute-video' }, 'webm'),
      convert('mp3', { to: 'mp3', op: 'trim-media', trim: '{"start":0.5,"end":2}' }, 'mp3'),
      convert('quiet-wav', { to: 'wav', op: 'normalize-audio' }, 'wav'),
      convert('mp4', { to: 'mp4', op: 'clean-metadata' }, 'mp4'),
      convert('mp3', { to: 'mp3', op: 'clean-metadata' }, 'mp3'),
    ]);
    expect(codecsOf(compressed.media, 'video')).toEqual(['h264']);
    expect(compressed.data.length).toBeLessThan((await stat(fixtures.get('mp4').path)).size);
    expect(codecsOf(muted.media, 'audio')).toEqual([]);
    expect(codecsOf(muted.media, 'video')).toEqual(['vp9']);
    expect(Math.abs(trimmed.media.durationSec! - 1.5)).toBeLessThan(0.5);
    expect(Math.abs((await integratedLoudness(normalized.outputPath)) + 16)).toBeLessThanOrEqual(1);
    for (const { media } of [cleanVideo, cleanAudio]) {
      expect(allTagValues(media).filter((v) => v.includes(FIXTURE_MARKER))).toEqual([]);
      expect(media.chapters).toEqual([]);
    }
  });

  it('reports bad input as a failed job with a useful error', async () => {
    const submitted = await submitConvert(server.url, key, fixtures.get('truncated-mp4').path, { to: 'webm' });
    expect(submitted.status).toBe(200);
    const job = await waitForJob(server.url, key, submitted.body.jobId, 30_000);
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/^The MP4 file could not be read; it may be truncated/);
  });

  it('validates tool options before accepting the job', async () => {
    const backwards = await submitConvert(server.url, key, fixtures.get('mp3').path, {
      to: 'mp3',
      op: 'trim-media',
      trim: '{"start":2,"end":1}',
    });
    expect(backwards.status).toBe(400);
    expect(backwards.body.error).toMatch(/end must be after start/);
    const quality = await submitConvert(server.url, key, fixtures.get('mp4').path, {
      to: 'mp4',
      op: 'compress-video',
      quality: '5',
    });
    expect(quality.status).toBe(400);
    expect(quality.body.error).toMatch(/quality must be between 10 and 95/);
  });
});

describe('media over HTTP, ffprobe runs counted', () => {
  const counted = new FixtureSet(['mp4']);
  let server: TestServer;
  let calls: string;
  /** Files made from the fixtures: a fragmented MP4 (the header reader declines it), and 4 h 0 min 5 s of video. */
  const fragmented = path.join(counted.dir, 'fragmented.mp4');
  const longMp4 = path.join(counted.dir, 'long.mp4');
  const longMkv = path.join(counted.dir, 'long.mkv');
  const longAvi = path.join(counted.dir, 'long.avi');
  const ffprobeRuns = async () => (await readFile(calls, 'utf8')).split('\n').filter(Boolean).length;

  beforeAll(async () => {
    await counted.make();
    const ffmpeg = (args: string[]) => execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-y', ...args]);
    ffmpeg(['-i', counted.get('mp4').path, '-c', 'copy', '-movflags', 'frag_keyframe+empty_moov', fragmented]);
    ffmpeg([
      '-f',
      'lavfi',
      '-i',
      'color=size=16x16:rate=1:duration=14405',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      longMp4,
    ]);
    ffmpeg(['-i', longMp4, '-c', 'copy', longMkv]);
    ffmpeg(['-i', longMp4, '-c', 'copy', longAvi]);
    // A wrapper that notes each run, then runs the real ffprobe. Unconfined (ENGINE_SANDBOX=off): a jail would not
    // see the wrapper, and every run, the acceptance's and the job's, must reach it to be counted.
    const ffprobe = execFileSync('sh', ['-c', 'command -v ffprobe'], { encoding: 'utf8' }).trim();
    calls = path.join(counted.dir, 'ffprobe-calls.txt');
    const wrapper = path.join(counted.dir, 'ffprobe-counted');
    await writeFile(wrapper, `#!/bin/sh\necho run >> '${calls}'\nexec '${ffprobe}' "$@"\n`);
    await chmod(wrapper, 0o755);
    server = await startServer({ plugins: mediaPlugins, env: { ENGINE_SANDBOX: 'off', FFPROBE_PATH: wrapper } });
  });
  afterAll(async () => {
    await server?.close();
    await counted.cleanup();
  });

  /** Convert over HTTP; the ffprobe runs the job made (counted before the test probes the output), and the output. */
  const convert = async (file: string, fields: Record<string, string>) => {
    await writeFile(calls, '');
    const key = await server.createKey('pro');
    const { outputPath } = await convertAndDownload(server.url, key, file, fields, 120_000);
    const runs = await ffprobeRuns();
    return { runs, media: await probeFile(outputPath) };
  };
  const videoAndAudio = (media: Awaited<ReturnType<typeof probeFile>>) =>
    media.streams.filter((s) => s.type === 'video' || s.type === 'audio');

  it('a video conversion of an MP4 runs no ffprobe at all: acceptance and run read its headers', async () => {
    const { runs, media } = await convert(counted.get('mp4').path, { to: 'webm' });
    expect(runs).toBe(0);
    expect(media.streams.map((s) => s.codec)).toEqual(['vp9', 'opus']);
    expect(media.streams[0]).toMatchObject(FIXTURE_SIZE);
    expect(Math.abs(media.durationSec! - FIXTURE_SECONDS)).toBeLessThan(0.25);
  });

  it('a file the header reader declines is probed once, at acceptance; the run reuses that', async () => {
    const { runs, media } = await convert(fragmented, { to: 'webm' });
    expect(runs).toBe(1);
    expect(videoAndAudio(media).map((s) => s.codec)).toEqual(['vp9', 'opus']);
    expect(videoAndAudio(media)[0]).toMatchObject(FIXTURE_SIZE);
    expect(Math.abs(media.durationSec! - FIXTURE_SECONDS)).toBeLessThan(0.25);
  });

  it('an op that reads the codec (audio extraction) probes with ffprobe in its run', async () => {
    const { runs, media } = await convert(counted.get('mp4').path, { to: 'mp3' });
    expect(runs).toBe(1);
    expect(media.streams.map((s) => s.codec)).toEqual(['mp3']);
    expect(Math.abs(media.durationSec! - FIXTURE_SECONDS)).toBeLessThan(0.25);
  });

  it('refuses over 4 hours of media with a 400 naming the limit, from the headers or ffprobe', async () => {
    const key = await server.createKey('pro');
    await writeFile(calls, '');
    const mp4 = await submitConvert(server.url, key, longMp4, { to: 'webm' });
    expect(mp4.status).toBe(400);
    expect(mp4.body.error).toMatch(
      /takes at most 4 hours of media per job; long\.mp4 has 14,405 seconds of media: cut it first \(op trim-media\)/,
    );
    // MP4 and Matroska from their headers, AVI (no header reader) from ffprobe: the same 400.
    const mkv = await submitConvert(server.url, key, longMkv, { to: 'webm' });
    expect([mkv.status, mkv.body.error]).toEqual([400, mp4.body.error.replace('long.mp4', 'long.mkv')]);
    expect(await ffprobeRuns()).toBe(0);
    const avi = await submitConvert(server.url, key, longAvi, { to: 'webm' });
    expect([avi.status, avi.body.error]).toEqual([400, mp4.body.error.replace('long.mp4', 'long.avi')]);
    expect(await ffprobeRuns()).toBe(1);
  });
});
