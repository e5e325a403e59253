/**
 * Images as data through the conformance kit (what a third-party reader runs too): a real bilevel
 * TIFF scan (tesseract's phototest.tif) and the same scan as WebP read into the model through
 * OCR, its text and its box on a page sized from the image's resolution; chunks and Markdown from
 * the same model; a file that is not the image its format names is refused with a message.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { PluginError } from '../../../core/contract/index.js';
import { pluginConformanceSuite, runPlugin, type TestRun } from '../../../core/contract/testing/index.js';
import type { Document } from '../../../schema/index.js';
import { standardPlugins } from '../../index.js';
import { imageChunkPlugin } from '../image-chunk/index.js';
import { imageRenderPlugin } from '../image-render/index.js';
import { expectBoxedWithinPages } from '../testing/boxes.js';
import { imageStructurePlugin } from './index.js';

const TIFF = path.resolve(import.meta.dirname, '../../../test/fixtures/documents/phototest.tif');
const dir = await mkdtemp(path.join(os.tmpdir(), 'image-structure-'));
afterAll(() => rm(dir, { recursive: true, force: true }));
const WEBP = path.join(dir, 'phototest.webp');
await sharp(TIFF).webp({ lossless: true }).toFile(WEBP);

const FIRST = 'This is a lot of 12 point text to test the ocr code and see if it works on all types of file format.';
const FOX = 'The quick brown dog jumped over the lazy fox.';

async function model(run: TestRun): Promise<Document> {
  return JSON.parse(await readFile((run.result as { path: string }).path, 'utf8')) as Document;
}

/**
 * The scan's one paragraph: its text, and its box on the page its resolution makes of 640 x 480 px (the TIFF says
 * 200 dpi; WebP holds no resolution, so its pixels are points, as a 72 dpi image's).
 */
const expectPhototest = (dpi: number) => async (run: TestRun) => {
  const document = await model(run);
  const points = (px: number) => Math.round(((px * 72) / dpi) * 100) / 100;
  expect(document.pages).toEqual([{ number: 1, width: points(640), height: points(480) }]);
  expectBoxedWithinPages(document);
  const text = document.body.map((b) => ('text' in b ? b.text : '')).join(' ');
  expect(text.startsWith(FIRST)).toBe(true);
  expect(text.split(FOX)).toHaveLength(5);
  // The text block starts about 85 px from the top and 36 px from the left.
  const box = document.body[0]!.box!;
  expect(box.x0).toBeGreaterThan(points(25));
  expect(box.x0).toBeLessThan(points(45));
  expect(box.y0).toBeGreaterThan(points(65));
  expect(box.y0).toBeLessThan(points(95));
};

pluginConformanceSuite(
  imageStructurePlugin,
  [
    { name: 'a TIFF scan', files: [{ path: TIFF, format: 'tiff' }], expectFormat: 'json', check: expectPhototest(200) },
    { name: 'a WebP scan', files: [{ path: WEBP, format: 'webp' }], expectFormat: 'json', check: expectPhototest(72) },
  ],
  { against: standardPlugins },
);

pluginConformanceSuite(
  imageChunkPlugin,
  [
    {
      name: 'a TIFF scan in chunks of 32 words',
      files: [{ path: TIFF, format: 'tiff' }],
      options: { maxTokens: 32 },
      expectFormat: 'jsonl',
      check: async (run) => {
        const chunks = (await readFile((run.result as { path: string }).path, 'utf8'))
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line));
        expect(chunks.length).toBeGreaterThan(1);
        for (const chunk of chunks) {
          expect(chunk.tokens).toBeLessThanOrEqual(32);
          expect(chunk.pages).toEqual({ first: 1, last: 1 });
        }
      },
    },
  ],
  { against: standardPlugins },
);

pluginConformanceSuite(
  imageRenderPlugin,
  [
    {
      name: 'a TIFF scan to Markdown',
      files: [{ path: TIFF, format: 'tiff' }],
      target: 'md',
      expectFormat: 'md',
      check: async (run) => {
        const markdown = await readFile((run.result as { path: string }).path, 'utf8');
        expect(markdown).toContain(FIRST);
      },
    },
  ],
  { against: standardPlugins },
);

describe('image structure on bad input', () => {
  it('refuses a TIFF that is a PNG, and a PNG that is text, with a message naming the format', async () => {
    const png = path.join(dir, 'really-a.png');
    await sharp(TIFF).png().toFile(png);
    await expect(runPlugin(imageStructurePlugin, [{ path: png, format: 'tiff' }])).rejects.toThrow(
      new PluginError('The file is not a TIFF image (its content is PNG)'),
    );
    const notPng = path.join(dir, 'not.png');
    await writeFile(notPng, 'plain text');
    await expect(runPlugin(imageStructurePlugin, [{ path: notPng, format: 'png' }])).rejects.toThrow(
      'The file is not a readable PNG image',
    );
  }, 60_000);
});
