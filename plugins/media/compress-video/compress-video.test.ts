import { stat } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFileResult } from '../../../core/contract/index.js';
import { pluginConformanceSuite, runPlugin } from '../../../core/contract/testing/index.js';
import { FIXTURE_SECONDS, FixtureSet, probeFile } from '../testing/fixtures.js';
import { MAIN_VIDEO_FORMATS } from '../shared/formats.js';
import { compressVideoPlugin } from './index.js';
import { h264Crf, vp9Crf } from './options.js';
import { standardPlugins } from '../../index.js';

const fixtures = new FixtureSet(MAIN_VIDEO_FORMATS);
beforeAll(() => fixtures.make());
afterAll(() => fixtures.cleanup());

async function compress(format: (typeof MAIN_VIDEO_FORMATS)[number], options: Record<string, unknown> = {}) {
  const run = await runPlugin(compressVideoPlugin, [fixtures.get(format)], options);
  if (!isFileResult(run.result)) throw new Error('expected a file');
  expect(run.result.format).toBe(format);
  return { path: run.result.path, media: await probeFile(run.result.path), bytes: (await stat(run.result.path)).size };
}

pluginConformanceSuite(
  compressVideoPlugin,
  [{ name: 'mp4 at the default quality', files: [fixtures.get('mp4')], expectFormat: 'mp4' }],
  { against: standardPlugins },
);

describe('compress-video', () => {
  it.each(MAIN_VIDEO_FORMATS)('%s is re-encoded as H.264, or VP9 for webm', async (format) => {
    const { media } = await compress(format, { quality: 40 });
    const video = media.streams.find((s) => s.type === 'video');
    expect(video?.codec).toBe(format === 'webm' ? 'vp9' : 'h264');
    expect(media.streams.some((s) => s.type === 'audio')).toBe(true);
    expect(Math.abs(media.durationSec! - FIXTURE_SECONDS)).toBeLessThan(0.3);
  });

  it('lower quality gives a smaller file', async () => {
    const small = await compress('mp4', { quality: 15 });
    const large = await compress('mp4', { quality: 90 });
    expect(small.bytes).toBeLessThan(large.bytes);
  });

  it('maps quality linearly to CRF', () => {
    expect([95, 60, 10].map(h264Crf)).toEqual([18, 27, 40]);
    expect([95, 60, 10].map(vp9Crf)).toEqual([20, 32, 50]);
  });

  it.each([5, 96, 50.5])('refuses quality %s', async (quality) => {
    await expect(runPlugin(compressVideoPlugin, [fixtures.get('mp4')], { quality })).rejects.toThrow(/quality must be/);
  });
});
