/** The family as a whole: it registers cleanly, and bad input fails fast with a useful PluginError. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PluginError, type Plugin } from '../../core/contract/index.js';
import { runPlugin } from '../../core/contract/testing/index.js';
import { Registry } from '../../core/registry/index.js';
import type { FormatId } from '../../schema/index.js';
import { audioConvertPlugin } from './audio-convert/index.js';
import { mediaCleanMetadataPlugin } from './clean-metadata/index.js';
import { mediaPlugins } from './index.js';
import { normalizeAudioPlugin } from './normalize-audio/index.js';
import { FixtureSet, type FixtureName } from './testing/fixtures.js';
import { trimMediaPlugin } from './trim-media/index.js';
import { videoConvertPlugin } from './video-convert/index.js';

describe('media family registration', () => {
  // The family alone (a family never imports another): plugins/distribution.test.ts checks the
  // standard distribution as a whole, and each conformance suite checks collisions with it.
  const registry = new Registry(mediaPlugins);

  it.each([
    ['mkv', 'mp4', undefined, 'video-convert'],
    ['mp4', 'prores', undefined, 'video-convert'],
    ['mp4', 'mp3', undefined, 'audio-convert'],
    ['amr', 'opus', undefined, 'audio-convert'],
    ['wav', 'wav', 'normalize-audio', 'normalize-audio'],
    ['m2ts', 'm2ts', 'trim-media', 'trim-media'],
    ['flac', 'flac', 'clean-metadata', 'media-clean-metadata'],
  ])('%s -> %s (op %s) resolves to %s', (from, to, op, pluginId) => {
    const resolution = registry.resolve({ from: from as never, target: to, ...(op ? { op } : {}) });
    expect(resolution.ok && resolution.plugin.id).toBe(pluginId);
  });

  it.each([
    ['mkv', 'gif'],
    ['vob', 'prores'],
    ['mp3', 'wma'],
  ])('%s -> %s is not offered', (from, to) => {
    expect(registry.resolve({ from: from as never, target: to }).ok).toBe(false);
  });

  it('tool ops need Pro; conversions are free', () => {
    for (const plugin of mediaPlugins) expect(plugin.plan).toBe(plugin.kind === 'tool' ? 'pro' : 'free');
  });
});

const fixtures = new FixtureSet([
  'truncated-mp4',
  'random-mp3',
  'empty-wav',
  'video-only-mp4',
  'no-streams-mp4',
  'huge-frame-avi',
  'silent-wav',
]);
beforeAll(() => fixtures.make());
afterAll(() => fixtures.cleanup());

describe('bad input fails fast with a useful message', () => {
  // The fourth value is the `to` of a conversion.
  const cases: Array<[FixtureName, Plugin, RegExp, FormatId?]> = [
    [
      'truncated-mp4',
      videoConvertPlugin,
      new RegExp(
        '^The MP4 file could not be read; it may be truncated, corrupt or not really MP4 ' +
          String.raw`\(moov atom not found; Invalid data found when processing input\)$`,
      ),
      'webm',
    ],
    ['truncated-mp4', trimMediaPlugin, /^The MP4 file could not be read/],
    ['truncated-mp4', mediaCleanMetadataPlugin, /^The MP4 file could not be read/],
    [
      'random-mp3',
      audioConvertPlugin,
      /^The MP3 file could not be read; it may be truncated, corrupt or not really MP3/,
      'wav',
    ],
    ['random-mp3', normalizeAudioPlugin, /^The MP3 file could not be read/],
    ['empty-wav', audioConvertPlugin, /^The WAV file is empty \(0 bytes\)$/, 'mp3'],
    ['empty-wav', normalizeAudioPlugin, /^The WAV file is empty/],
    ['video-only-mp4', audioConvertPlugin, /^The MP4 file has no audio track$/, 'mp3'],
    [
      'no-streams-mp4',
      videoConvertPlugin,
      /^The MP4 file contains no audio or video; it may be empty or truncated$/,
      'mov',
    ],
    ['huge-frame-avi', videoConvertPlugin, /^The video is 9000x2 pixels; frames up to 8192x8192 are supported$/, 'mp4'],
    ['silent-wav', normalizeAudioPlugin, /^The audio is silent, so there is no loudness to normalise$/],
  ];

  // Each is refused from its probe (or a first analysis pass), in words the client can act on; a
  // refusal that hung instead meets the test's timeout.
  it.each(cases)('%s with %s', async (name, plugin, message, target) => {
    const options = plugin.id === 'trim-media' ? { trim: { start: 0, end: 1 } } : {};
    const error = await runPlugin(plugin, [fixtures.get(name)], options, target ? { target } : {}).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(PluginError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain(fixtures.dir);
  });
});
