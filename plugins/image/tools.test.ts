import { stat } from 'node:fs/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plugin } from '../../core/contract/index.js';
import { parseOptions } from '../../core/contract/options.js';
import { pluginConformanceSuite, runPlugin, type TestRun } from '../../core/contract/testing/index.js';
import { commandExists, runProcess } from '../../core/engines/process.js';
import { cleanMetadataPlugin } from './clean-metadata/index.js';
import { compressPlugin } from './compress/index.js';
import { filterPlugins } from './filters/index.js';
import { resizePlugin } from './resize/index.js';
import { describeImage, imageFixtures, near, outputOf, pixelAt, type Sample } from './testing/fixtures.js';
import { standardPlugins } from '../index.js';

const fixtures = imageFixtures();
const { files } = fixtures;
beforeAll(fixtures.build);
afterAll(fixtures.cleanup);

const filter = (op: string): Plugin => filterPlugins.find((p) => p.op === op)!;
const sizeOf = async (file: string) => (await stat(file)).size;

/** A check that the output is smaller than the sample's input. */
const shrinks =
  (input: Sample) =>
  async ({ result }: TestRun) => {
    expect(await sizeOf(outputOf(result))).toBeLessThan(await sizeOf(input.path));
  };
const hasSize =
  (width: number, height: number, frames = 1) =>
  async ({ result }: TestRun) => {
    expect(await describeImage(outputOf(result))).toMatchObject({ width, height, frames });
  };

pluginConformanceSuite(
  compressPlugin,
  [
    {
      name: 'jpg at quality 30 is smaller',
      files: [files.photoJpg],
      options: { quality: 30 },
      expectFormat: 'jpg',
      check: shrinks(files.photoJpg),
    },
    {
      name: 'png by palette quantisation (default quality) is smaller',
      files: [files.photoPng],
      expectFormat: 'png',
      check: shrinks(files.photoPng),
    },
    {
      name: 'webp at quality 30 is smaller',
      files: [files.photoWebp],
      options: { quality: 30 },
      expectFormat: 'webp',
      check: shrinks(files.photoWebp),
    },
    {
      name: 'animated webp keeps its frames',
      files: [files.animatedWebp],
      options: { quality: 40 },
      check: async ({ result }) => expect((await describeImage(outputOf(result))).frames).toBe(3),
    },
    {
      name: 'never returns a larger file',
      files: [files.redJpg],
      options: { quality: 95 },
      check: async ({ result }) =>
        expect(await sizeOf(outputOf(result))).toBeLessThanOrEqual(await sizeOf(files.redJpg.path)),
    },
  ],
  { against: standardPlugins },
);

pluginConformanceSuite(
  resizePlugin,
  [
    {
      name: 'cover gives the exact box',
      files: [files.redPng],
      options: { resize: { width: 32, height: 32, fit: 'cover' } },
      expectFormat: 'png',
      check: hasSize(32, 32),
    },
    {
      name: 'inside fits within the box, keeping the ratio',
      files: [files.redPng],
      options: { resize: { width: 32, height: 32, fit: 'inside' } },
      check: hasSize(32, 24),
    },
    {
      name: 'inside is the default fit',
      files: [files.redPng],
      options: { resize: { width: 32, height: 32 } },
      check: hasSize(32, 24),
    },
    {
      name: 'fill stretches to the exact box',
      files: [files.redPng],
      options: { resize: { width: 100, height: 20, fit: 'fill' } },
      check: hasSize(100, 20),
    },
    {
      name: 'width alone keeps the ratio',
      files: [files.redJpg],
      options: { resize: { width: 32 } },
      expectFormat: 'jpg',
      check: hasSize(32, 24),
    },
    {
      name: 'contain pads a png with transparency',
      files: [files.redPng],
      options: { resize: { width: 32, height: 32, fit: 'contain' } },
      check: async (run) => {
        await hasSize(32, 32)(run);
        expect((await pixelAt(outputOf(run.result), 16, 0))[3]).toBe(0);
        expect(await pixelAt(outputOf(run.result), 16, 16)).toEqual([255, 0, 0, 255]);
      },
    },
    {
      name: 'contain pads a jpg with white',
      files: [files.redJpg],
      options: { resize: { width: 32, height: 32, fit: 'contain' }, quality: 90 },
      check: async (run) => {
        await hasSize(32, 32)(run);
        expect(near(await pixelAt(outputOf(run.result), 16, 0), [255, 255, 255, 255])).toBe(true);
        expect(near(await pixelAt(outputOf(run.result), 16, 16), [255, 0, 0, 255], 30)).toBe(true);
      },
    },
    {
      name: 'animated gif keeps every frame',
      files: [files.animatedGif],
      options: { resize: { width: 20, height: 20, fit: 'cover' } },
      check: hasSize(20, 20, 3),
    },
    { name: 'tiff', files: [files.redTiff], options: { resize: { height: 24 } }, check: hasSize(32, 24) },
    { name: 'avif', files: [files.redAvif], options: { resize: { height: 24 } }, check: hasSize(32, 24) },
  ],
  { against: standardPlugins },
);

