import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PluginError } from '../../../core/contract/index.js';
import { pluginConformanceSuite, runPlugin } from '../../../core/contract/testing/index.js';
import { Registry } from '../../../core/registry/index.js';
import { imageConvertPlugin } from './index.js';
import { describeImage, imageFixtures, near, outputOf, pixelAt } from '../testing/fixtures.js';
import { standardPlugins } from '../../index.js';

const fixtures = imageFixtures();
const { files } = fixtures;
beforeAll(fixtures.build);
afterAll(fixtures.cleanup);

pluginConformanceSuite(
  imageConvertPlugin,
  [
    {
      name: 'png -> webp keeps size and colour',
      target: 'webp',
      expectFormat: 'webp',
      files: [files.redPng],
      check: async ({ result }) => {
        expect(await describeImage(outputOf(result))).toMatchObject({ format: 'webp', width: 64, height: 48 });
        expect(near(await pixelAt(outputOf(result), 10, 10), [255, 0, 0, 255])).toBe(true);
      },
    },
    {
      name: 'animated gif -> webp keeps every frame and its timing',
      target: 'webp',
      expectFormat: 'webp',
      files: [files.animatedGif],
      check: async ({ result }) => {
        expect(await describeImage(outputOf(result))).toMatchObject({
          width: 40,
          height: 30,
          frames: 3,
          delay: [100, 100, 100],
        });
      },
    },
    {
      name: 'svg -> webp renders at the declared size',
      target: 'webp',
      expectFormat: 'webp',
      files: [files.greenSvg],
      check: async ({ result }) => {
        expect(await describeImage(outputOf(result))).toMatchObject({ width: 80, height: 60 });
        expect(near(await pixelAt(outputOf(result), 40, 30), [0, 255, 0, 255])).toBe(true);
      },
    },
    {
      name: 'transparent png -> jpg is flattened on white',
      target: 'jpg',
      expectFormat: 'jpg',
      files: [files.transparentPng],
      check: async ({ result }) => {
        const out = outputOf(result);
        expect(await describeImage(out)).toMatchObject({ format: 'jpeg', width: 64, height: 48 });
        expect(near(await pixelAt(out, 2, 2), [255, 255, 255, 255])).toBe(true);
        expect(near(await pixelAt(out, 32, 24), [255, 0, 0, 255], 30)).toBe(true);
      },
    },
    {
      name: 'animated webp -> jpg takes the first frame',
      target: 'jpg',
      expectFormat: 'jpg',
      files: [files.animatedWebp],
      check: async ({ result }) => {
        expect(await describeImage(outputOf(result))).toMatchObject({ width: 40, height: 30, frames: 1 });
        expect(near(await pixelAt(outputOf(result), 20, 15), [255, 0, 0, 255], 30)).toBe(true);
      },
    },
    { name: 'avif -> jpg', files: [files.redAvif], target: 'jpg', expectFormat: 'jpg' },
    { name: 'jpeg -> jpg', files: [files.redJpeg], target: 'jpg', expectFormat: 'jpg' },
    {
      name: 'svg -> png',
      target: 'png',
      expectFormat: 'png',
      files: [files.greenSvg],
      check: async ({ result }) => {
        expect(await describeImage(outputOf(result))).toMatchObject({ format: 'png', width: 80, height: 60 });
        expect(await pixelAt(outputOf(result), 0, 0)).toEqual([0, 255, 0, 255]);
      },
    },
    {
      name: 'animated gif -> png takes the first frame',
      target: 'png',
      expectFormat: 'png',
      files: [files.animatedGif],
      check: async ({ result }) => {
        expect(await describeImage(outputOf(result))).toMatchObject({ width: 40, height: 30, frames: 1 });
        expect(await pixelAt(outputOf(result), 5, 5)).toEqual([255, 0, 0, 255]);
      },
    },
    {
      name: 'tiff -> png',
      target: 'png',
      expectFormat: 'png',
      files: [files.redTiff],
      check: async ({ result }) => expect(near(await pixelAt(outputOf(result), 1, 1), [255, 0, 0, 255])).toBe(true),
    },
    {
      name: 'animated webp -> gif keeps every frame',
      target: 'gif',
      expectFormat: 'gif',
      files: [files.animatedWebp],
      check: async ({ result }) => {
        expect(await describeImage(outputOf(result))).toMatchObject({
          format: 'gif',
          width: 40,
          height: 30,
          frames: 3,
        });
      },
    },
    { name: 'jpg -> gif', files: [files.redJpg], target: 'gif', expectFormat: 'gif' },
    {
      name: 'png -> avif',
      target: 'avif',
      expectFormat: 'avif',
      files: [files.redPng],
      check: async ({ result }) => {
        expect(await describeImage(outputOf(result))).toMatchObject({ format: 'heif', width: 64, height: 48 });
        expect(near(await pixelAt(outputOf(result), 10, 10), [255, 0, 0, 255], 20)).toBe(true);
      },
    },
    {
      name: 'webp -> tiff',
      target: 'tiff',
      expectFormat: 'tiff',
      files: [files.redWebp],
      check: async ({ result }) =>
        expect(await describeImage(outputOf(result))).toMatchObject({ format: 'tiff', width: 64, height: 48 }),
    },
  ],
  { against: standardPlugins },
);

