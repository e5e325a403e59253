/**
 * BMP uploads over HTTP: decoded by ImageMagick (core/engines), to png, jpg, webp and pdf; a corrupt BMP is a failed,
 * refunded job.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bmpVariants, toRgba } from '../core/engines/testing/bmp.js';
import { imagePlugins } from '../plugins/image/index.js';
import { convertAndDownload, getJson, startServer, submitConvert, waitForJob, type TestServer } from './helpers.js';

describe('BMP over HTTP', () => {
  let server: TestServer;
  let key: string;
  const variants = bmpVariants();
  const bmp = (name: string) => ({ name: 'picture.bmp', data: variants.find((v) => v.name === name)!.bytes });

  beforeAll(async () => {
    server = await startServer({ plugins: imagePlugins });
    key = await server.createKey('pro');
  });
  afterAll(() => server.close());

  it('converts a BMP to png (pixel for pixel), jpg, webp and pdf', async () => {
    const [png, jpg, webp, pdf] = await Promise.all(
      (['png', 'jpg', 'webp', 'pdf'] as const).map((to) => convertAndDownload(server.url, key, bmp('RLE8'), { to })),
    );
    expect(png!.filename).toBe('picture.png');
    const { data, info } = await sharp(png!.data).raw().toBuffer({ resolveWithObject: true });
    expect(toRgba(data, info.channels).equals(variants.find((v) => v.name === 'RLE8')!.rgba)).toBe(true);
    expect((await sharp(jpg!.data).metadata()).format).toBe('jpeg');
    expect(await sharp(webp!.data).metadata()).toMatchObject({ format: 'webp', width: 13, height: 7 });
    expect(pdf!.data.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('a corrupt BMP is a failed job with a clean message, and refunded', async () => {
    const before = (await getJson(`${server.url}/api/v1/credits`, key)).body.creditsUsed;
    const corrupt = Buffer.from(variants[5]!.bytes);
    corrupt.writeUInt32LE(0xffff, 14); // an impossible info-header size
    const accepted = await submitConvert(server.url, key, { name: 'broken.bmp', data: corrupt }, { to: 'png' });
    expect(accepted.status).toBe(200);
    const job = await waitForJob(server.url, key, accepted.body.jobId);
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/^The file is not a readable BMP image/);
    expect(job.error).not.toMatch(/\/tmp|@|bmp\.c/);
    const after = (await getJson(`${server.url}/api/v1/credits`, key)).body.creditsUsed;
    expect(after).toEqual(before);
  });
});
