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

  beforeAll(async () => {
    await counted.make();
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

  it("the job's run reuses the probe made at acceptance: one ffprobe per job", async () => {
    await writeFile(calls, '');
    const result = await convertAndDownload(
      server.url,
      await server.createKey('pro'),
      counted.get('mp4').path,
      { to: 'webm' },
      120_000,
    );
    expect((await readFile(calls, 'utf8')).trim().split('\n')).toEqual(['run']);
    const media = await probeFile(result.outputPath);
    expect(media.streams.map((s) => s.codec)).toEqual(['vp9', 'opus']);
    expect(Math.abs(media.durationSec! - FIXTURE_SECONDS)).toBeLessThan(0.25);
  });
});
