/** extract-pages: the listed pages, in document order. */
import { expect } from 'vitest';
import { pluginConformanceSuite } from '../../../core/contract/testing/index.js';
import { extractPagesPlugin } from './index.js';
import { pdfTestFixtures, pageTexts, outputOf } from '../testing/fixtures.js';
import { standardPlugins } from '../../index.js';

const fixtures = pdfTestFixtures();
const pageLabels = (...pages: number[]) => pages.map((n) => `Page ${n}`);
const eight = fixtures.get('eight');

pluginConformanceSuite(
  extractPagesPlugin,
  [
    {
      name: 'keeps the listed pages in document order',
      files: [eight],
      options: { pages: '8, 1-2, 5' },
      expectFormat: 'pdf',
      check: async (run) => expect(await pageTexts(outputOf(run))).toEqual(pageLabels(1, 2, 5, 8)),
    },
  ],
  { against: standardPlugins },
);
