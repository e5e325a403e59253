/** split-pdf: one PDF per page or per range, checked by page text. */
import path from 'node:path';
import { expect } from 'vitest';
import { pluginConformanceSuite } from '../../../core/contract/testing/index.js';
import { pdfTestFixtures, pageCount, pageTexts, unzip, outputOf } from '../testing/fixtures.js';
import { splitPdfPlugin } from './index.js';
import { standardPlugins } from '../../index.js';

const fixtures = pdfTestFixtures();
const pageLabels = (...pages: number[]) => pages.map((n) => `Page ${n}`);
const eight = fixtures.get('eight');

pluginConformanceSuite(
  splitPdfPlugin,
  [
    {
      name: 'one PDF per page',
      files: [eight],
      options: { split: { mode: 'pages' } },
      expectFormat: 'zip',
      async check(run) {
        const entries = await unzip(outputOf(run), path.join(run.workDir, 'unzipped'));
        expect(entries.map((e) => e.name)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((n) => `eight-p${n}.pdf`));
        for (const [i, entry] of entries.entries()) expect(await pageTexts(entry.path)).toEqual(pageLabels(i + 1));
      },
    },
    {
      name: 'one PDF per range',
      files: [eight],
      options: { split: { mode: 'ranges', ranges: '1-3,4,5-8' } },
      expectFormat: 'zip',
      async check(run) {
        const entries = await unzip(outputOf(run), path.join(run.workDir, 'unzipped'));
        expect(entries.map((e) => e.name)).toEqual(['eight-1-3.pdf', 'eight-4.pdf', 'eight-5-8.pdf']);
        expect(await Promise.all(entries.map((e) => pageCount(e.path)))).toEqual([3, 1, 4]);
        expect(await pageTexts(entries[2]!.path)).toEqual(pageLabels(5, 6, 7, 8));
      },
    },
  ],
  { against: standardPlugins },
);
