/**
 * op=thumbnail on an image, in process: the picture fits the box, in the asked format. The other
 * inputs run over HTTP in test/thumbnail.e2e.test.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFileResult } from '../../../core/contract/index.js';
import { runPlugin } from '../../../core/contract/testing/index.js';
import { thumbnailPlugin } from './index.js';

describe('thumbnail of an image', () => {
  let dir: string;
  let photo: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'thumbnail-'));
    photo = path.join(dir, 'photo.png');
    await sharp({ create: { width: 800, height: 400, channels: 3, background: '#2060a0' } })
      .png()
      .toFile(photo);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('fits inside the box and is written as the target format', async () => {
    const run = await runPlugin(thumbnailPlugin, [{ path: photo, format: 'png' }], { width: 100 }, { target: 'webp' });
    try {
      if (!isFileResult(run.result)) throw new Error('expected a file');
      const meta = await sharp(run.result.path).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['webp', 100, 50]);
    } finally {
      await rm(run.workDir, { recursive: true, force: true });
    }
  });

  it('refuses a box side past 4096 before running', async () => {
    await expect(
      runPlugin(thumbnailPlugin, [{ path: photo, format: 'png' }], { width: 5000 }, { target: 'png' }),
    ).rejects.toThrow(/width/);
  });
});
