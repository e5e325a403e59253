import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFileResult } from '../../../core/contract/index.js';
import { pluginConformanceSuite, runPlugin } from '../../../core/contract/testing/index.js';
import { allTagValues, FIXTURE_MARKER, FixtureSet, probeFile, type FixtureName } from '../testing/fixtures.js';
import { MEDIA_INPUTS } from '../shared/formats.js';
import { mediaCleanMetadataPlugin } from './index.js';
import { standardPlugins } from '../../index.js';

const fixtures = new FixtureSet([...MEDIA_INPUTS, 'mp3-cover']);
beforeAll(() => fixtures.make());
afterAll(() => fixtures.cleanup());

const audioVideo = (media: Awaited<ReturnType<typeof probeFile>>) =>
  media.streams
    .filter((s) => s.type === 'audio' || (s.type === 'video' && !s.attachedPicture))
    .map((s) => `${s.type}:${s.codec}`);

pluginConformanceSuite(mediaCleanMetadataPlugin, [{ name: 'mp4', files: [fixtures.get('mp4')], expectFormat: 'mp4' }], {
  against: standardPlugins,
});

describe('clean-metadata (audio and video)', () => {
  it('fixtures do carry metadata to remove', async () => {
    expect(allTagValues(await probeFile(fixtures.get('mp4').path)).join()).toContain(FIXTURE_MARKER);
    expect((await probeFile(fixtures.get('mp4').path)).chapters.length).toBe(2);
    expect((await probeFile(fixtures.get('mov').path)).streams.map((s) => s.type)).toContain('data');
  });

  it.each([...MEDIA_INPUTS, 'mp3-cover'] as FixtureName[])(
    '%s: tags, chapters, cover art and data tracks gone; streams copied',
    async (name) => {
      const before = await probeFile(fixtures.get(name).path);
      const run = await runPlugin(mediaCleanMetadataPlugin, [fixtures.get(name)]);
      if (!isFileResult(run.result)) throw new Error('expected a file');
      expect(run.result.format).toBe(fixtures.get(name).format);
      const after = await probeFile(run.result.path);
      // A bare "Lavf" (MP3 Xing header, Matroska's mandatory writing-app field) says nothing; versioned writer tags
      // would.
      expect(allTagValues(after).filter((value) => value.includes(FIXTURE_MARKER) || /^Lav[fc]\d/.test(value))).toEqual(
        [],
      );
      expect(after.tags).not.toHaveProperty('location');
      expect(after.chapters).toEqual([]);
      expect(after.streams.filter((s) => s.attachedPicture || s.type === 'data' || s.type === 'attachment')).toEqual(
        [],
      );
      expect(audioVideo(after)).toEqual(audioVideo(before));
      expect(Math.abs(after.durationSec! - before.durationSec!)).toBeLessThan(0.2);
    },
  );
});
