/**
 * The vision ops over HTTP on real photos shipped by Debian (test/fixtures/debian-photos.ts):
 * blur-faces on a JPG and on a BMP upload, its toolReport, and the mosaic leaving no face;
 * remove-bg on a BMP of the astronaut composited onto a flat background.
 */
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from '../core/engines/process.js';
import { findFaces } from '../plugins/image/blur-faces/run.js';
import { imagePlugins } from '../plugins/image/index.js';
import { DEBIAN_PHOTOS, ensureDebianPhotos } from './fixtures/debian-photos.js';
import { makeComposite, matteScores } from './fixtures/remove-bg.js';
import { convertAndDownload, startServer, type TestServer } from './helpers.js';

const pixelsOf = async (data: Buffer) => {
  const { data: pixels, info } = await sharp(data).raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, channels: info.channels, data: pixels };
};

describe('vision ops over HTTP', () => {
  let server: TestServer;
  let key: string;
  let astronautBmp: Buffer;
  let compositeBmp: Buffer;

  beforeAll(async () => {
    await ensureDebianPhotos();
    server = await startServer({ plugins: imagePlugins });
    key = await server.createKey('pro');
    const { stdout } = await runProcess('mktemp', ['-d'], { timeoutMs: 5_000 });
    const bmp = `${stdout.trim()}/astronaut.bmp`;
    await runProcess('convert', [DEBIAN_PHOTOS.astronaut, '-resize', '256x256', `BMP3:${bmp}`], { timeoutMs: 30_000 });
    astronautBmp = await readFile(bmp);
    await makeComposite(`${stdout.trim()}/composite.png`);
    await runProcess('convert', [`${stdout.trim()}/composite.png`, `BMP3:${stdout.trim()}/composite.bmp`], {
      timeoutMs: 30_000,
    });
    compositeBmp = await readFile(`${stdout.trim()}/composite.bmp`);
  }, 600_000);
  afterAll(() => server?.close());

  it('blur-faces: a JPG and a BMP come back as PNG with their one face mosaicked, toolReport detected 1', {
    timeout: 120_000,
  }, async () => {
    const [messi, astronaut] = await Promise.all([
      convertAndDownload(
        server.url,
        key,
        { name: 'messi5.jpg', data: await readFile(DEBIAN_PHOTOS.messi) },
        { to: 'jpg', op: 'blur-faces' },
        90_000,
      ),
      convertAndDownload(
        server.url,
        key,
        { name: 'astronaut.bmp', data: astronautBmp },
        { to: 'bmp', op: 'blur-faces' },
        90_000,
      ),
    ]);
    for (const [result, size] of [
      [messi, [548, 342]],
      [astronaut, [256, 256]],
    ] as const) {
      expect(result.job.toolReport).toEqual({ op: 'blur-faces', detected: 1 });
      expect(result.filename).toMatch(/\.png$/);
      const meta = await sharp(result.data).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['png', ...size]);
      expect(await findFaces(await pixelsOf(result.data))).toEqual([]);
    }
  });

  it('remove-bg: a BMP composite comes back as a PNG whose background is transparent and subject opaque', {
    timeout: 300_000,
  }, async () => {
    const result = await convertAndDownload(
      server.url,
      key,
      { name: 'composite.bmp', data: compositeBmp },
      { to: 'bmp', op: 'remove-bg' },
      280_000,
    );
    expect(result.filename).toMatch(/\.png$/);
    const scores = await matteScores(result.data);
    expect(scores.background).toBeGreaterThanOrEqual(0.95);
    expect(scores.subject).toBeGreaterThanOrEqual(0.95);
  });
});
