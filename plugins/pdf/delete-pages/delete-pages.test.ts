/** delete-pages: the other pages, in document order. */
import { expect } from 'vitest';
import { pluginConformanceSuite } from '../../../core/contract/testing/index.js';
import { deletePagesPlugin } from './index.js';
import { pdfTestFixtures, pageTexts, outputOf } from '../testing/fixtures.js';
import { standardPlugins } from '../../index.js';

const fixtures = pdfTestFixtures();
const pageLabels = (...pages: number[]) => pages.map((n) => `Page ${n}`);
const eight = fixtures.get('eight');

pluginConformanceSuite(
  deletePagesPlugin,
  [
    {
      name: 'removes the listed pages',
      files: [eight],
      options: { pages: '1-3, 5, 8' },
      expectFormat: 'pdf',
      check: async (run) => expect(await pageTexts(outputOf(run))).toEqual(pageLabels(4, 6, 7)),
    },
  ],
  { against: standardPlugins },
);
