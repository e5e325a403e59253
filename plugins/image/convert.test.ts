import { stat } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PluginError, type Plugin } from '../../core/contract/index.js';
import { pluginConformanceSuite, runPlugin } from '../../core/contract/testing.js';
import type { FormatId } from '../../schema/index.js';
import { imageConvertPlugins } from './convert.js';
import { describeImage, imageFixtures, near, outputOf, pixelAt } from './test-fixtures.js';

const fixtures = imageFixtures();
const { files } = fixtures;
beforeAll(fixtures.build);
afterAll(fixtures.cleanup);

const converter = (to: FormatId): Plugin => {
  const plugin = imageConvertPlugins.find((p) => p.outputs?.[0] === to);
  if (!plugin) throw new Error(`no converter to ${to}`);
  return plugin;
};

pluginConformanceSuite(converter('webp'), [
  {
    name: 'png -> webp keeps size and colour',
    files: [files.redPng],
    expectFormat: 'webp',
    check: async ({ result }) => {
      expect(await describeImage(outputOf(result))).toMatchObject({ format: 'webp', width: 64, height: 48 });
      expect(near(await pixelAt(outputOf(result), 10, 10), [255, 0, 0, 255])).toBe(true);
    },
  },
  {
    name: 'animated gif -> webp keeps every frame and its timing',
    files: [files.animatedGif],
    check: async ({ result }) => {
      expect(await describeImage(outputOf(result))).toMatchObject({ width: 40, height: 30, frames: 3, delay: [100, 100, 100] });
    },
  },
  {
    name: 'svg -> webp renders at the declared size',
    files: [files.greenSvg],
    check: async ({ result }) => {
      expect(await describeImage(outputOf(result))).toMatchObject({ width: 80, height: 60 });
      expect(near(await pixelAt(outputOf(result), 40, 30), [0, 255, 0, 255])).toBe(true);
    },
  },
]);

pluginConformanceSuite(converter('jpg'), [
  {
    name: 'transparent png -> jpg is flattened on white',
    files: [files.transparentPng],
    expectFormat: 'jpg',
    check: async ({ result }) => {
      const out = outputOf(result);
      expect(await describeImage(out)).toMatchObject({ format: 'jpeg', width: 64, height: 48 });
      expect(near(await pixelAt(out, 2, 2), [255, 255, 255, 255])).toBe(true);
      expect(near(await pixelAt(out, 32, 24), [255, 0, 0, 255], 30)).toBe(true);
    },
  },
  {
    name: 'animated webp -> jpg takes the first frame',
    files: [files.animatedWebp],
    check: async ({ result }) => {
      expect(await describeImage(outputOf(result))).toMatchObject({ width: 40, height: 30, frames: 1 });
      expect(near(await pixelAt(outputOf(result), 20, 15), [255, 0, 0, 255], 30)).toBe(true);
    },
  },
  { name: 'avif -> jpg', files: [files.redAvif], expectFormat: 'jpg' },
  { name: 'jpeg -> jpg', files: [files.redJpeg], expectFormat: 'jpg' },
]);

pluginConformanceSuite(converter('png'), [
  {
    name: 'svg -> png',
    files: [files.greenSvg],
    check: async ({ result }) => {
      expect(await describeImage(outputOf(result))).toMatchObject({ format: 'png', width: 80, height: 60 });
      expect(await pixelAt(outputOf(result), 0, 0)).toEqual([0, 255, 0, 255]);
    },
  },
  {
    name: 'animated gif -> png takes the first frame',
    files: [files.animatedGif],
    check: async ({ result }) => {
      expect(await describeImage(outputOf(result))).toMatchObject({ width: 40, height: 30, frames: 1 });
      expect(await pixelAt(outputOf(result), 5, 5)).toEqual([255, 0, 0, 255]);
    },
  },
  {
    name: 'tiff -> png',
    files: [files.redTiff],
    check: async ({ result }) => expect(near(await pixelAt(outputOf(result), 1, 1), [255, 0, 0, 255])).toBe(true),
  },
]);

pluginConformanceSuite(converter('gif'), [
  {
    name: 'animated webp -> gif keeps every frame',
    files: [files.animatedWebp],
    check: async ({ result }) => {
      expect(await describeImage(outputOf(result))).toMatchObject({ format: 'gif', width: 40, height: 30, frames: 3 });
    },
  },
  { name: 'jpg -> gif', files: [files.redJpg], expectFormat: 'gif' },
]);

pluginConformanceSuite(converter('avif'), [
  {
    name: 'png -> avif',
    files: [files.redPng],
    check: async ({ result }) => {
      expect(await describeImage(outputOf(result))).toMatchObject({ format: 'heif', width: 64, height: 48 });
      expect(near(await pixelAt(outputOf(result), 10, 10), [255, 0, 0, 255], 20)).toBe(true);
    },
  },
]);

pluginConformanceSuite(converter('tiff'), [
  {
    name: 'webp -> tiff',
    files: [files.redWebp],
    check: async ({ result }) => expect(await describeImage(outputOf(result))).toMatchObject({ format: 'tiff', width: 64, height: 48 }),
  },
]);

describe('image conversion', () => {
  it('offers every raster target from every input, except to itself', () => {
    expect(imageConvertPlugins.map((p) => p.id)).toEqual(['image-to-jpg', 'image-to-png', 'image-to-webp', 'image-to-avif', 'image-to-gif', 'image-to-tiff']);
    for (const plugin of imageConvertPlugins) expect(plugin.plan).toBe('free');
  });

  it('quality trades size: jpg at 10 is much smaller than at 95', async () => {
    const sizeAt = async (quality: number) => (await stat(outputOf((await runPlugin(converter('jpg'), [files.photoPng], { quality })).result))).size;
    const [low, high] = await Promise.all([sizeAt(10), sizeAt(95)]);
    expect(low * 3).toBeLessThan(high);
  });

  it('refuses quality outside 10-95', async () => {
    await expect(runPlugin(converter('webp'), [files.redPng], { quality: 5 })).rejects.toThrow('Invalid quality: must be an integer from 10 to 95');
    await expect(runPlugin(converter('webp'), [files.redPng], { quality: 96 })).rejects.toThrow(/quality/);
  });

  it('refuses content that is not the declared format', async () => {
    const run = runPlugin(converter('webp'), [files.pngNamedJpg]);
    await expect(run).rejects.toThrow(PluginError);
    await expect(run).rejects.toThrow('The file is not a JPG image (its content is PNG)');
  });

  it('refuses corrupt and truncated files with a clear message', async () => {
    await expect(runPlugin(converter('png'), [files.garbagePng])).rejects.toThrow('The file is not a readable PNG image');
    await expect(runPlugin(converter('png'), [files.truncatedJpg])).rejects.toThrow(/damaged or truncated/);
  });

  it('refuses a decompression bomb from its header', async () => {
    const run = runPlugin(converter('jpg'), [files.bombPng]);
    await expect(run).rejects.toThrow(PluginError);
    await expect(run).rejects.toThrow('Image is too large: 400 megapixels (limit 100)');
  });
});
