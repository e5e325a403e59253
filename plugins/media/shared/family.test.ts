/**
 * The probe a media measure makes at acceptance is the run's probe too (PluginInput.facts): a run given it starts no
 * ffprobe. Shown with ffprobe's path pointed at a program that does not exist, under which a run without it fails.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFileResult } from '../../../core/contract/index.js';
import { runPlugin } from '../../../core/contract/testing/index.js';
import { configureEnginePaths, enginePaths } from '../../../core/engines/paths.js';
import { FIXTURE_SECONDS, FixtureSet, probeFile } from '../testing/fixtures.js';
import { videoConvertPlugin } from '../video-convert/index.js';
import { acceptedProbe } from './family.js';

const fixtures = new FixtureSet(['mp4']);
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

describe('media probe made at acceptance, reused by the run', () => {
  beforeAll(() => fixtures.make());
  afterAll(() => fixtures.cleanup());

  const input = () => ({ ...fixtures.get('mp4'), filename: 'clip.mp4', bytes: 1 });

  it('the measure gives the duration and the probe; a run given that probe starts no ffprobe', async () => {
    const measured = await videoConvertPlugin.limits.work!.measureWithFacts!(input(), measureCtx());
    expect(Math.abs(measured.amount! - FIXTURE_SECONDS)).toBeLessThan(0.25);
    const withFacts = { ...input(), ...(measured.facts ? { facts: measured.facts } : {}) };
    const run = await withoutFfprobe(() => runPlugin(videoConvertPlugin, [withFacts], {}, { target: 'webm' }));
    try {
      if (!isFileResult(run.result)) throw new Error('expected a file');
      const media = await probeFile(run.result.path);
      expect(media.streams.map((s) => s.codec)).toEqual(['vp9', 'opus']);
      expect(Math.abs(media.durationSec! - FIXTURE_SECONDS)).toBeLessThan(0.25);
    } finally {
      await rm(run.workDir, { recursive: true, force: true });
    }
    // Without the probe the same run needs ffprobe, and fails without it.
    await expect(
      withoutFfprobe(() => runPlugin(videoConvertPlugin, [input()], {}, { target: 'webm' })),
    ).rejects.toThrow(/ffprobe/);
  });

  it('a probe of the file read as another format, or not a probe at all, is not reused', async () => {
    const measured = await videoConvertPlugin.limits.work!.measureWithFacts!(input(), measureCtx());
    expect(acceptedProbe({ ...input(), ...(measured.facts ? { facts: measured.facts } : {}) })?.durationSec).toBe(
      measured.amount,
    );
    expect(acceptedProbe({ ...input(), format: 'mov', ...(measured.facts ? { facts: measured.facts } : {}) })).toBe(
      undefined,
    );
    expect(acceptedProbe({ ...input(), facts: { ffprobe: { format: 'mp4', output: { streams: 'none' } } } })).toBe(
      undefined,
    );
    expect(acceptedProbe({ ...input(), facts: { ffprobe: 'nonsense' } })).toBeUndefined();
  });
});
