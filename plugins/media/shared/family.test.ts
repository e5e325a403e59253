/**
 * What a media measure reads at acceptance is the run's probe too (PluginInput.facts): the file's headers read
 * in-process (MP4 and Matroska), else ffprobe's answer. A run that needs only the streams' layout starts no ffprobe
 * for an MP4; a run that reads codecs never gets the header reader's answer. Shown with ffprobe's path pointed at a
 * program that does not exist, under which any ffprobe run fails.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFileResult, type Plugin } from '../../../core/contract/index.js';
import { runPlugin } from '../../../core/contract/testing/index.js';
import type { MediaProbe } from '../../../core/engines/ffmpeg.js';
import { configureEnginePaths, enginePaths } from '../../../core/engines/paths.js';
import { audioConvertPlugin } from '../audio-convert/index.js';
import { FIXTURE_SECONDS, FIXTURE_SIZE, FixtureSet, probeFile, type FixtureName } from '../testing/fixtures.js';
import { videoConvertPlugin } from '../video-convert/index.js';
import type { FormatId } from '../../../schema/index.js';
import { acceptedProbe } from './family.js';

const fixtures = new FixtureSet(['mp4', 'avi']);
const measureCtx = () => ({ signal: AbortSignal.timeout(30_000), timeoutMs: 30_000, workDir: fixtures.dir });

/** `fn` with ffprobe unavailable: any ffprobe run fails as a missing engine. */
async function withoutFfprobe<T>(fn: () => Promise<T>): Promise<T> {
  const before = enginePaths();
  configureEnginePaths({ ...before, ffprobe: '/nonexistent/ffprobe' });
  try {
    return await fn();
  } finally {
    configureEnginePaths(before);
  }
}

const input = (name: FixtureName) => ({ ...fixtures.get(name), filename: `clip.${name}`, bytes: 1 });

async function measured(name: FixtureName) {
  const { amount, facts } = await videoConvertPlugin.limits.work!.measureWithFacts!(input(name), measureCtx());
  return { amount, input: { ...input(name), ...(facts ? { facts } : {}) } };
}

/** Run `plugin` to `target` with ffprobe unavailable; the output's probe. */
async function runWithoutFfprobe(plugin: Plugin, file: Parameters<typeof runPlugin>[1][number], target: FormatId) {
  const run = await withoutFfprobe(() => runPlugin(plugin, [file], {}, { target }));
  try {
    if (!isFileResult(run.result)) throw new Error('expected a file');
    return await probeFile(run.result.path);
  } finally {
    await rm(run.workDir, { recursive: true, force: true });
  }
}

/** The output's audio and video codecs (an MP4 output also carries the fixture's chapters as a data track). */
const codecs = (media: MediaProbe) => media.streams.filter((s) => s.type !== 'data').map((s) => s.codec);

describe('media probe made at acceptance, reused by the run', () => {
  beforeAll(() => fixtures.make());
  afterAll(() => fixtures.cleanup());

  it("an MP4's duration and streams come from its headers: a video conversion runs no ffprobe at all", async () => {
    const mp4 = await measured('mp4');
    expect(Math.abs(mp4.amount! - FIXTURE_SECONDS)).toBeLessThan(0.05);
    // The facts say which reader produced them.
    expect(Object.keys(mp4.input.facts ?? {})).toEqual(['headers']);
    expect(await withoutFfprobe(() => videoConvertPlugin.limits.work!.measure(input('mp4'), measureCtx()))).toBe(
      mp4.amount,
    );
    const media = await runWithoutFfprobe(videoConvertPlugin, mp4.input, 'webm');
    expect(codecs(media)).toEqual(['vp9', 'opus']);
    expect(media.streams[0]).toMatchObject(FIXTURE_SIZE);
    expect(Math.abs(media.durationSec! - FIXTURE_SECONDS)).toBeLessThan(0.25);
    // A layout run in a process that did not accept the job reads the headers itself.
    const again = await runWithoutFfprobe(videoConvertPlugin, input('mp4'), 'mp4');
    expect(codecs(again)).toEqual(['h264', 'aac']);
  });

  it('a run that reads codecs probes with ffprobe even when acceptance read the headers', async () => {
    const mp4 = await measured('mp4');
    expect(acceptedProbe(mp4.input, 'layout')?.durationSec).toBe(mp4.amount);
    expect(acceptedProbe(mp4.input, 'codecs')).toBeUndefined();
    await expect(
      withoutFfprobe(() => runPlugin(audioConvertPlugin, [mp4.input], {}, { target: 'mp3' })),
    ).rejects.toThrow(/ffprobe/);
  });

  it("a format without a header reader (AVI) keeps ffprobe's answer, which the run reuses", async () => {
    const avi = await measured('avi');
    expect(Object.keys(avi.input.facts ?? {})).toEqual(['ffprobe']);
    expect(Math.abs(avi.amount! - FIXTURE_SECONDS)).toBeLessThan(0.25);
    const media = await runWithoutFfprobe(videoConvertPlugin, avi.input, 'mp4');
    expect(codecs(media)).toEqual(['h264', 'aac']);
    // Without it the same run needs ffprobe, and fails without it.
    await expect(
      withoutFfprobe(() => runPlugin(videoConvertPlugin, [input('avi')], {}, { target: 'mp4' })),
    ).rejects.toThrow(/ffprobe/);
    expect(acceptedProbe(avi.input, 'codecs')?.durationSec).toBe(avi.amount);
  });

  it('what was read of the file as another format, or is not a probe at all, is not reused', async () => {
    for (const name of ['mp4', 'avi'] as const) {
      const { input: read } = await measured(name);
      expect(acceptedProbe({ ...read, format: 'mov' }, 'layout')).toBeUndefined();
    }
    const mp4 = input('mp4');
    expect(
      acceptedProbe({ ...mp4, facts: { ffprobe: { format: 'mp4', output: { streams: 'none' } } } }, 'layout'),
    ).toBe(undefined);
    expect(acceptedProbe({ ...mp4, facts: { ffprobe: 'nonsense' } }, 'codecs')).toBeUndefined();
    const forged = {
      format: 'mp4',
      probe: { formatName: 'mov', durationSec: -1, tags: {}, streams: [], chapters: [] },
    };
    expect(acceptedProbe({ ...mp4, facts: { headers: forged } }, 'layout')).toBeUndefined();
  });
});
