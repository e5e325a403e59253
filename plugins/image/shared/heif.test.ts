import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPlugin } from '../../../core/contract/testing/index.js';
import { imageConvertPlugin } from '../convert/index.js';
import { decodeHeif } from './heif.js';
import { imageToPdfPlugin } from '../to-pdf/index.js';
import { canMakeHeic, describeImage, imageFixtures, near, outputOf, pixelAt } from '../testing/fixtures.js';

const fixtures = imageFixtures();
const { files } = fixtures;
beforeAll(fixtures.build);
afterAll(fixtures.cleanup);

const decodeOptions = { signal: new AbortController().signal, maxPixels: 100_000_000, timeoutMs: 30_000 };

describe.skipIf(!canMakeHeic)('HEIC input', () => {
  it('converts to jpg and png with size and colour', async () => {
    for (const target of ['jpg', 'png'] as const) {
      const out = outputOf((await runPlugin(imageConvertPlugin, [files.redHeic], {}, { target })).result);
      expect(await describeImage(out)).toMatchObject({ width: 64, height: 48, frames: 1 });
      expect(near(await pixelAt(out, 10, 10), [255, 0, 0, 255], 20)).toBe(true);
    }
  });

  it('drops an alpha channel that is all opaque', async () => {
    const out = outputOf((await runPlugin(imageConvertPlugin, [files.redHeic], {}, { target: 'png' })).result);
    expect((await sharp(out).metadata()).hasAlpha).toBe(false);
  });

  it('converts to pdf', async () => {
    expect(outputOf((await runPlugin(imageToPdfPlugin, [files.redHeic])).result)).toMatch(/\.pdf$/);
  });

  it('reports the size before decoding, for the pixel limit', async () => {
    const decoded = await decodeHeif(await readFile(files.redHeic.path), { ...decodeOptions, maxPixels: 1000 });
    expect(decoded).toEqual({ kind: 'too-large', pixels: 64 * 48 });
  });

  it('stops when aborted', async () => {
    const controller = new AbortController();
    const decoding = decodeHeif(await readFile(files.redHeic.path), { ...decodeOptions, signal: controller.signal });
    controller.abort();
    await expect(decoding).rejects.toThrow();
  });
});

describe('HEIC refusals', () => {
  it('refuses a file that is not HEIC', async () => {
    const notHeic = { path: files.redPng.path, format: 'heic' as const };
    await expect(runPlugin(imageConvertPlugin, [notHeic], {}, { target: 'jpg' })).rejects.toThrow(
      'The file is not a readable HEIC image',
    );
  });
});
