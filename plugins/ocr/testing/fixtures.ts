/**
 * Test support for the ocr op: scans made on the fly (text rendered by sharp from SVG at
 * 300 dpi, placed as the only content of a page by pdf-lib), a PDF mixing a text page and a
 * scanned page, and readers for what came out (pdftotext, the page images' pixels).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { runProcess } from '../../../core/engines/process.js';

const DPI = 300;
const WIDTH = 2480;

/** A PNG of `lines` in black on white, 300 dpi, A4-wide. */
export async function scanImage(lines: readonly string[], font = 'DejaVu Sans'): Promise<Buffer> {
  const height = 300 + lines.length * 200;
  const escapeXml = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;');
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}">` +
    `<rect width="100%" height="100%" fill="white"/>${lines
      .map(
        (line, i) =>
          `<text x="150" y="${250 + i * 200}" font-family="${font}" font-size="90" ` +
          `fill="black">${escapeXml(line)}</text>`,
      )
      .join('')}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** Adds a page showing `png` at 300 dpi (re-encoded as JPEG when `jpeg`). */
async function addScanPage(doc: PDFDocument, png: Buffer, jpeg = false): Promise<void> {
  const image = jpeg ? await doc.embedJpg(await sharp(png).jpeg({ quality: 85 }).toBuffer()) : await doc.embedPng(png);
  const width = (image.width * 72) / DPI;
  const height = (image.height * 72) / DPI;
  doc.addPage([width, height]).drawImage(image, { x: 0, y: 0, width, height });
}

/** A PDF of one scanned page per entry of `pages`; `jpeg` stores the scans as JPEG, as most scanners do. */
export async function scannedPdf(
  file: string,
  pages: ReadonlyArray<readonly string[]>,
  font?: string,
  { jpeg = false } = {},
): Promise<string> {
  const doc = await PDFDocument.create();
  for (const lines of pages) await addScanPage(doc, await scanImage(lines, font), jpeg);
  await writeFile(file, await doc.save());
  return file;
}

/** Page 1 has real text (`text`), page 2 is a scan of `scanned`. */
export async function mixedPdf(file: string, text: string, scanned: string): Promise<string> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([595, 300]).drawText(text, { x: 40, y: 150, size: 24, font });
  await addScanPage(doc, await scanImage([scanned]));
  await writeFile(file, await doc.save());
  return file;
}

/** The text layer of a PDF, as pdftotext reads it (UTF-8). */
export async function pdfText(file: string): Promise<string> {
  return (await runProcess('pdftotext', ['-enc', 'UTF-8', file, '-'], { timeoutMs: 30_000 })).stdout;
}

/** White space collapsed: OCR'd words may come out of pdftotext on lines and blocks of their own. */
export const oneLine = (text: string) => text.replace(/\s+/g, ' ');

/** Japanese words come out of OCR with spaces between them: search without white space. */
export const withoutSpaces = (text: string) => text.replace(/\s+/g, '');

/** Every image of a PDF as `pdfimages -list` describes it: page, size, encoding. */
export async function imageList(file: string): Promise<string[]> {
  const { stdout } = await runProcess('pdfimages', ['-list', file], { timeoutMs: 30_000 });
  return stdout
    .split('\n')
    .slice(2)
    .filter((line) => line.trim())
    .map((line) => {
      const cols = line.trim().split(/\s+/);
      return [cols[0], cols[3], cols[4], cols[5], cols[8]].join(' '); // page width height color enc
    });
}

/** A SHA-256 of every image stream of a PDF as stored (pdfimages -all: JPEG data as it is in the file), in order. */
export async function imageStreams(file: string): Promise<string[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ocr-streams-'));
  try {
    await runProcess('pdfimages', ['-all', file, path.join(dir, 'img')], { timeoutMs: 30_000 });
    const names = (await readdir(dir)).sort();
    return await Promise.all(
      names.map(
        async (name) =>
          `${path.extname(name)} ${createHash('sha256')
            .update(await readFile(path.join(dir, name)))
            .digest('hex')}`,
      ),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A SHA-256 of the raw pixels of every image in a PDF (decoded by pdfimages), in order. */
export async function imagePixels(file: string): Promise<string[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ocr-images-'));
  try {
    await runProcess('pdfimages', ['-png', file, path.join(dir, 'img')], { timeoutMs: 30_000 });
    const names = (await readdir(dir)).sort();
    return await Promise.all(
      names.map(async (name) =>
        createHash('sha256')
          .update(await sharp(path.join(dir, name)).raw().toBuffer())
          .digest('hex'),
      ),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
