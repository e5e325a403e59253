/**
 * Test support for the PDF family: sample PDFs made with pdf-lib (each page prints "Page N"
 * in a big font, so page order can be read back with pdftotext), qpdf for the encrypted one,
 * and helpers that inspect results with qpdf, pdfinfo, pdftotext and a small ZIP reader.
 */
import { mkdtempSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { PDFDocument, PDFName, PDFNumber, PDFString, StandardFonts, type PDFPage } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll } from 'vitest';
import { isFileResult } from '../../../core/contract/index.js';
import type { TestRun } from '../../../core/contract/testing/index.js';
import { runProcess } from '../../../core/engines/process.js';

export const FIXTURE_PASSWORD = 'open sesame';
export const FIXTURE_TITLE = 'Quarterly Secrets';
export const FIXTURE_AUTHOR = 'Jane Fixture';
export const PHOTO_CAPTION = 'Harbour at dawn';
/** Sizes of the images embedded in `images.pdf`. */
export const PNG_SIZE = { width: 120, height: 80 } as const;
export const JPEG_SIZE = { width: 64, height: 48 } as const;

type FixtureName =
  | 'eight'
  | 'three'
  | 'two'
  | 'images'
  | 'photo'
  | 'captioned-photo'
  | 'scripted'
  | 'open-at-page'
  | 'encrypted'
  | 'damaged'
  | 'garbage'
  | 'scan';

/** `count` pages of 300 x 400 pt, page N printing "Page N" (plus `label` when given). */
async function textDocument(count: number, label = ''): Promise<PDFDocument> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= count; n++)
    doc.addPage([300, 400]).drawText(`${label}Page ${n}`, { x: 40, y: 200, size: 36, font });
  return doc;
}

const save = (doc: PDFDocument) => doc.save({ useObjectStreams: false });

/** A JavaScript action. */
function script(doc: PDFDocument, code: string) {
  return doc.context.obj({ Type: 'Action', S: 'JavaScript', JS: PDFString.of(code) });
}

function drawImageOn(
  page: PDFPage,
  image: { width: number; height: number },
  embedded: Parameters<PDFPage['drawImage']>[0],
  y: number,
) {
  page.drawImage(embedded, { x: 10, y, width: image.width, height: image.height });
}

