/** merge-pdf: several PDFs into one, in the order given. */
import { expect } from 'vitest';
import { pluginConformanceSuite } from '../../../core/contract/testing/index.js';
import { mergePdfPlugin } from './index.js';
import { pdfTestFixtures, pageTexts, outputOf } from '../testing/fixtures.js';
import { standardPlugins } from '../../index.js';

const fixtures = pdfTestFixtures();
const pageLabels = (...pages: number[]) => pages.map((n) => `Page ${n}`);
const eight = fixtures.get('eight');

pluginConformanceSuite(
  mergePdfPlugin,
  [
    {
      name: 'three PDFs in the order given',
      files: [fixtures.get('three'), eight, fixtures.get('two')],
      expectFormat: 'pdf',
      async check(run) {
        expect(await pageTexts(outputOf(run))).toEqual([
          ...['B Page 1', 'B Page 2', 'B Page 3'],
          ...pageLabels(1, 2, 3, 4, 5, 6, 7, 8),
          'C Page 1',
          'C Page 2',
        ]);
      },
    },
  ],
  { against: standardPlugins },
);
