/** What the page operations refuse: missing pages, every page deleted, bad options, bad merges. */
import { describe, expect, it } from 'vitest';
import { runPlugin } from '../../core/contract/testing/index.js';
import { mergePdfPlugin } from './merge-pdf/index.js';
import { deletePagesPlugin } from './delete-pages/index.js';
import { extractPagesPlugin } from './extract-pages/index.js';
import { rotatePdfPlugin } from './rotate-pdf/index.js';
import { pdfTestFixtures } from './testing/fixtures.js';
import { splitPdfPlugin } from './split-pdf/index.js';

const fixtures = pdfTestFixtures();
const eight = fixtures.get('eight');

describe('page operations refuse what they cannot do', () => {
  it('a page past the end, naming it', async () => {
    await expect(runPlugin(splitPdfPlugin, [eight], { split: { mode: 'ranges', ranges: '1-3,9' } })).rejects.toThrow(
      'page 9 does not exist: the PDF has 8 pages',
    );
    await expect(runPlugin(extractPagesPlugin, [eight], { pages: '7-12' })).rejects.toThrow(
      'page 12 does not exist: the PDF has 8 pages',
    );
  });

  it('deleting every page', async () => {
    await expect(runPlugin(deletePagesPlugin, [eight], { pages: '1-8' })).rejects.toThrow(
      'Deleting pages 1-8 would remove every page of the PDF',
    );
  });

  it('bad options before running', async () => {
    await expect(runPlugin(rotatePdfPlugin, [eight], { angle: 45 })).rejects.toThrow(
      'Invalid angle: must be 90, 180 or 270',
    );
    await expect(runPlugin(rotatePdfPlugin, [eight], {})).rejects.toThrow(
      'Invalid angle: is required (90, 180 or 270)',
    );
    await expect(runPlugin(splitPdfPlugin, [eight], { split: { mode: 'ranges', ranges: '1-2,1-2' } })).rejects.toThrow(
      'range 1-2 is listed twice',
    );
    await expect(runPlugin(splitPdfPlugin, [eight], { split: { mode: 'chapters' } })).rejects.toThrow(/Invalid split/);
    await expect(runPlugin(deletePagesPlugin, [eight], { pages: '3-1' })).rejects.toThrow(
      'Invalid pages: range 3-1 runs backwards; write 1-3',
    );
  });

  it('merging one file, or an encrypted one, naming it', async () => {
    await expect(runPlugin(mergePdfPlugin, [eight])).rejects.toThrow('Merging takes 2 to 50 PDFs (got 1)');
    await expect(runPlugin(mergePdfPlugin, [eight, fixtures.get('encrypted')])).rejects.toThrow(
      'File 2 (encrypted.pdf): The PDF is password-protected: unlock it first (op unlock-pdf)',
    );
  });
});
