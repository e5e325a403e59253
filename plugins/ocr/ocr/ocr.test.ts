/**
 * ocr on generated scans with the real engines: English, French with accents, German with ß,
 * Japanese (searched without the spaces OCR puts between words), a PDF with a text page kept as
 * it is, page images kept bit for bit, the option's validation and the deadline by page count.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFileResult, PluginError } from '../../../core/contract/index.js';
import { parseOptions } from '../../../core/contract/options.js';
import { pluginConformanceSuite, runPlugin, type TestRun } from '../../../core/contract/testing/index.js';
import { OCRMYPDF } from '../../../core/engines/ocrmypdf.js';
import {
  imageList,
  imagePixels,
  imageStreams,
  mixedPdf,
  oneLine,
  pdfText,
  scannedPdf,
  withoutSpaces,
} from '../testing/fixtures.js';
import { ocrPlugin } from './index.js';
import { estimatePages, ocrTimeoutMs } from '../shared/limits.js';
import { standardPlugins } from '../../index.js';

const dir = await mkdtemp(path.join(os.tmpdir(), 'ocr-test-'));
const file = (name: string) => ({ path: path.join(dir, name), format: 'pdf' as const });
afterAll(() => rm(dir, { recursive: true, force: true }));

const ENGLISH = ['The quick brown fox jumps', 'over the lazy dog 2024'];
const FRENCH = ['Le garçon mangeait des crêpes', "à côté de l'hôpital"];
const GERMAN = ['Die Straße ist heiß', 'Größe und Übermaß'];
const JAPANESE = ['東京都の天気は晴れです'];

beforeAll(async () => {
  await Promise.all([
    scannedPdf(file('eng.pdf').path, [ENGLISH]),
    scannedPdf(file('fra.pdf').path, [FRENCH]),
    scannedPdf(file('deu.pdf').path, [GERMAN]),
    scannedPdf(file('jpn.pdf').path, [JAPANESE], 'IPAGothic'),
    scannedPdf(file('two.pdf').path, [['First scanned page'], ['Second scanned page']]),
    scannedPdf(file('jpeg.pdf').path, [['A scanner writes JPEG']], undefined, { jpeg: true }),
    mixedPdf(file('mixed.pdf').path, 'Typed text stays exactly once', 'Scanned words come back'),
  ]);
}, 60_000);

const outputOf = (run: TestRun) => {
  if (!isFileResult(run.result)) throw new Error('expected a file');
  return run.result.path;
};

pluginConformanceSuite(
  ocrPlugin,
  [
    {
      name: 'English scan becomes searchable, progress per page',
      files: [file('two.pdf')],
      expectFormat: 'pdf',
      async check(run) {
        const text = oneLine(await pdfText(outputOf(run)));
        expect(text).toContain('First scanned page');
        expect(text).toContain('Second scanned page');
        // 5 at the start, one step per page, 100 at the end
        expect(run.progress).toEqual([5, 5, 50, 100]);
      },
    },
    {
      name: 'French with accents',
      files: [file('fra.pdf')],
      options: { lang: 'fra' },
      expectFormat: 'pdf',
      async check(run) {
        const text = oneLine(await pdfText(outputOf(run)));
        for (const line of FRENCH) expect(text).toContain(line);
      },
    },
    {
      name: 'German with ß, languages joined with +',
      files: [file('deu.pdf')],
      options: { lang: 'deu+eng' },
      expectFormat: 'pdf',
      async check(run) {
        const text = oneLine(await pdfText(outputOf(run)));
        for (const line of GERMAN) expect(text).toContain(line);
      },
    },
    {
      name: 'Japanese',
      files: [file('jpn.pdf')],
      options: { lang: 'jpn' },
      expectFormat: 'pdf',
      async check(run) {
        expect(withoutSpaces(await pdfText(outputOf(run)))).toContain(JAPANESE[0]);
      },
    },
  ],
  { against: standardPlugins, wireOptions: [{ lang: 'eng' }, { lang: 'eng+fra+deu' }, { lang: ' jpn ' }] },
);

describe('ocr', () => {
  it('English: pdftotext finds every word', async () => {
    const run = await runPlugin(ocrPlugin, [file('eng.pdf')], {});
    const text = oneLine(await pdfText(outputOf(run)));
    for (const line of ENGLISH) expect(text).toContain(line);
    await rm(run.workDir, { recursive: true, force: true });
  }, 60_000);

  it('keeps a page that has text (skip-text) and the page images bit for bit', async () => {
    const input = file('mixed.pdf');
    const run = await runPlugin(ocrPlugin, [input], { lang: 'eng' });
    const output = outputOf(run);
    const [typed, scanned] = (await pdfText(output)).split('\f');
    // the typed page is not OCRed again: its text is there once, as typed
    expect(typed!.trim()).toBe('Typed text stays exactly once');
    expect(oneLine(scanned!)).toContain('Scanned words come back');
    // same images, same encoding, same pixels
    expect(await imageList(output)).toEqual(await imageList(input.path));
    expect(await imagePixels(output)).toEqual(await imagePixels(input.path));
    await rm(run.workDir, { recursive: true, force: true });
  }, 60_000);

  it('a JPEG scan keeps its JPEG data byte for byte', async () => {
    const input = file('jpeg.pdf');
    const run = await runPlugin(ocrPlugin, [input], {});
    expect(oneLine(await pdfText(outputOf(run)))).toContain('A scanner writes JPEG');
    const streams = await imageStreams(outputOf(run));
    expect(streams[0]).toMatch(/^\.jpg /);
    expect(streams).toEqual(await imageStreams(input.path));
    await rm(run.workDir, { recursive: true, force: true });
  }, 60_000);

  it('validates lang as the spec says', () => {
    const parse = (lang: string) => parseOptions(ocrPlugin.options, { lang }, { fromStrings: true, operation: 'ocr' });
    expect(parse('eng+fra+deu')).toMatchObject({ ok: true, value: { lang: 'eng+fra+deu' } });
    expect(parseOptions(ocrPlugin.options, {}, { fromStrings: true, operation: 'ocr' })).toMatchObject({
      ok: true,
      value: { lang: 'eng' },
    });
    for (const bad of ['en', 'ENG', 'spa', 'eng+fra+deu+jpn', 'eng+eng', 'eng+', '+eng', 'eng fra', 'eng,fra', '']) {
      const parsed = parse(bad);
      expect(parsed.ok, bad).toBe(false);
      if (!parsed.ok) expect(parsed.error).toMatch(/lang/);
    }
  });

  it('refuses an encrypted PDF with the PDF tools message', async () => {
    const { runProcess } = await import('../../../core/engines/process.js');
    const locked = file('locked.pdf');
    await runProcess('qpdf', ['--encrypt', 'pw', 'pw', '256', '--', file('eng.pdf').path, locked.path], {
      timeoutMs: 15_000,
    });
    await expect(runPlugin(ocrPlugin, [locked], {})).rejects.toThrow(
      new PluginError('The PDF is password-protected: unlock it first (op unlock-pdf)'),
    );
  });

  it('gives each page time: the deadline grows with the page count', async () => {
    const { writeFile } = await import('node:fs/promises');
    // Without a path (recovery) or a readable page tree, the size decides: one page per 100 KB.
    expect(estimatePages({ path: '', bytes: 50_000 })).toBe(1);
    expect(estimatePages({ path: '', bytes: 1_000_000 })).toBe(10);
    // An uncompressed page tree: its /Count.
    const flat = file('flat.pdf').path;
    await writeFile(flat, `%PDF-1.7\n1 0 obj << /Type /Pages /Count 12 /Kids [] >> endobj\n${' '.repeat(2000)}`);
    expect(estimatePages({ path: flat, bytes: 2100 })).toBe(12);
    expect(ocrTimeoutMs([{ path: flat, format: 'pdf', filename: 'flat.pdf', bytes: 2100 }])).toBe(60_000 + 12 * 30_000);
    // A claim the size cannot hold is not believed.
    const lie = file('lie.pdf').path;
    await writeFile(lie, '%PDF-1.7\n1 0 obj << /Type /Pages /Count 999999 /Kids [] >> endobj\n');
    expect(estimatePages({ path: lie, bytes: 70 })).toBe(2);
  });

  it('declares ocrmypdf with every language and the Japanese font', () => {
    expect(OCRMYPDF.debian).toEqual(
      expect.arrayContaining([
        'ocrmypdf',
        'tesseract-ocr-eng',
        'tesseract-ocr-fra',
        'tesseract-ocr-deu',
        'tesseract-ocr-jpn',
        'fonts-ipafont-gothic',
      ]),
    );
    expect(OCRMYPDF.license).toBe('MPL-2.0');
  });
});
