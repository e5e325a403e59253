import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from '../../../core/engines/process.js';
import { heifProfile, withPngProfile } from './heif-profile.js';

describe('HEIF colour profiles', () => {
  let dir: string;
  let p3: Buffer;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'heif-profile-'));
    const tagged = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#c86432' } })
      .withIccProfile('p3')
      .png()
      .toBuffer();
    p3 = (await sharp(tagged).metadata()).icc!;
    await writeFile(path.join(dir, 'p3.png'), tagged);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads the ICC profile heif-enc stored for the primary image, and none from a file that has none', async () => {
    const heic = path.join(dir, 'p3.heic');
    await runProcess('heif-enc', ['-q', '90', '-o', heic, path.join(dir, 'p3.png')], { timeoutMs: 60_000 });
    const profile = heifProfile(await readFile(heic));
    expect(profile).toEqual({ kind: 'icc', icc: p3 });
    expect(heifProfile(Buffer.from('not a heif file at all'))).toBeUndefined();
    expect(heifProfile(Buffer.alloc(0))).toBeUndefined();
  }, 60_000);

  it('embeds a profile in a PNG so that sharp reads the pixels in its colours', async () => {
    const raw = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#c86432' } })
      .png()
      .toBuffer();
    const tagged = withPngProfile(raw, p3);
    const meta = await sharp(tagged).metadata();
    expect(meta.icc).toEqual(p3);
    // The same numbers, read as P3, are a different sRGB colour.
    const [r, g, b] = await sharp(tagged).toColourspace('srgb').raw().toBuffer();
    expect([r, g, b]).not.toEqual([0xc8, 0x64, 0x32]);
  });
});
