/** compress-pdf: smaller files, every page kept, the text intact. */
import { rm, stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { pluginConformanceSuite, runPlugin } from '../../../core/contract/testing/index.js';
import { PHOTO_CAPTION, pdfTestFixtures, pageCount, pageTexts, outputOf } from '../testing/fixtures.js';
import { compressPdfPlugin } from './index.js';
import { imageSettings } from './run.js';
import { standardPlugins } from '../../index.js';

const fixtures = pdfTestFixtures();
const sizeOf = async (file: string) => (await stat(file)).size;

pluginConformanceSuite(
  compressPdfPlugin,
  [
    {
      name: 'a photo page gets smaller and keeps its page',
      files: [fixtures.get('photo')],
      expectFormat: 'pdf',
      async check(run) {
        const output = outputOf(run);
        expect(await sizeOf(output)).toBeLessThan((await sizeOf(fixtures.get('photo').path)) / 2);
        expect(await pageCount(output)).toBe(1);
      },
    },
    {
      name: 'a small text PDF is never made bigger',
      files: [fixtures.get('three')],
      expectFormat: 'pdf',
      async check(run) {
        const output = outputOf(run);
        expect(await sizeOf(output)).toBeLessThanOrEqual(await sizeOf(fixtures.get('three').path));
        expect(await pageTexts(output)).toEqual(['B Page 1', 'B Page 2', 'B Page 3']);
      },
    },
  ],
  { against: standardPlugins },
);

describe('compress-pdf quality', () => {
  it('30 gives a smaller file than 90 on a photo, and the text stays', async () => {
    const photo = fixtures.get('captioned-photo');
    const sizes: Record<number, number> = {};
    for (const quality of [30, 90]) {
      const run = await runPlugin(compressPdfPlugin, [photo], { quality });
      try {
        const output = outputOf(run);
        sizes[quality] = await sizeOf(output);
        expect(await pageTexts(output)).toEqual([PHOTO_CAPTION]);
      } finally {
        await rm(run.workDir, { recursive: true, force: true });
      }
    }
    expect(sizes[30]).toBeLessThan(sizes[90]!);
    // At 90 the re-encoded photo is no smaller than this 270 dpi JPEG at quality 95: the original comes back.
    expect(sizes[90]).toBeLessThanOrEqual(await sizeOf(photo.path));
  });

  it('maps quality onto image resolution and JPEG quality, both rising with it', () => {
    expect(imageSettings(10)).toEqual({ dpi: 72, qFactor: 5 });
    expect(imageSettings(95)).toEqual({ dpi: 300, qFactor: 0.1 });
    expect(imageSettings(30).dpi).toBeLessThan(imageSettings(90).dpi);
    expect(imageSettings(30).qFactor).toBeGreaterThan(imageSettings(90).qFactor);
  });

  it('refuses a quality outside 10-95 before running', async () => {
    for (const quality of [5, 96, 50.5])
      await expect(runPlugin(compressPdfPlugin, [fixtures.get('photo')], { quality })).rejects.toThrow(
        'Invalid quality: must be an integer from 10 to 95',
      );
  });
});
