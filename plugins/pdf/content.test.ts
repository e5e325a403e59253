/**
 * Content ops: compress, text, images, repair, clean-metadata; and the refusals every op shares
 * (encrypted input, a file that is not a PDF).
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFileResult } from '../../core/contract/index.js';
import { pluginConformanceSuite, runPlugin, type TestRun } from '../../core/contract/testing/index.js';
import { runProcess } from '../../core/engines/process.js';
import { pdfCleanMetadataPlugin } from './clean-metadata.js';
import { compressPdfPlugin } from './compress.js';
import { extractImagesPlugin } from './images.js';
import { pdfPlugins } from './index.js';
import { repairPdfPlugin } from './repair.js';
import {
  FIXTURE_AUTHOR,
  FIXTURE_TITLE,
  JPEG_SIZE,
  PNG_SIZE,
  PdfFixtures,
  objectsJson,
  pageCount,
  pageTexts,
  pdfInfo,
  unzip,
} from './shared/fixtures.js';
import { pdfToTextPlugin } from './text.js';

const fixtures = new PdfFixtures();
beforeAll(() => fixtures.make(), 30_000);
afterAll(() => fixtures.cleanup());

const outputOf = (run: TestRun) => {
  if (!isFileResult(run.result)) throw new Error('expected a file');
  return run.result.path;
};
const sizeOf = async (file: string) => (await stat(file)).size;

pluginConformanceSuite(compressPdfPlugin, [
  {
    name: 'a photo page gets smaller and keeps its page',
    files: [fixtures.get('photo')],
    expectFormat: 'pdf',
    async check(run) {
      const output = outputOf(run);
      expect(await sizeOf(output)).toBeLessThan((await sizeOf(fixtures.get('photo').path)) / 2);
      expect(await pageCount(output)).toBe(1);
    },
  },
  {
    name: 'a small text PDF is never made bigger',
    files: [fixtures.get('three')],
    expectFormat: 'pdf',
    async check(run) {
      const output = outputOf(run);
      expect(await sizeOf(output)).toBeLessThanOrEqual(await sizeOf(fixtures.get('three').path));
      expect(await pageTexts(output)).toEqual(['B Page 1', 'B Page 2', 'B Page 3']);
    },
  },
]);

pluginConformanceSuite(pdfToTextPlugin, [
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
]);

pluginConformanceSuite(extractImagesPlugin, [
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
]);

pluginConformanceSuite(repairPdfPlugin, [
  {
    name: 'a broken cross-reference table: a valid PDF with every page',
    files: [fixtures.get('damaged')],
    expectFormat: 'pdf',
    async check(run) {
      const output = outputOf(run);
      const { stdout } = await runProcess('qpdf', ['--check', output], { timeoutMs: 15_000 });
      expect(stdout).toMatch(/No syntax or stream encoding errors found/);
      expect(await pageTexts(output)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((n) => `Page ${n}`));
    },
  },
  {
    name: 'scripts that run on their own are removed',
    files: [fixtures.get('scripted')],
    expectFormat: 'pdf',
    async check(run) {
      const before = await objectsJson(fixtures.get('scripted').path);
      for (const key of ['"/OpenAction"', '"/AA"', '"/JavaScript"']) expect(before).toContain(key);
      const after = await objectsJson(outputOf(run));
      for (const key of ['"/OpenAction"', '"/AA"', '"/JavaScript"', 'app.alert']) expect(after).not.toContain(key);
      expect(await pageCount(outputOf(run))).toBe(3);
    },
  },
  {
    name: 'an "open at page 2" destination is not a script and stays',
    files: [fixtures.get('open-at-page')],
    async check(run) {
      expect(await objectsJson(outputOf(run))).toMatch(/"\/OpenAction": \[\s*"\d+ 0 R",\s*"\/Fit"\s*\]/);
    },
  },
]);

pluginConformanceSuite(pdfCleanMetadataPlugin, [
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
]);

describe('content ops refuse what they cannot do', () => {
  it('a PDF without embedded images', async () => {
    await expect(runPlugin(extractImagesPlugin, [fixtures.get('eight')])).rejects.toThrow(
      'The PDF has no embedded images',
    );
  });

  it('text from a scan', async () => {
    await expect(runPlugin(pdfToTextPlugin, [fixtures.get('scan')])).rejects.toThrow(
      'The PDF has no text layer (it may be scanned): run op ocr on it first',
    );
  });
});

describe('every op but unlock-pdf', () => {
  const optionsFor: Record<string, Record<string, unknown>> = {
    'rotate-pdf': { angle: 90 },
    'split-pdf': { split: { mode: 'pages' } },
    'extract-pages': { pages: '1' },
    'delete-pages': { pages: '1' },
    'protect-pdf': { password: 'x' },
    'pdf-to-pdfa': { pdfa: '2b' },
  };
  const ops = pdfPlugins.filter((plugin) => plugin.id !== 'unlock-pdf');
  const filesFor = (id: string, file: string) =>
    id === 'pdf-merge'
      ? [fixtures.get('two'), { path: file, format: 'pdf' as const }]
      : [{ path: file, format: 'pdf' as const }];

  it.each(ops.map((plugin) => [plugin.id, plugin] as const))(
    '%s refuses an encrypted PDF and a file that is not one',
    async (id, plugin) => {
      const prefix = id === 'pdf-merge' ? /^File 2 \(\w+\.pdf\): / : /^/;
      await expect(runPlugin(plugin, filesFor(id, fixtures.get('encrypted').path), optionsFor[id])).rejects.toThrow(
        new RegExp(`${prefix.source}The PDF is password-protected: unlock it first \\(op unlock-pdf\\)$`),
      );
      await expect(runPlugin(plugin, filesFor(id, fixtures.get('garbage').path), optionsFor[id])).rejects.toThrow(
        new RegExp(
          `${prefix.source}The file is not a readable PDF; it may be damaged or truncated \\(unable to find trailer dictionary while recovering damaged file\\)$`,
        ),
      );
    },
  );
});
