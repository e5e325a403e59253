/**
 * remove-bg on a real photo shipped by Debian (skimage's astronaut, test/fixtures/debian-photos.ts)
 * composited onto a flat background: the known background must go transparent and the subject's
 * centre stay opaque. The model takes seconds per image, so this file runs it once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admittedBy } from '../../../core/contract/licenses.js';
import { runPlugin } from '../../../core/contract/testing/index.js';
import { ensureDebianPhotos } from '../../../test/fixtures/debian-photos.js';
import { makeComposite, matteScores } from '../../../test/fixtures/remove-bg.js';
import { removeBgPlugin } from './index.js';
import { outputOf } from '../testing/fixtures.js';

let dir = '';
beforeAll(async () => {
  await ensureDebianPhotos();
  dir = await mkdtemp(path.join(os.tmpdir(), 'remove-bg-'));
}, 600_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('remove-bg', () => {
  it(
    'declares its AGPL licence (left out by PLUGIN_LICENSES=permissive and no-strong-copyleft) and a memory cap ' +
      'above its use',
    () => {
      expect(removeBgPlugin.licenses).toContain('AGPL-3.0-only');
      expect([
        admittedBy('permissive', removeBgPlugin),
        admittedBy('no-strong-copyleft', removeBgPlugin),
        admittedBy('any', removeBgPlugin),
      ]).toEqual([false, false, true]);
      expect(removeBgPlugin.limits.memoryMb).toBeGreaterThanOrEqual(2048);
    },
  );

  it('astronaut on a flat background: background transparent, subject opaque, soft edges', {
    timeout: 300_000,
  }, async () => {
    const input = path.join(dir, 'composite.png');
    await makeComposite(input);
    const { result } = await runPlugin(removeBgPlugin, [{ path: input, format: 'png' }], {}, { target: 'png' });
    const meta = await sharp(outputOf(result)).metadata();
    expect([meta.format, meta.width, meta.height, meta.hasAlpha]).toEqual(['png', 512, 512, true]);
    const scores = await matteScores(outputOf(result));
    expect(scores.background).toBeGreaterThanOrEqual(0.95);
    expect(scores.subject).toBeGreaterThanOrEqual(0.95);
    expect(scores.soft).toBeGreaterThan(0); // a matte, not a hard cut-out
  });
});
