import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFileResult } from '../../../core/contract/index.js';
import { pluginConformanceSuite, runPlugin } from '../../../core/contract/testing/index.js';
import { Registry } from '../../../core/registry/index.js';
import {
  countFrames,
  FIXTURE_SECONDS,
  FIXTURE_SIZE,
  FixtureSet,
  probeFile,
  type FixtureName,
} from '../testing/fixtures.js';
import { GIF_FPS } from '../shared/encoders.js';
import { LEGACY_VIDEO_FORMATS, VIDEO_INPUTS, VIDEO_TARGETS, type VideoTarget } from '../shared/formats.js';
import { videoConvertPlugin } from './index.js';
import { standardPlugins } from '../../index.js';

const fixtures = new FixtureSet([...VIDEO_INPUTS, 'odd-size-mp4', 'video-only-mp4']);
beforeAll(() => fixtures.make());
afterAll(() => fixtures.cleanup());

async function convert(from: FixtureName, to: VideoTarget) {
  const run = await runPlugin(videoConvertPlugin, [fixtures.get(from)], {}, { target: to });
  if (!isFileResult(run.result)) throw new Error('expected a file');
  expect(run.result.format).toBe(to);
  return { ...run, path: run.result.path, media: await probeFile(run.result.path) };
}

// Chapters are kept, and MOV stores them as a text track: only audio and video are compared.
const codecs = (media: Awaited<ReturnType<typeof probeFile>>) =>
  media.streams.filter((s) => s.type === 'video' || s.type === 'audio').map((s) => `${s.type}:${s.codec}`);

pluginConformanceSuite(
  videoConvertPlugin,
  VIDEO_TARGETS.map((to) => {
    const from = to === 'mp4' ? 'mov' : 'mp4';
    return { name: `${from} -> ${to}`, files: [fixtures.get(from)], target: to, expectFormat: to };
  }),
  { against: standardPlugins },
);

describe('video conversion', () => {
  it.each(VIDEO_INPUTS.filter((from) => from !== 'mp4'))(
    '%s -> mp4: H.264 + AAC, same size and length',
    async (from) => {
      const { media, progress } = await convert(from, 'mp4');
      expect(codecs(media)).toEqual(['video:h264', 'audio:aac']);
      expect(media.streams[0]).toMatchObject(FIXTURE_SIZE);
      expect(Math.abs(media.durationSec! - FIXTURE_SECONDS)).toBeLessThan(0.3);
      // A 3 s clip converts faster than ffmpeg's stats interval; the engine tests cover intermediate values.
      expect(progress.at(-1)).toBe(100);
    },
  );

  const expected: Record<Exclude<VideoTarget, 'mp4' | 'gif'>, { codecs: string[]; extension: string }> = {
    mov: { codecs: ['video:h264', 'audio:aac'], extension: 'mov' },
    avi: { codecs: ['video:mpeg4', 'audio:mp3'], extension: 'avi' },
    webm: { codecs: ['video:vp9', 'audio:opus'], extension: 'webm' },
    prores: { codecs: ['video:prores', 'audio:pcm_s16le'], extension: 'mov' },
    dnxhr: { codecs: ['video:dnxhd', 'audio:pcm_s16le'], extension: 'mov' },
  };
  it.each(Object.entries(expected))('mp4 -> %s', async (to, want) => {
    const { media, path } = await convert('mp4', to as VideoTarget);
    expect(path.endsWith(`.${want.extension}`)).toBe(true);
    expect(codecs(media)).toEqual(want.codecs);
    expect(media.streams[0]).toMatchObject(FIXTURE_SIZE);
    expect(Math.abs(media.durationSec! - FIXTURE_SECONDS)).toBeLessThan(0.3);
  });

  it('ProRes is 422 HQ and DNxHR is the HQ profile', async () => {
    const profile = async (to: VideoTarget) => {
      const { path } = await convert('mp4', to);
      const { runProcess } = await import('../../../core/engines/process.js');
      const { stdout } = await runProcess(
        'ffprobe',
        ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=profile', '-of', 'csv=p=0', path],
        { timeoutMs: 10_000 },
      );
      return stdout.trim();
    };
    expect(await profile('prores')).toBe('HQ');
    expect(await profile('dnxhr')).toBe('DNXHR HQ');
  });

  it('mp4 -> gif: palette GIF at the default frame rate, no audio', async () => {
    const { media, path } = await convert('mp4', 'gif');
    expect(codecs(media)).toEqual(['video:gif']);
    expect(media.streams[0]).toMatchObject(FIXTURE_SIZE);
    expect(Math.abs((await countFrames(path)) - FIXTURE_SECONDS * GIF_FPS)).toBeLessThanOrEqual(1);
  });

  it('rounds odd frame sizes down to even for 4:2:0 codecs', async () => {
    const { media } = await convert('odd-size-mp4', 'webm');
    expect(media.streams[0]).toMatchObject({ width: 320, height: 240 });
  });

  it('converts a video without audio', async () => {
    const { media } = await convert('video-only-mp4', 'mov');
    expect(codecs(media)).toEqual(['video:h264']);
  });

  it('legacy containers convert to mp4/mov/avi/webm only', () => {
    const table = new Registry([videoConvertPlugin]).conversionTable();
    for (const from of LEGACY_VIDEO_FORMATS) expect(table[from]).toEqual(['avi', 'mov', 'mp4', 'webm']);
  });
});
