/** pdf-to-text: the text layer in reading order; a scan is refused. */
import { readFile } from 'node:fs/promises';
import { expect } from 'vitest';
import { pluginConformanceSuite } from '../../../core/contract/testing/index.js';
import { pdfTestFixtures, outputOf } from '../testing/fixtures.js';
import { pdfToTextPlugin } from './index.js';
import { standardPlugins } from '../../index.js';

const fixtures = pdfTestFixtures();

pluginConformanceSuite(
  pdfToTextPlugin,
  [
    {
      name: 'the text of every page, pages separated by form feeds',
      files: [fixtures.get('eight')],
      expectFormat: 'txt',
      async check(run) {
        const text = await readFile(outputOf(run), 'utf8');
        expect(
          text
            .split('\f')
            .map((page) => page.trim())
            .filter(Boolean),
        ).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((n) => `Page ${n}`));
      },
    },
  ],
  { against: standardPlugins },
);