const RECIPES: Record<FixtureName, (dir: string) => Promise<Uint8Array | Buffer>> = {
  /** 8 pages with an information dictionary and an XMP stream. */
  async eight() {
    const doc = await textDocument(8);
    doc.setTitle(FIXTURE_TITLE);
    doc.setAuthor(FIXTURE_AUTHOR);
    const xmp =
      `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF ` +
      `xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" ` +
      `xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>${FIXTURE_AUTHOR} ` +
      `XMP</dc:creator></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;
    doc.catalog.set(
      PDFName.of('Metadata'),
      doc.context.register(doc.context.stream(xmp, { Type: 'Metadata', Subtype: 'XML' })),
    );
    return save(doc);
  },
  three: async () => save(await textDocument(3, 'B ')),
  two: async () => save(await textDocument(2, 'C ')),
  /** Page 1: a PNG and a JPEG; page 2: the same PNG again (extracted once). */
  async images() {
    const doc = await textDocument(2);
    const png = await doc.embedPng(
      await sharp({ create: { ...PNG_SIZE, channels: 3, background: '#3060c0' } })
        .png()
        .toBuffer(),
    );
    const jpg = await doc.embedJpg(
      await sharp({ create: { ...JPEG_SIZE, channels: 3, background: '#c03030' } })
        .jpeg()
        .toBuffer(),
    );
    const [first, second] = doc.getPages();
    drawImageOn(first!, PNG_SIZE, png, 20);
    drawImageOn(first!, JPEG_SIZE, jpg, 300);
    drawImageOn(second!, PNG_SIZE, png, 20);
    return save(doc);
  },
  /** A detailed 1500 x 1125 photo-like JPEG on a 400 x 300 pt page (270 dpi): /ebook downsamples it. */
  async photo() {
    const doc = await PDFDocument.create();
    const noise = await sharp({
      create: {
        width: 1500,
        height: 1125,
        channels: 3,
        background: '#808080',
        noise: { type: 'gaussian', mean: 128, sigma: 50 },
      },
    })
      .jpeg({ quality: 95 })
      .toBuffer();
    doc.addPage([400, 300]).drawImage(await doc.embedJpg(noise), { x: 0, y: 0, width: 400, height: 300 });
    return save(doc);
  },
  /** The photo with a caption drawn over it: compression must keep the text. */
  async 'captioned-photo'(dir) {
    const doc = await PDFDocument.load(await RECIPES.photo(dir));
    const font = await doc.embedFont(StandardFonts.Helvetica);
    doc.getPage(0).drawText(PHOTO_CAPTION, { x: 20, y: 20, size: 24, font });
    return save(doc);
  },
  /** 3 pages with scripts that run on their own: OpenAction, page /AA, document-level JavaScript. */
  async scripted() {
    const doc = await textDocument(3);
    const { context, catalog } = doc;
    catalog.set(PDFName.of('OpenAction'), context.register(script(doc, 'app.alert("open action")')));
    catalog.set(
      PDFName.of('Names'),
      context.obj({
        JavaScript: context.obj({
          Names: [PDFString.of('startup'), context.register(script(doc, 'app.alert("name tree")'))],
        }),
      }),
    );
    doc.getPages()[0]!.node.set(PDFName.of('AA'), context.obj({ O: script(doc, 'app.alert("page open")') }));
    return save(doc);
  },
  /** 3 pages opening at page 2: a destination, not a script. */
  async 'open-at-page'() {
    const doc = await textDocument(3);
    doc.catalog.set(PDFName.of('OpenAction'), doc.context.obj([doc.getPages()[1]!.ref, PDFName.of('Fit')]));
    return save(doc);
  },
  async encrypted(dir) {
    const plain = path.join(dir, 'encrypted-source.pdf');
    await writeFile(plain, await save(await textDocument(2)));
    const encrypted = path.join(dir, 'encrypted-made.pdf');
    await runProcess('qpdf', ['--encrypt', FIXTURE_PASSWORD, FIXTURE_PASSWORD, '256', '--', plain, encrypted], {
      timeoutMs: 15_000,
    });
    return readFile(encrypted);
  },
  /** `eight` with its cross-reference table and startxref offset overwritten. */
  async damaged() {
    const bytes = Buffer.from(await RECIPES.eight(''));
    const xref = bytes.lastIndexOf('xref\n0 ');
    const broken = Buffer.concat([
      bytes.subarray(0, xref),
      Buffer.from(
        bytes
          .subarray(xref)
          .toString('latin1')
          .replace(/\d{10} \d{5} n/g, '0000000042 00000 n')
          .replace(/startxref\n\d+/, 'startxref\n99999'),
        'latin1',
      ),
    ]);
    return broken;
  },
  garbage: async () => Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(4000, 0x5a)]),
  /** One page that is only a picture: no text layer. */
  async scan() {
    const doc = await PDFDocument.create();
    const png = await doc.embedPng(
      await sharp({ create: { width: 60, height: 60, channels: 3, background: '#ffffff' } })
        .png()
        .toBuffer(),
    );
    doc.addPage([200, 200]).drawImage(png, { x: 0, y: 0, width: 200, height: 200 });
    return save(doc);
  },
};

export interface Fixture {
  path: string;
  format: 'pdf';
}

/** Named fixtures in a fresh temp dir: paths are known at once, the files exist after `make()`. */
export class PdfFixtures {
  readonly dir = mkdtempSync(path.join(os.tmpdir(), 'pdf-fixtures-'));

  get(name: FixtureName): Fixture {
    return { path: path.join(this.dir, `${name}.pdf`), format: 'pdf' };
  }

  async make(): Promise<void> {
    const scratch = path.join(this.dir, 'scratch');
    await mkdir(scratch);
    for (const name of Object.keys(RECIPES) as FixtureName[])
      await writeFile(this.get(name).path, await RECIPES[name](scratch));
  }

  cleanup(): Promise<void> {
    return rm(this.dir, { recursive: true, force: true });
  }
}

const run = async (command: string, ...args: string[]) =>
  (await runProcess(command, args, { timeoutMs: 15_000 })).stdout;

export async function pageCount(file: string, password?: string): Promise<number> {
  return Number((await run('qpdf', ...(password ? [`--password=${password}`] : []), '--show-npages', file)).trim());
}

/** The text of each page, trimmed ("Page 3", ...). */
export async function pageTexts(file: string): Promise<string[]> {
  const text = await run('pdftotext', '-enc', 'UTF-8', file, '-');
  return text
    .split('\f')
    .map((page) => page.trim())
    .slice(0, await pageCount(file));
}

/** Each page's /Rotate in degrees. */
export async function pageRotations(file: string): Promise<number[]> {
  const info = await run('pdfinfo', '-f', '1', '-l', String(await pageCount(file)), file);
  return [...info.matchAll(/^Page\s+\d+ rot:\s+(\d+)/gm)].map((match) => Number(match[1]));
}

/** pdfinfo's "Key: value" lines. */
export async function pdfInfo(file: string): Promise<Record<string, string>> {
  const info = await run('pdfinfo', file);
  return Object.fromEntries(
    info
      .split('\n')
      .filter((line) => line.includes(':'))
      .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
  );
}

/** Every object of the PDF as qpdf JSON text (stream data left out), to search for keys. */
export async function objectsJson(file: string): Promise<string> {
  return run('qpdf', '--json=2', '--json-key=qpdf', '--json-stream-data=none', file);
}

/**
 * The entries of a ZIP written to `dir` (stored or deflated; enough for our own archives).
 * Returns the entry names in archive order and their paths on disk.
 */
export async function unzip(zipFile: string, dir: string): Promise<Array<{ name: string; path: string }>> {
  const zip = await readFile(zipFile);
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error('not a ZIP file');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries: Array<{ name: string; path: string }> = [];
  await mkdir(dir, { recursive: true });
  for (let i = 0; i < count; i++) {
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    const local = zip.readUInt32LE(at + 42);
    const dataStart = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(dataStart, dataStart + size);
    const file = path.join(dir, name);
    await writeFile(file, method === 8 ? inflateRawSync(data) : data);
    entries.push({ name, path: file });
    at += 46 + skip;
  }
  return entries;
}

/**
 * A PDF of `count` pages in a few kilobytes, for the page limits: the page tree lists one blank
 * page `count` times, and the list sits deflated in an object stream. qpdf counts every entry.
 */
export async function manyPagePdf(count: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([200, 200]);
  const tree = doc.catalog.Pages();
  tree.set(PDFName.of('Kids'), doc.context.obj(Array.from({ length: count }, () => page.ref)));
  tree.set(PDFName.of('Count'), PDFNumber.of(count));
  return doc.save({ useObjectStreams: true });
}

/** The sample PDFs for one test file: made before its tests, removed after them. */
export function pdfTestFixtures(): PdfFixtures {
  const fixtures = new PdfFixtures();
  beforeAll(() => fixtures.make(), 30_000);
  afterAll(() => fixtures.cleanup());
  return fixtures;
}

/** The output file of a test run that must have produced one. */
export function outputOf(run: TestRun): string {
  if (!isFileResult(run.result)) throw new Error('expected a file');
  return run.result.path;
}
