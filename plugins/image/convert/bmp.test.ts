/** BMP input, decoded by ImageMagick (core/engines) then handed to sharp: every variant to every kind of output. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PluginError } from '../../../core/contract/index.js';
import { runPlugin } from '../../../core/contract/testing/index.js';
import { bmpVariants, toRgba } from '../../../core/engines/testing/bmp.js';
import { imageConvertPlugin } from '../convert/index.js';
import { imageToIcoPlugin } from '../to-ico/index.js';
import { imageToPdfPlugin } from '../to-pdf/index.js';
import { describeImage, near, outputOf } from '../testing/fixtures.js';

let dir = '';
const variants = bmpVariants();
const fileOf = (name: string) => path.join(dir, `${name.replace(/\W+/g, '-')}.bmp`);
const bmp = (name: string) => ({ path: fileOf(name), format: 'bmp' as const });

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'bmp-'));
  for (const variant of variants) await writeFile(fileOf(variant.name), variant.bytes);
  const corrupt = Buffer.from(variants[5]!.bytes.subarray(0, 60));
  await writeFile(fileOf('truncated'), corrupt);
  await writeFile(fileOf('not a bmp'), 'just text, no bitmap header here at all');
  // A 54-byte file whose header declares 20000 x 20000 pixels.
  const bomb = Buffer.from(variants[5]!.bytes.subarray(0, 54));
  bomb.writeInt32LE(20_000, 18);
  bomb.writeInt32LE(20_000, 22);
  await writeFile(fileOf('bomb'), bomb);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function rgbaOf(file: string): Promise<Buffer> {
  const { data, info } = await sharp(file).raw().toBuffer({ resolveWithObject: true });
  return toRgba(data, info.channels);
}

describe('BMP input', () => {
  for (const variant of variants) {
    it(`${variant.name} -> png is the reference decode, pixel for pixel`, async () => {
      const { result } = await runPlugin(imageConvertPlugin, [bmp(variant.name)], {}, { target: 'png' });
      expect(await describeImage(outputOf(result))).toMatchObject({
        format: 'png',
        width: variant.width,
        height: variant.height,
      });
      expect((await rgbaOf(outputOf(result))).equals(variant.rgba)).toBe(true);
    });
  }

  it('-> jpg and webp keep size and colours', async () => {
    const variant = variants.find((v) => v.name === '24-bit')!;
    for (const target of ['jpg', 'webp'] as const) {
      const { result } = await runPlugin(imageConvertPlugin, [bmp(variant.name)], { quality: 95 }, { target });
      expect(await describeImage(outputOf(result))).toMatchObject({
        format: target === 'jpg' ? 'jpeg' : 'webp',
        width: 13,
        height: 7,
      });
      const got = await rgbaOf(outputOf(result));
      expect(near([...got.subarray(0, 4)], [...variant.rgba.subarray(0, 4)], 40)).toBe(true);
    }
  });

  it('32-bit alpha survives into webp', async () => {
    const { result } = await runPlugin(
      imageConvertPlugin,
      [bmp('32-bit BGRA (v5 header)')],
      { quality: 90 },
      { target: 'webp' },
    );
    const { data, info } = await sharp(outputOf(result)).raw().toBuffer({ resolveWithObject: true });
    expect(info.channels).toBe(4);
    expect(data[3]).toBe(0); // x = 0 is fully transparent
    expect(data[4 + 3]).toBe(255); // x = 1 is opaque
  });

  it('-> pdf and ico', async () => {
    const pdf = await runPlugin(imageToPdfPlugin, [bmp('8-bit palette')], {}, { target: 'pdf' });
    expect((await readFile(outputOf(pdf.result))).subarray(0, 5).toString()).toBe('%PDF-');
    const ico = await runPlugin(imageToIcoPlugin, [bmp('24-bit')], {}, { target: 'ico' });
    expect(outputOf(ico.result)).toMatch(/\.ico$/);
  });

  it('a truncated or fake BMP is a clean PluginError', async () => {
    for (const name of ['truncated', 'not a bmp']) {
      const error = await runPlugin(imageConvertPlugin, [bmp(name)], {}, { target: 'png' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PluginError);
      expect((error as Error).message).toMatch(/^The file is not a readable BMP image/);
      expect((error as Error).message).not.toContain(dir);
    }
  });

  it('a header declaring 400 megapixels is refused before decoding', async () => {
    const error = await runPlugin(imageConvertPlugin, [bmp('bomb')], {}, { target: 'png' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PluginError);
    expect((error as Error).message).toBe('Image is too large: 400 megapixels (limit 100)');
  });
});