/** Every sampled pixel has r = g = b. */
async function isGray(file: string): Promise<boolean> {
  const { data, info } = await sharp(file)
    .toColourspace('srgb')
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  for (let i = 0; i < data.length; i += info.channels * 97)
    if (data[i] !== data[i + 1] || data[i] !== data[i + 2]) return false;
  return true;
}

pluginConformanceSuite(
  filter('grayscale'),
  [
    {
      name: 'png photo has r = g = b',
      files: [files.photoPng],
      expectFormat: 'png',
      check: async ({ result }) => expect(await isGray(outputOf(result))).toBe(true),
    },
    { name: 'jpg stays jpg', files: [files.photoJpg], expectFormat: 'jpg' },
    { name: 'animated gif keeps every frame', files: [files.animatedGif], check: hasSize(40, 30, 3) },
    { name: 'webp, tiff and avif are accepted', files: [files.redWebp] },
    { name: 'tiff', files: [files.redTiff], expectFormat: 'tiff' },
  ],
  { against: standardPlugins },
);

pluginConformanceSuite(
  filter('sepia'),
  [
    {
      name: 'red takes the sepia tone (r > g > b)',
      files: [files.redPng],
      check: async ({ result }) =>
        expect(near(await pixelAt(outputOf(result), 5, 5), [100, 89, 69, 255], 2)).toBe(true),
    },
    { name: 'avif', files: [files.redAvif], expectFormat: 'avif' },
  ],
  { against: standardPlugins },
);

pluginConformanceSuite(
  filter('invert'),
  [
    {
      name: 'red becomes cyan',
      files: [files.redPng],
      check: async ({ result }) => expect(await pixelAt(outputOf(result), 5, 5)).toEqual([0, 255, 255, 255]),
    },
    {
      name: 'transparency is kept',
      files: [files.transparentPng],
      check: async ({ result }) => {
        expect((await pixelAt(outputOf(result), 1, 1))[3]).toBe(0);
        expect(await pixelAt(outputOf(result), 32, 24)).toEqual([0, 255, 255, 255]);
      },
    },
    { name: 'gif', files: [files.redGif], expectFormat: 'gif' },
  ],
  { against: standardPlugins },
);

/** Everything exiftool finds, as one string (empty when exiftool is not installed). */
async function exiftoolDump(file: string): Promise<string> {
  return (await runProcess('exiftool', ['-json', '-a', '-G1', file], { timeoutMs: 15_000 })).stdout;
}
const hasExiftool = await commandExists('exiftool');
const SECRETS = ['Acme', 'Spy 1', 'Jane Secret', 'Secret Street', 'GPSLatitude', 'GPSLongitude'];

const metadataGone = async ({ result }: TestRun) => {
  const out = outputOf(result);
  const meta = await sharp(out).metadata();
  expect({ exif: meta.exif, xmp: meta.xmp, iptc: meta.iptc, icc: meta.icc, comments: meta.comments }).toEqual({
    exif: undefined,
    xmp: undefined,
    iptc: undefined,
    icc: undefined,
    comments: undefined,
  });
  if (hasExiftool) {
    const dump = await exiftoolDump(out);
    for (const secret of SECRETS) expect(dump).not.toContain(secret);
  }
};

pluginConformanceSuite(
  cleanMetadataPlugin,
  [
    {
      name: 'jpg: EXIF, GPS, XMP and ICC gone, orientation applied to the pixels',
      files: [files.exifJpg],
      expectFormat: 'jpg',
      check: async (run) => {
        await metadataGone(run);
        const out = outputOf(run.result);
        expect(await describeImage(out)).toMatchObject({ width: 20, height: 40 });
        // The blue left quarter of the stored 40x20 picture is its top when shown rotated.
        expect(near(await pixelAt(out, 10, 3), [0, 0, 255, 255], 40)).toBe(true);
        expect(near(await pixelAt(out, 10, 30), [255, 0, 0, 255], 40)).toBe(true);
      },
    },
    {
      name: 'png: EXIF, GPS, XMP and text chunks gone',
      files: [files.exifPng],
      expectFormat: 'png',
      check: metadataGone,
    },
    { name: 'webp: EXIF, GPS and XMP gone', files: [files.exifWebp], expectFormat: 'webp', check: metadataGone },
    { name: 'animated gif keeps every frame', files: [files.animatedGif], check: hasSize(40, 30, 3) },
  ],
  { against: standardPlugins },
);

