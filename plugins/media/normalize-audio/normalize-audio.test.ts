import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PluginError, isFileResult } from '../../../core/contract/index.js';
import { pluginConformanceSuite, runPlugin } from '../../../core/contract/testing/index.js';
import { AUDIO_WRITABLE, type AudioWritable } from '../shared/encoders.js';
import { FixtureSet, integratedLoudness, probeFile, type FixtureName } from '../testing/fixtures.js';
import { normalizeAudioPlugin } from './index.js';
import { parseMeasurement, TARGET } from './loudnorm.js';
import { standardPlugins } from '../../index.js';

const fixtures = new FixtureSet([...AUDIO_WRITABLE, 'quiet-wav', 'silent-wav', 'mp3-cover']);
beforeAll(() => fixtures.make());
afterAll(() => fixtures.cleanup());

async function normalize(name: FixtureName) {
  const run = await runPlugin(normalizeAudioPlugin, [fixtures.get(name)]);
  if (!isFileResult(run.result)) throw new Error('expected a file');
  expect(run.result.format).toBe(fixtures.get(name).format);
  return { ...run, path: run.result.path, media: await probeFile(run.result.path) };
}

pluginConformanceSuite(
  normalizeAudioPlugin,
  [{ name: 'quiet wav', files: [fixtures.get('quiet-wav')], expectFormat: 'wav' }],
  { against: standardPlugins },
);

describe('normalize-audio', () => {
  it.each(AUDIO_WRITABLE)(
    '%s ends at -16 LUFS integrated, same format and sample rate',
    async (format: AudioWritable) => {
      const before = await probeFile(fixtures.get(format).path);
      const { path, media } = await normalize(format);
      expect(media.streams.find((s) => s.type === 'audio')?.sampleRate).toBe(
        before.streams.find((s) => s.type === 'audio')?.sampleRate,
      );
      expect(Math.abs((await integratedLoudness(path)) - TARGET.integratedLufs)).toBeLessThanOrEqual(1);
    },
  );

  it('raises quiet audio (-42 LUFS) to the target, reporting both passes', async () => {
    expect(await integratedLoudness(fixtures.get('quiet-wav').path)).toBeLessThan(-35);
    const { path, progress } = await normalize('quiet-wav');
    expect(Math.abs((await integratedLoudness(path)) - TARGET.integratedLufs)).toBeLessThanOrEqual(1);
    expect(progress).toContain(50);
    expect(progress.at(-1)).toBe(100);
  });

  it('keeps cover art', async () => {
    const { media } = await normalize('mp3-cover');
    expect(media.streams.filter((s) => s.attachedPicture)).toHaveLength(1);
  });

  it('refuses silence', async () => {
    const run = runPlugin(normalizeAudioPlugin, [fixtures.get('silent-wav')]);
    await expect(run).rejects.toBeInstanceOf(PluginError);
    await expect(run).rejects.toThrow('The audio is silent, so there is no loudness to normalise');
  });

  it('does not offer AMR, which this ffmpeg cannot encode', () => {
    expect(normalizeAudioPlugin.inputs).not.toContain('amr');
  });

  it('reads the loudnorm report among other log lines', () => {
    const stderr =
      '[info] size=N/A time=00:00:04.00\n[Parsed_loudnorm_0 @ 0x5] [info] \n{\n\t"input_i" : "-22.25",\n\t"input_tp" ' +
      ': "-21.48",\n\t"input_lra" : "0.00",\n\t"input_thresh" : "-32.25",\n\t"output_i" : ' +
      '"-15.95",\n\t"target_offset" : "-0.05"\n}\n';
    expect(parseMeasurement(stderr)).toEqual({
      integrated: -22.25,
      truePeak: -21.48,
      range: 0,
      threshold: -32.25,
      offset: -0.05,
    });
  });
});
