import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PluginError, isFileResult } from '../../../core/contract/index.js';
import { pluginConformanceSuite, runPlugin } from '../../../core/contract/testing/index.js';
import { FIXTURE_MARKER, FIXTURE_SECONDS, FixtureSet, probeFile, type FixtureName } from '../testing/fixtures.js';
import { AUDIO_INPUTS, AUDIO_TARGETS, MAIN_VIDEO_FORMATS, type AudioTarget } from '../shared/formats.js';
import { audioConvertPlugin } from './index.js';
import { standardPlugins } from '../../index.js';

const CODEC: Record<AudioTarget, string> = {
  mp3: 'mp3',
  wav: 'pcm_s16le',
  ogg: 'vorbis',
  aac: 'aac',
  flac: 'flac',
  m4a: 'aac',
  opus: 'opus',
  aiff: 'pcm_s16be',
};

const fixtures = new FixtureSet([...AUDIO_INPUTS, ...MAIN_VIDEO_FORMATS, 'mp3-cover', 'flac-24bit', 'video-only-mp4']);
beforeAll(() => fixtures.make());
afterAll(() => fixtures.cleanup());

async function convert(from: FixtureName, to: AudioTarget) {
  const run = await runPlugin(audioConvertPlugin, [fixtures.get(from)], {}, { target: to });
  if (!isFileResult(run.result)) throw new Error('expected a file');
  expect(run.result.format).toBe(to);
  expect(run.result.path.endsWith(`.${to}`)).toBe(true);
  return { ...run, media: await probeFile(run.result.path) };
}

pluginConformanceSuite(
  audioConvertPlugin,
  AUDIO_TARGETS.map((to) => {
    const from = to === 'wav' ? 'mp3' : 'wav';
    return { name: `${from} -> ${to}`, files: [fixtures.get(from)], target: to, expectFormat: to };
  }),
  { against: standardPlugins },
);

describe('audio conversion', () => {
  it.each([...AUDIO_INPUTS, ...MAIN_VIDEO_FORMATS])('%s -> mp3 keeps the whole track, audio only', async (from) => {
    const { media, progress } = await convert(from, 'mp3');
    expect(media.streams.map((s) => [s.type, s.codec])).toEqual([['audio', 'mp3']]);
    expect(media.durationSec).toBeGreaterThan(FIXTURE_SECONDS - 0.25);
    expect(media.durationSec).toBeLessThan(FIXTURE_SECONDS + 0.25);
    expect(progress.at(-1)).toBe(100);
  });

  it.each(AUDIO_TARGETS.filter((to) => to !== 'flac'))('flac -> %s', async (to) => {
    const { media } = await convert('flac', to);
    expect(media.streams.map((s) => [s.type, s.codec])).toEqual([['audio', CODEC[to]]]);
    expect(media.durationSec).toBeCloseTo(FIXTURE_SECONDS, 0);
    expect(media.streams[0]?.channels).toBe(2);
  });

  it('keeps tags', async () => {
    const { media } = await convert('mp3', 'ogg');
    expect(Object.values(media.streams[0]!.tags).concat(Object.values(media.tags))).toContain(FIXTURE_MARKER);
  });

  it('keeps 24-bit depth in PCM targets', async () => {
    expect((await convert('flac-24bit', 'wav')).media.streams[0]?.codec).toBe('pcm_s24le');
    expect((await convert('flac-24bit', 'aiff')).media.streams[0]?.codec).toBe('pcm_s24be');
  });

  it('keeps cover art where the target holds it, drops it elsewhere', async () => {
    for (const to of ['flac', 'm4a'] as const) {
      const { media } = await convert('mp3-cover', to);
      expect(media.streams.filter((s) => s.attachedPicture)).toHaveLength(1);
    }
    const ogg = (await convert('mp3-cover', 'ogg')).media;
    expect(ogg.streams.map((s) => s.type)).toEqual(['audio']);
  });

  it('refuses a video without an audio track', async () => {
    const run = runPlugin(audioConvertPlugin, [fixtures.get('video-only-mp4')], {}, { target: 'mp3' });
    await expect(run).rejects.toBeInstanceOf(PluginError);
    await expect(run).rejects.toThrow('The MP4 file has no audio track');
  });
});
