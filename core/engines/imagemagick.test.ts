import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PluginError } from '../contract/index.js';
import { bmpVariants, toRgba } from './testing/bmp.js';
import { IMAGEMAGICK, bmpDimensions, decodeToRaw, magickOptions, parsePam } from './imagemagick.js';
import { type EngineError, runProcess } from './process.js';
import { rejectionOf, useEngineTestFiles } from './testing/files.js';

const files = useEngineTestFiles();
const SUMMARY = 'The file is not a readable BMP image';

describe('ImageMagick', () => {
  it('requires the imagemagick package, ImageMagick-licensed', () => {
    expect(IMAGEMAGICK).toEqual({ command: 'convert', debian: 'imagemagick', license: 'ImageMagick' });
  });

  for (const variant of bmpVariants()) {
    it(`decodes a ${variant.name} BMP pixel for pixel, leaving the work dir empty`, async () => {
      const ctx = await files().ctx();
      const file = path.join(files().dir, `${variant.name.replace(/\W+/g, '-')}.bmp`);
      await writeFile(file, variant.bytes);
      expect(bmpDimensions(variant.bytes)).toEqual({ width: variant.width, height: variant.height });
      const raw = await decodeToRaw(file, 'bmp', ctx, SUMMARY);
      expect({ width: raw.width, height: raw.height }).toEqual({ width: variant.width, height: variant.height });
      expect(toRgba(raw.pixels, raw.channels).equals(variant.rgba)).toBe(true);
      expect(await readdir(ctx.workDir)).toEqual([]);
    });
  }

  it('a corrupt BMP is a PluginError in ImageMagick`s words, without server paths', async () => {
    const [variant] = bmpVariants().slice(-1);
    const corrupt = Buffer.from(variant!.bytes);
    corrupt.writeUInt32LE(0xffff, 14); // an impossible info-header size
    const file = path.join(files().dir, 'corrupt.bmp');
    await writeFile(file, corrupt);
    const error = await rejectionOf(decodeToRaw(file, 'bmp', await files().ctx(), SUMMARY));
    expect(error).toBeInstanceOf(PluginError);
    expect(error.message).toMatch(/^The file is not a readable BMP image \(.+\)$/);
    expect(error.message).not.toContain(files().dir);
    expect(error.message).not.toMatch(/@|bmp\.c/);
  });

  it('a PNG is never handed to another coder: read as BMP it fails', async () => {
    const error = await rejectionOf(decodeToRaw(files().photo, 'bmp', await files().ctx(), SUMMARY));
    expect(error).toBeInstanceOf(PluginError);
  });

  it('runs under our policy: no TEXT, MSL, URL or @-file reads, no coder but BMP in and PAM out', async () => {
    const secret = path.join(files().dir, 'secret.txt');
    await writeFile(secret, 'server secret');
    const out = path.join(files().dir, 'policy-out.pam');
    for (const input of [
      `TEXT:${secret}`,
      `MSL:${secret}`,
      'URL:http://127.0.0.1:9/x.png',
      `@${secret}`,
      files().photo,
    ]) {
      const error = await rejectionOf(
        runProcess(IMAGEMAGICK.command, [input, `PAM:${out}`], { ...magickOptions(), timeoutMs: 30_000 }),
      );
      expect((error as EngineError).stderrTail).toMatch(
        /not allowed by the security policy|unable to open image .URL:/,
      );
    }
    await expect(readdir(files().dir)).resolves.not.toContain('policy-out.pam');
  });

  it('reads sizes from BMP headers and refuses what is not one', () => {
    expect(bmpDimensions(Buffer.from('not a bitmap at all, just some text'))).toBeNull();
    const top = bmpVariants().find((v) => v.name.includes('top-down'))!;
    expect(bmpDimensions(top.bytes)).toEqual({ width: 13, height: 7 });
  });

  it('parses only 8-bit PAM whose pixel data has the declared size', () => {
    const pam = (header: string, bytes: number) =>
      Buffer.concat([Buffer.from(`P7\n${header}\nENDHDR\n`), Buffer.alloc(bytes)]);
    expect(parsePam(pam('WIDTH 2\nHEIGHT 1\nDEPTH 3\nMAXVAL 255\nTUPLTYPE RGB', 6), SUMMARY)).toMatchObject({
      width: 2,
      height: 1,
      channels: 3,
    });
    expect(() => parsePam(pam('WIDTH 2\nHEIGHT 1\nDEPTH 3\nMAXVAL 255\nTUPLTYPE RGB', 5), SUMMARY)).toThrow(SUMMARY);
    expect(() => parsePam(pam('WIDTH 2\nHEIGHT 1\nDEPTH 3\nMAXVAL 65535\nTUPLTYPE RGB', 12), SUMMARY)).toThrow(SUMMARY);
  });
});
