/**
 * The image family through HTTP: a conversion downloaded and decoded, every image tool op once,
 * the plan gate, magic-byte and option validation, and a plugin refusal surfacing as the job error.
 */
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imagePlugins } from '../plugins/image/index.js';
import { convertAndDownload, startServer, submitConvert, type TestServer } from './helpers.js';

/** RGBA of one pixel, decoded from bytes. */
async function pixelAt(data: Buffer, x: number, y: number): Promise<number[]> {
  const { data: pixels, info } = await sharp(data)
    .ensureAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [...pixels.subarray(i, i + 4)];
}
const near = (actual: number[], expected: number[], tolerance = 12) =>
  expected.every((v, i) => Math.abs(actual[i]! - v) <= tolerance);

describe('images over HTTP', () => {
  let server: TestServer;
  let proKey: string;
  let freeKey: string;
  let redPng: Buffer;
  let photoJpg: Buffer;
  let exifJpg: Buffer;

  beforeAll(async () => {
    server = await startServer({ plugins: imagePlugins });
    [proKey, freeKey] = await Promise.all([server.createKey('pro'), server.createKey('free')]);
    redPng = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#ff0000' } })
      .png()
      .toBuffer();
    // Noise gives the encoder detail to trade, like a photo.
    photoJpg = await sharp({
      create: {
        width: 320,
        height: 240,
        channels: 3,
        background: '#808080',
        noise: { type: 'gaussian', mean: 128, sigma: 40 },
      },
    })
      .jpeg({ quality: 95 })
      .toBuffer();
    exifJpg = await sharp(redPng)
      .jpeg()
      .withExif({
        IFD0: { Make: 'Acme', Artist: 'Jane Secret' },
        IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 24/1' },
      })
      .toBuffer();
  });
  afterAll(() => server.close());

  it('converts PNG to WEBP for a Free key', async () => {
    const { data, filename } = await convertAndDownload(
      server.url,
      freeKey,
      { name: 'red.png', data: redPng },
      { to: 'webp' },
    );
    expect(filename).toBe('red.webp');
    const meta = await sharp(data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 64, 48]);
    expect(near(await pixelAt(data, 10, 10), [255, 0, 0, 255])).toBe(true);
  });

  it('runs every image tool op for a Pro key', async () => {
    const run = (name: string, data: Buffer, fields: Record<string, string>) =>
      convertAndDownload(server.url, proKey, { name, data }, fields).then((r) => r.data);
    const [compressed, resized, gray, sepia, inverted, cleaned] = await Promise.all([
      run('photo.jpg', photoJpg, { to: 'jpg', op: 'compress', quality: '30' }),
      run('red.png', redPng, { to: 'png', op: 'resize', resize: '{"width":32,"height":32,"fit":"cover"}' }),
      run('red.png', redPng, { to: 'png', op: 'grayscale' }),
      run('red.png', redPng, { to: 'png', op: 'sepia' }),
      run('red.png', redPng, { to: 'png', op: 'invert' }),
      run('exif.jpg', exifJpg, { to: 'jpg', op: 'clean-metadata' }),
    ]);

    expect(compressed.length).toBeLessThan(photoJpg.length);
    expect((await sharp(compressed).metadata()).format).toBe('jpeg');

    const box = await sharp(resized).metadata();
    expect([box.format, box.width, box.height]).toEqual(['png', 32, 32]);

    const [r, g, b] = await pixelAt(gray, 5, 5);
    expect(r === g && g === b).toBe(true);
    expect(near(await pixelAt(sepia, 5, 5), [100, 89, 69, 255], 2)).toBe(true);
    expect(await pixelAt(inverted, 5, 5)).toEqual([0, 255, 255, 255]);

    const meta = await sharp(cleaned).metadata();
    expect([meta.exif, meta.xmp, meta.iptc]).toEqual([undefined, undefined, undefined]);
    expect(cleaned.includes('Jane Secret')).toBe(false);
  });

  it('refuses a tool op to a Free key with 403', async () => {
    const res = await submitConvert(
      server.url,
      freeKey,
      { name: 'red.png', data: redPng },
      { to: 'png', op: 'grayscale' },
    );
    expect(res.status).toBe(403);
    expect(res.body.error).toMatch(/Pro/);
  });

  it('refuses PNG bytes named .jpg with 400', async () => {
    const res = await submitConvert(server.url, proKey, { name: 'photo.jpg', data: redPng }, { to: 'webp' });
    expect(res.status).toBe(400);
    expect(typeof res.body.error).toBe('string');
  });

  it('refuses bad resize options with 400 {error}', async () => {
    const file = { name: 'red.png', data: redPng };
    const badJson = await submitConvert(server.url, proKey, file, { to: 'png', op: 'resize', resize: '{width: 10' });
    expect(badJson.status).toBe(400);
    expect(badJson.body).toEqual({ error: 'resize must be a JSON string' });

    const noSize = await submitConvert(server.url, proKey, file, {
      to: 'png',
      op: 'resize',
      resize: '{"fit":"cover"}',
    });
    expect(noSize.status).toBe(400);
    expect(noSize.body.error).toBe('Invalid resize: width or height is required');

    const badQuality = await submitConvert(server.url, proKey, file, {
      to: 'png',
      op: 'resize',
      resize: '{"width":10}',
      quality: '5',
    });
    expect(badQuality.status).toBe(400);
    expect(badQuality.body.error).toBe('Invalid quality: must be an integer from 10 to 95');
  });

  it('refuses a decompression bomb at acceptance, from its header (work measured in megapixels)', async () => {
    // A valid PNG header declaring 20000 x 20000 pixels over a 1-pixel body.
    const bomb = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#ff0000' } })
      .png()
      .toBuffer();
    bomb.writeUInt32BE(20_000, 16);
    bomb.writeUInt32BE(20_000, 20);
    bomb.writeUInt32BE(crc32(bomb.subarray(12, 29)), 29); // IHDR's CRC covers its type and data
    const refused = await submitConvert(server.url, proKey, { name: 'bomb.png', data: bomb }, { to: 'jpg' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/at most 100 megapixels per job; .* has 400 megapixels: scale it down first/);
  });
});
