import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imageFamily } from './family.js';
import { headerMegapixels } from './megapixels.js';

describe('headerMegapixels (the image work measure, read at acceptance)', () => {
  let dir: string;
  const write = async (name: string, data: Buffer | string) => {
    const file = path.join(dir, name);
    await writeFile(file, data);
    return file;
  };
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'megapixels-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('reads width x height from the header without decoding', async () => {
    const png = await sharp({ create: { width: 2000, height: 1500, channels: 3, background: '#fff' } })
      .png()
      .toBuffer();
    expect(await headerMegapixels(await write('a.png', png))).toBe(3);
    const jpg = await sharp(png).jpeg().toBuffer();
    expect(await headerMegapixels(await write('a.jpg', jpg))).toBe(3);
  });

  it('believes a declared size: a decompression bomb is past the family maximum', async () => {
    const png = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#f00' } })
      .png()
      .toBuffer();
    png.writeUInt32BE(20_000, 16);
    png.writeUInt32BE(20_000, 20);
    const measured = await headerMegapixels(await write('bomb.png', png));
    expect(measured).toBe(400);
    expect(measured).toBeGreaterThan(imageFamily.limits.work.max);
  });

  it('leaves GIFs and unreadable files to the run', async () => {
    const gif = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#000' } })
      .gif()
      .toBuffer();
    expect(await headerMegapixels(await write('a.gif', gif))).toBeUndefined();
    expect(await headerMegapixels(await write('not.png', 'plain text'))).toBeUndefined();
    expect(await headerMegapixels(path.join(dir, 'missing.png'))).toBeUndefined();
  });

  it('gives the deadline 2 s a megapixel, never less than the byte-scaled one', () => {
    const input = { path: '/x', format: 'png' as const, bytes: 1_000_000, filename: 'x.png' };
    const timeout = imageFamily.limits.timeoutMs;
    expect(timeout([input], 100)).toBe(260_000);
    expect(timeout([input], undefined)).toBe(61_000);
  });
});