describe('image conversion', () => {
  it('offers every raster target from every input, except to itself', () => {
    const table = new Registry([imageConvertPlugin]).conversionTable();
    const targets = ['avif', 'gif', 'jpg', 'png', 'tiff', 'webp'];
    for (const from of imageConvertPlugin.inputs) expect(table[from]).toEqual(targets.filter((to) => to !== from));
    expect(imageConvertPlugin.plan).toBe('free');
  });

  it('quality trades size: jpg at 10 is much smaller than at 95', async () => {
    const sizeAt = async (quality: number) =>
      (
        await stat(
          outputOf((await runPlugin(imageConvertPlugin, [files.photoPng], { quality }, { target: 'jpg' })).result),
        )
      ).size;
    const [low, high] = await Promise.all([sizeAt(10), sizeAt(95)]);
    expect(low * 3).toBeLessThan(high);
  });

  it('refuses quality outside 10-95', async () => {
    await expect(runPlugin(imageConvertPlugin, [files.redPng], { quality: 5 }, { target: 'webp' })).rejects.toThrow(
      'Invalid quality: must be an integer from 10 to 95',
    );
    await expect(runPlugin(imageConvertPlugin, [files.redPng], { quality: 96 }, { target: 'webp' })).rejects.toThrow(
      /quality/,
    );
  });

  it('refuses content that is not the declared format', async () => {
    const run = runPlugin(imageConvertPlugin, [files.pngNamedJpg], {}, { target: 'webp' });
    await expect(run).rejects.toThrow(PluginError);
    await expect(run).rejects.toThrow('The file is not a JPG image (its content is PNG)');
  });

  it('refuses corrupt and truncated files with a clear message', async () => {
    await expect(runPlugin(imageConvertPlugin, [files.garbagePng], {}, { target: 'png' })).rejects.toThrow(
      'The file is not a readable PNG image',
    );
    await expect(runPlugin(imageConvertPlugin, [files.truncatedJpg], {}, { target: 'png' })).rejects.toThrow(
      /damaged or truncated/,
    );
  });

  it('refuses a decompression bomb from its header', async () => {
    const run = runPlugin(imageConvertPlugin, [files.bombPng], {}, { target: 'jpg' });
    await expect(run).rejects.toThrow(PluginError);
    await expect(run).rejects.toThrow('Image is too large: 400 megapixels (limit 100)');
  });

  it('renders SVG in UTF-16 LE/BE and UTF-8 with a BOM, whatever its XML declaration says', async () => {
    const svg =
      '<?xml version="1.0" encoding="UTF-16"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30"><rect ' +
      'width="100%" height="100%" fill="#0000ff"/></svg>\n';
    const encodings = {
      le: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(svg, 'utf16le')]),
      be: Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(svg, 'utf16le').swap16()]),
      bom: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(svg.replace('UTF-16', 'UTF-8'))]),
    };
    const dir = await mkdtemp(path.join(os.tmpdir(), 'svg-encodings-'));
    try {
      for (const [name, bytes] of Object.entries(encodings)) {
        const file = path.join(dir, `${name}.svg`);
        await writeFile(file, bytes);
        const { result } = await runPlugin(imageConvertPlugin, [{ path: file, format: 'svg' }], {}, { target: 'png' });
        expect(await describeImage(outputOf(result)), name).toMatchObject({ format: 'png', width: 40, height: 30 });
        expect(await pixelAt(outputOf(result), 20, 15), name).toEqual([0, 0, 255, 255]);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
