import { readFile } from 'node:fs/promises';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pluginConformanceSuite, runPlugin } from '../../../core/contract/testing/index.js';
import { imageToPdfPlugin } from './index.js';
import { imageFixtures, outputOf } from '../testing/fixtures.js';
import { standardPlugins } from '../../index.js';

const fixtures = imageFixtures();
const { files } = fixtures;
beforeAll(fixtures.build);
afterAll(fixtures.cleanup);

/** Each page's [width, height] in points. */
async function pageSizes(file: string): Promise<Array<[number, number]>> {
  const pdf = await PDFDocument.load(await readFile(file));
  return pdf.getPages().map((page) => {
    const { width, height } = page.getSize();
    return [width, height];
  });
}

pluginConformanceSuite(
  imageToPdfPlugin,
  [
    {
      name: 'png -> one page at the pixel size',
      files: [files.redPng],
      expectFormat: 'pdf',
      check: async ({ result }) => expect(await pageSizes(outputOf(result))).toEqual([[64, 48]]),
    },
    {
      name: 'jpg photo -> pdf',
      files: [files.photoJpg],
      check: async ({ result }) => expect(await pageSizes(outputOf(result))).toEqual([[320, 240]]),
    },
    {
      name: 'animated gif -> one page of the first frame',
      files: [files.animatedGif],
      check: async ({ result }) => expect(await pageSizes(outputOf(result))).toEqual([[40, 30]]),
    },
    {
      name: 'svg -> pdf',
      files: [files.greenSvg],
      check: async ({ result }) => expect(await pageSizes(outputOf(result))).toEqual([[80, 60]]),
    },
    {
      name: 'EXIF orientation is applied (40x20 rotated to 20x40)',
      files: [files.exifJpg],
      check: async ({ result }) => expect(await pageSizes(outputOf(result))).toEqual([[20, 40]]),
    },
    { name: 'transparent png (embedded as PNG)', files: [files.transparentPng] },
    { name: 'avif -> pdf', files: [files.redAvif] },
  ],
  { against: standardPlugins },
);

describe('image to pdf', () => {
  it('embeds photos as JPEG at the requested quality', async () => {
    const sizeAt = async (quality: number) =>
      (await readFile(outputOf((await runPlugin(imageToPdfPlugin, [files.photoJpg], { quality })).result))).length;
    expect((await sizeAt(10)) * 3).toBeLessThan(await sizeAt(95));
  });

  it('refuses a corrupt image', async () => {
    await expect(runPlugin(imageToPdfPlugin, [files.garbagePng])).rejects.toThrow(
      'The file is not a readable PNG image',
    );
  });
});
