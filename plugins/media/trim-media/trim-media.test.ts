import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PluginError, isFileResult } from '../../../core/contract/index.js';
import { parseOptions } from '../../../core/contract/options.js';
import { pluginConformanceSuite, runPlugin } from '../../../core/contract/testing/index.js';
import { FixtureSet, probeFile } from '../testing/fixtures.js';
import { MEDIA_INPUTS } from '../shared/formats.js';
import { trimMediaPlugin } from './index.js';
import { standardPlugins } from '../../index.js';

const fixtures = new FixtureSet(MEDIA_INPUTS);
beforeAll(() => fixtures.make());
afterAll(() => fixtures.cleanup());

// Program streams (mpeg, vob) may list audio first after a copy: compare as sets.
const codecs = (media: Awaited<ReturnType<typeof probeFile>>) =>
  media.streams
    .filter((s) => s.type === 'video' || s.type === 'audio')
    .map((s) => `${s.type}:${s.codec}`)
    .sort();
/** Containers with edit lists, which hide the lead-in before the first kept keyframe. */
const EDIT_LISTS: readonly string[] = ['mp4', 'mov', 'm4v', '3gp', 'm4a', 'm4b'];
const KEYFRAME_INTERVAL = 1;

pluginConformanceSuite(
  trimMediaPlugin,
  [
    {
      name: 'mp3, 1 s to 2 s',
      files: [fixtures.get('mp3')],
      options: { trim: { start: 1, end: 2 } },
      expectFormat: 'mp3',
    },
  ],
  { against: standardPlugins },
);

describe('trim-media', () => {
  // Video fixtures have a keyframe every second. Audio-only files and edit-list containers cut
  // to within ±0.5 s; other video containers also play up to one keyframe interval of lead-in.
  it.each(MEDIA_INPUTS)('%s: 1 s to 2.5 s by stream copy', async (format) => {
    const before = await probeFile(fixtures.get(format).path);
    const run = await runPlugin(trimMediaPlugin, [fixtures.get(format)], { trim: { start: 1, end: 2.5 } });
    if (!isFileResult(run.result)) throw new Error('expected a file');
    expect(run.result.format).toBe(format);
    const after = await probeFile(run.result.path);
    expect(codecs(after)).toEqual(codecs(before));
    const hasVideo = before.streams.some((s) => s.type === 'video');
    const leadIn = hasVideo && !EDIT_LISTS.includes(format) ? KEYFRAME_INTERVAL : 0;
    expect(after.durationSec!).toBeGreaterThan(1.5 - 0.5);
    expect(after.durationSec!).toBeLessThan(1.5 + leadIn + 0.5);
  });

  it('an end past the media is clamped to its end', async () => {
    const run = await runPlugin(trimMediaPlugin, [fixtures.get('wav')], { trim: { start: 2, end: 60 } });
    if (!isFileResult(run.result)) throw new Error('expected a file');
    expect((await probeFile(run.result.path)).durationSec).toBeCloseTo(1, 1);
    expect(run.progress.at(-1)).toBe(100);
  });

  it('refuses a start at or after the end of the media', async () => {
    const run = runPlugin(trimMediaPlugin, [fixtures.get('wav')], { trim: { start: 3, end: 5 } });
    await expect(run).rejects.toBeInstanceOf(PluginError);
    await expect(run).rejects.toThrow(/trim.start \(3 s\) is at or after the end of the media \(3.00 s\)/);
  });

  it.each([
    [{ start: 2, end: 1 }, 'Invalid trim.end: end must be after start'],
    [{ start: 2, end: 2 }, 'Invalid trim.end: end must be after start'],
    [{ start: -1, end: 1 }, 'Invalid trim.start: start must be 0 or more seconds'],
    [{ start: 0 }, 'Invalid trim.end'],
    [{ from: 0, to: 1 }, 'Invalid trim'],
  ])('refuses trim %j', (trim, message) => {
    const parsed = parseOptions(trimMediaPlugin.options, { trim }, { fromStrings: false, operation: 'trim-media' });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain(message);
  });

  it('decodes trim from its multipart JSON string, and requires it', () => {
    const parse = (raw: Record<string, unknown>) =>
      parseOptions(trimMediaPlugin.options, raw, { fromStrings: true, operation: 'trim-media' });
    expect(parse({ trim: '{"start":0.5,"end":2}' })).toEqual({ ok: true, value: { trim: { start: 0.5, end: 2 } } });
    expect(parse({}).ok).toBe(false);
  });
});
