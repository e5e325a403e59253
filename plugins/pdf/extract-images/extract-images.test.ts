/** extract-images: each embedded image once, JPEG kept as JPEG. */
import path from 'node:path';
import sharp from 'sharp';
import { expect } from 'vitest';
import { pluginConformanceSuite } from '../../../core/contract/testing/index.js';
import { extractImagesPlugin } from './index.js';
import { JPEG_SIZE, PNG_SIZE, pdfTestFixtures, unzip, outputOf } from '../testing/fixtures.js';
import { standardPlugins } from '../../index.js';

const fixtures = pdfTestFixtures();

pluginConformanceSuite(
  extractImagesPlugin,
  [
    {
      name: 'each embedded image once, JPEG kept as JPEG',
      files: [fixtures.get('images')],
      expectFormat: 'zip',
      async check(run) {
        const entries = await unzip(outputOf(run), path.join(run.workDir, 'unzipped'));
        expect(entries.map((e) => e.name).sort()).toEqual(['images-p1-1.png', 'images-p1-2.jpg']);
        const sizes = Object.fromEntries(
          await Promise.all(
            entries.map(async (e) => {
              const meta = await sharp(e.path).metadata();
              return [meta.format, { width: meta.width, height: meta.height }] as const;
            }),
          ),
        );
        expect(sizes).toEqual({ png: PNG_SIZE, jpeg: JPEG_SIZE });
      },
    },
  ],
  { against: standardPlugins },
);
