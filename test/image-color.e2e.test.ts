/**
 * Images keep their look over HTTP, on a real photo (skimage's coffee.png, from Debian) turned by real tools into
 * what cameras, phones and print shops hand over: a JPEG whose EXIF orientation says "turn me" (exiftool), a CMYK
 * TIFF with a CMYK profile and a CMYK JPEG without one (ImageMagick), a Display P3 JPEG (ImageMagick, with the
 * Display P3 profile libvips ships) and a Display P3 HEIC (heif-enc, as phones write them). Each converted image
 * must show the photo as it was: turned upright, in sRGB, its pixels within a few levels of the original's.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runProcess } from '../core/engines/process.js';
import { imagePlugins } from '../plugins/image/index.js';
import { ensureDebianPhotos } from './fixtures/debian-photos.js';
import { convertAndDownload, startServer, type TestServer } from './helpers.js';

/** Ghostscript's profiles (libgs-common, with the ghostscript package). */
const GS_ICC = '/usr/share/color/icc/ghostscript';

const run = (command: string, ...args: string[]) => runProcess(command, args, { timeoutMs: 60_000 });

/** 8-bit RGB pixels as sRGB (an embedded profile applied), with the size. */
async function srgbPixels(image: Buffer | string): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(image)
    .removeAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Mean absolute difference per channel between two same-size RGB images. */
