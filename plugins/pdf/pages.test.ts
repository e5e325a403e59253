/** Page operations: rotate, split, extract, delete and merge, checked by page count, order and rotation. */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFileResult } from '../../core/contract/index.js';
import { pluginConformanceSuite, runPlugin, type TestRun } from '../../core/contract/testing/index.js';
import { mergePdfPlugin } from './merge.js';
import { deletePagesPlugin, extractPagesPlugin } from './pages.js';
import { rotatePdfPlugin } from './rotate.js';
import { PdfFixtures, pageCount, pageRotations, pageTexts, unzip } from './shared/fixtures.js';
import { splitPdfPlugin } from './split.js';

const fixtures = new PdfFixtures();
beforeAll(() => fixtures.make(), 30_000);
afterAll(() => fixtures.cleanup());

const outputOf = (run: TestRun) => {
  if (!isFileResult(run.result)) throw new Error('expected a file');
  return run.result.path;
};
const pageLabels = (...pages: number[]) => pages.map((n) => `Page ${n}`);
const eight = fixtures.get('eight');

pluginConformanceSuite(rotatePdfPlugin, [
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
]);

pluginConformanceSuite(splitPdfPlugin, [
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
]);

pluginConformanceSuite(extractPagesPlugin, [
  {
    name: 'keeps the listed pages in document order',
    files: [eight],
    options: { pages: '8, 1-2, 5' },
    expectFormat: 'pdf',
    check: async (run) => expect(await pageTexts(outputOf(run))).toEqual(pageLabels(1, 2, 5, 8)),
  },
]);

pluginConformanceSuite(deletePagesPlugin, [
  {
    name: 'removes the listed pages',
    files: [eight],
    options: { pages: '1-3, 5, 8' },
    expectFormat: 'pdf',
    check: async (run) => expect(await pageTexts(outputOf(run))).toEqual(pageLabels(4, 6, 7)),
  },
]);

pluginConformanceSuite(mergePdfPlugin, [
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
]);

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