describe('image tools', () => {
  it('the fixtures really carry the metadata the tests expect to vanish', async () => {
    const meta = await sharp(files.exifJpg.path).metadata();
    expect([meta.orientation, !!meta.exif, !!meta.xmp, !!meta.icc]).toEqual([6, true, true, true]);
    if (hasExiftool) {
      const dump = await exiftoolDump(files.exifPng.path);
      for (const secret of SECRETS) expect(dump).toContain(secret);
    }
  });

  it('are Pro ops, in place', () => {
    for (const plugin of [compressPlugin, resizePlugin, cleanMetadataPlugin, ...filterPlugins]) {
      expect([plugin.kind, plugin.plan, plugin.outputs]).toEqual(['tool', 'pro', undefined]);
    }
    expect(filterPlugins.map((p) => p.op)).toEqual(['grayscale', 'sepia', 'invert']);
  });

  it('refuse a decompression bomb', async () => {
    await expect(runPlugin(resizePlugin, [files.bombPng], { resize: { width: 10 } })).rejects.toThrow(
      'Image is too large: 400 megapixels (limit 100)',
    );
  });

  it('refuse corrupt and mislabelled files', async () => {
    await expect(runPlugin(compressPlugin, [files.garbagePng])).rejects.toThrow('The file is not a readable PNG image');
    await expect(runPlugin(filter('invert'), [files.truncatedJpg])).rejects.toThrow(/damaged or truncated/);
    await expect(runPlugin(cleanMetadataPlugin, [files.pngNamedJpg])).rejects.toThrow(
      'The file is not a JPG image (its content is PNG)',
    );
  });
});

describe('tool options from the wire', () => {
  const parse = (plugin: Plugin, raw: Record<string, string>) =>
    parseOptions(plugin.options, raw, { fromStrings: true, operation: plugin.op! });

  it('compress: quality 10-95, default 75', () => {
    expect(parse(compressPlugin, {})).toEqual({ ok: true, value: { quality: 75 } });
    expect(parse(compressPlugin, { quality: '10' })).toEqual({ ok: true, value: { quality: 10 } });
    expect(parse(compressPlugin, { quality: '9' })).toEqual({
      ok: false,
      error: 'Invalid quality: must be an integer from 10 to 95',
    });
    expect(parse(compressPlugin, { quality: '50.5' })).toEqual({
      ok: false,
      error: 'Invalid quality: must be a whole number in decimal digits',
    });
    expect(parse(compressPlugin, { quality: 'high' })).toEqual({
      ok: false,
      error: 'Invalid quality: must be a whole number in decimal digits',
    });
    expect(parse(compressPlugin, { quality: '0x32' })).toEqual({
      ok: false,
      error: 'Invalid quality: must be a whole number in decimal digits',
    });
  });

  it('resize: a JSON box with width and/or height 1-10000 and a fit', () => {
    expect(parse(resizePlugin, { resize: '{"width":300}' })).toEqual({
      ok: true,
      value: { resize: { width: 300, fit: 'inside' }, quality: 80 },
    });
    expect(parse(resizePlugin, { resize: '{"width":300,"height":200,"fit":"cover"}', quality: '60' })).toEqual({
      ok: true,
      value: { resize: { width: 300, height: 200, fit: 'cover' }, quality: 60 },
    });
    expect(parse(resizePlugin, {})).toMatchObject({ ok: false, error: expect.stringMatching(/^Invalid resize/) });
    expect(parse(resizePlugin, { resize: 'width=300' })).toEqual({ ok: false, error: 'resize must be a JSON string' });
    expect(parse(resizePlugin, { resize: '{"fit":"cover"}' })).toEqual({
      ok: false,
      error: 'Invalid resize: width or height is required',
    });
    expect(parse(resizePlugin, { resize: '{"width":0}' })).toEqual({
      ok: false,
      error: 'Invalid resize.width: must be an integer from 1 to 10000',
    });
    expect(parse(resizePlugin, { resize: '{"height":10001}' })).toEqual({
      ok: false,
      error: 'Invalid resize.height: must be an integer from 1 to 10000',
    });
    expect(parse(resizePlugin, { resize: '{"width":10,"fit":"stretch"}' })).toEqual({
      ok: false,
      error: 'Invalid resize.fit: must be one of cover, contain, inside, fill',
    });
    expect(parse(resizePlugin, { resize: '{"width":10,"widht":20}' })).toMatchObject({
      ok: false,
      error: expect.stringContaining('widht'),
    });
  });

  it('filters and clean-metadata take no options', () => {
    expect(parse(filter('sepia'), { quality: '50' })).toEqual({
      ok: false,
      error: "Field 'quality' does not apply to sepia",
    });
    expect(parse(cleanMetadataPlugin, {})).toEqual({ ok: true, value: {} });
  });
});