function meanDifference(a: Buffer, b: Buffer): number {
  expect(a.length).toBe(b.length);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

/** The output is sRGB: 3 channels, no profile or an sRGB one. */
async function expectSrgb(output: Buffer): Promise<void> {
  const meta = await sharp(output).metadata();
  expect(meta.space).toBe('srgb');
  expect(meta.channels).toBe(3);
  // An ICC description is UTF-16 (mluc) or ASCII (desc): either way "sRGB" survives dropping the zero bytes.
  if (meta.icc) expect(meta.icc.toString('latin1').replaceAll('\0', '')).toMatch(/sRGB/);
}

describe('images keep their look over HTTP', () => {
  let server: TestServer;
  let key: string;
  let dir: string;
  let original: { data: Buffer; width: number; height: number };
  /** The photo as a PNG (its own pixels). */
  let photo: string;
  let p3Profile: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'image-color-e2e-'));
    const photos = await ensureDebianPhotos();
    photo = path.join(dir, 'coffee.png');
    // The photo without its alpha, if any: the comparisons are on RGB.
    await sharp(photos.coffee).removeAlpha().png().toFile(photo);
    original = await srgbPixels(photo);
    // libvips' built-in Display P3 profile, as a file for ImageMagick and heif-enc.
    const tagged = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#000' } })
      .withIccProfile('p3')
      .png()
      .toBuffer();
    p3Profile = path.join(dir, 'display-p3.icc');
    await writeFile(p3Profile, (await sharp(tagged).metadata()).icc!);
    expect((await run('exiftool', '-s3', '-ProfileDescription', p3Profile)).stdout).toMatch(/P3/);
    server = await startServer({ plugins: imagePlugins });
  }, 180_000);
  beforeEach(async () => {
    key = await server.createKey('pro');
  });
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it.each(['png', 'webp', 'avif'] as const)(
    'a JPEG whose EXIF orientation is 6 (turn 90° clockwise) comes out upright as %s',
    async (to) => {
      const jpeg = path.join(dir, `turned-${to}.jpg`);
      await run('convert', photo, '-quality', '95', jpeg);
      // The pixels stay as the camera wrote them; only the tag says how to show them.
      await run('exiftool', '-n', '-Orientation=6', '-overwrite_original', jpeg);
      expect((await run('exiftool', '-n', '-s3', '-Orientation', jpeg)).stdout.trim()).toBe('6');
      const { data } = await convertAndDownload(server.url, key, jpeg, { to, quality: '95' }, 120_000);
      const output = await srgbPixels(data);
      expect([output.width, output.height]).toEqual([original.height, original.width]);
      const upright = await srgbPixels(await sharp(photo).rotate(90).png().toBuffer());
      expect(meanDifference(output.data, upright.data)).toBeLessThan(4);
      // No tag left to turn it a second time.
      expect((await sharp(data).metadata()).orientation ?? 1).toBe(1);
    },
    180_000,
  );

  it('a CMYK TIFF with a CMYK profile becomes an sRGB JPEG that looks like the photo', async () => {
    const tiff = path.join(dir, 'print.tif');
    await run('convert', photo, '-profile', `${GS_ICC}/srgb.icc`, '-profile', `${GS_ICC}/default_cmyk.icc`, tiff);
    expect((await run('identify', '-format', '%[colorspace]', tiff)).stdout).toBe('CMYK');
    const { data } = await convertAndDownload(server.url, key, tiff, { to: 'jpg', quality: '95' }, 120_000);
    await expectSrgb(data);
    // CMYK's gamut is smaller than sRGB's, so the photo cannot come back exactly: the output must be as close to it
    // as ImageMagick's own conversion back to sRGB (measured: 7.9 levels against ImageMagick's 10.9).
    const back = path.join(dir, 'print-back.png');
    await run('convert', tiff, '-profile', `${GS_ICC}/srgb.icc`, back);
    const reference = meanDifference((await srgbPixels(back)).data, original.data);
    expect(reference).toBeLessThan(15);
    expect(meanDifference((await srgbPixels(data)).data, original.data)).toBeLessThanOrEqual(reference + 1);
  }, 180_000);

  it('a CMYK JPEG without a profile becomes an sRGB PNG that looks like the photo', async () => {
    const jpeg = path.join(dir, 'print.jpg');
    await run('convert', photo, '-colorspace', 'CMYK', '-quality', '95', jpeg);
    expect((await run('identify', '-format', '%[colorspace]', jpeg)).stdout).toBe('CMYK');
    const { data } = await convertAndDownload(server.url, key, jpeg, { to: 'png' }, 120_000);
    await expectSrgb(data);
    expect(meanDifference((await srgbPixels(data)).data, original.data)).toBeLessThan(10);
  }, 180_000);

  it('a Display P3 JPEG becomes an sRGB WEBP that looks like the photo', async () => {
    const jpeg = path.join(dir, 'phone.jpg');
    await run('convert', photo, '-profile', `${GS_ICC}/srgb.icc`, '-profile', p3Profile, '-quality', '95', jpeg);
    // The file's numbers are P3 numbers: read as sRGB they are visibly off.
    expect(meanDifference(await rawWithoutProfile(jpeg), original.data)).toBeGreaterThan(4);
    const { data } = await convertAndDownload(server.url, key, jpeg, { to: 'webp', quality: '95' }, 120_000);
    await expectSrgb(data);
    expect(meanDifference((await srgbPixels(data)).data, original.data)).toBeLessThan(3);
  }, 180_000);

  it('a Display P3 HEIC (as phones write them) becomes an sRGB WEBP that looks like the photo', async () => {
    const p3Png = path.join(dir, 'phone-p3.png');
    await run('convert', photo, '-profile', `${GS_ICC}/srgb.icc`, '-profile', p3Profile, p3Png);
    expect(meanDifference(await rawWithoutProfile(p3Png), original.data)).toBeGreaterThan(4);
    const heic = path.join(dir, 'phone.heic');
    await run('heif-enc', '-q', '95', '-o', heic, p3Png);
    expect((await run('heif-info', heic)).stdout).toMatch(/color profile: prof/);
    const { data } = await convertAndDownload(server.url, key, heic, { to: 'webp', quality: '95' }, 120_000);
    await expectSrgb(data);
    expect(meanDifference((await srgbPixels(data)).data, original.data)).toBeLessThan(4);
  }, 180_000);
});

/** An image's own numbers, its embedded profile ignored (what a reader that drops the profile shows). */
async function rawWithoutProfile(file: string): Promise<Buffer> {
  const rgb = `${file}.rgb`;
  await run('convert', file, '+profile', '*', '-depth', '8', `rgb:${rgb}`);
  return readFile(rgb);
}
