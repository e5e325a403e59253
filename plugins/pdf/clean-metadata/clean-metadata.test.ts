/** clean-metadata for PDF: information dictionary and XMP gone, pages intact. */
import { readFile } from 'node:fs/promises';
import { expect } from 'vitest';
import { pluginConformanceSuite } from '../../../core/contract/testing/index.js';
import { pdfCleanMetadataPlugin } from './index.js';
import { FIXTURE_AUTHOR, FIXTURE_TITLE, pdfTestFixtures, pageCount, pdfInfo, outputOf } from '../testing/fixtures.js';
import { standardPlugins } from '../../index.js';

const fixtures = pdfTestFixtures();

pluginConformanceSuite(
  pdfCleanMetadataPlugin,
  [
    {
      name: 'information dictionary and XMP are gone, pages intact',
      files: [fixtures.get('eight')],
      expectFormat: 'pdf',
      async check(run) {
        const output = outputOf(run);
        expect(await pdfInfo(fixtures.get('eight').path)).toMatchObject({
          Title: FIXTURE_TITLE,
          Author: FIXTURE_AUTHOR,
          'Metadata Stream': 'yes',
        });
        const info = await pdfInfo(output);
        expect([info.Title, info.Author, info.Producer, info.Creator]).toEqual([
          undefined,
          undefined,
          undefined,
          undefined,
        ]);
        expect(info['Metadata Stream']).toBe('no');
        const bytes = await readFile(output);
        for (const secret of [FIXTURE_AUTHOR, FIXTURE_TITLE, 'xmpmeta']) expect(bytes.includes(secret)).toBe(false);
        expect(await pageCount(output)).toBe(8);
      },
    },
  ],
  { against: standardPlugins },
);
