/** rotate-pdf: every page turned, page order kept. */
import { expect } from 'vitest';
import { pluginConformanceSuite } from '../../../core/contract/testing/index.js';
import { rotatePdfPlugin } from './index.js';
import { pdfTestFixtures, pageRotations, pageTexts, outputOf } from '../testing/fixtures.js';
import { standardPlugins } from '../../index.js';

const fixtures = pdfTestFixtures();
const pageLabels = (...pages: number[]) => pages.map((n) => `Page ${n}`);
const eight = fixtures.get('eight');

pluginConformanceSuite(
  rotatePdfPlugin,
  [
    {
      name: '90 degrees clockwise on every page',
      files: [eight],
      options: { angle: 90 },
      expectFormat: 'pdf',
      async check(run) {
        expect(await pageRotations(outputOf(run))).toEqual(Array(8).fill(90));
        expect(await pageTexts(outputOf(run))).toEqual(pageLabels(1, 2, 3, 4, 5, 6, 7, 8));
      },
    },
  ],
  { against: standardPlugins },
);
