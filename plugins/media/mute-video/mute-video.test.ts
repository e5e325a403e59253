import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFileResult } from '../../../core/contract/index.js';
import { pluginConformanceSuite, runPlugin } from '../../../core/contract/testing/index.js';
import { FIXTURE_SECONDS, FixtureSet, probeFile } from '../testing/fixtures.js';
import { MAIN_VIDEO_FORMATS } from '../shared/formats.js';
import { muteVideoPlugin } from './index.js';
import { standardPlugins } from '../../index.js';

const fixtures = new FixtureSet(MAIN_VIDEO_FORMATS);
beforeAll(() => fixtures.make());
afterAll(() => fixtures.cleanup());

pluginConformanceSuite(muteVideoPlugin, [{ name: 'mp4', files: [fixtures.get('mp4')], expectFormat: 'mp4' }], {
  against: standardPlugins,
});

describe('mute-video', () => {
  it.each(MAIN_VIDEO_FORMATS)('%s loses its audio, video copied untouched', async (format) => {
    const before = await probeFile(fixtures.get(format).path);
    const run = await runPlugin(muteVideoPlugin, [fixtures.get(format)]);
    if (!isFileResult(run.result)) throw new Error('expected a file');
    expect(run.result.format).toBe(format);
    const after = await probeFile(run.result.path);
    expect(after.streams.filter((s) => s.type === 'audio')).toEqual([]);
    const video = (media: typeof before) =>
      media.streams.filter((s) => s.type === 'video').map(({ codec, width, height }) => ({ codec, width, height }));
    expect(video(after)).toEqual(video(before));
    expect(Math.abs(after.durationSec! - FIXTURE_SECONDS)).toBeLessThan(0.3);
  });
});
