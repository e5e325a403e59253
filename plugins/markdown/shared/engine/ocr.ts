/**
 * Scanned pages: the page image is OCRed by tesseract (hOCR: words with boxes, lines with their
 * baseline and x-height size) and turned into text runs placed on the page, so a scan goes
 * through the same structure pipeline as a text PDF: headings by size rank, tables where the
 * word boxes line up in columns. tesseract runs on one thread, so the same scan gives the same
 * words every time.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { engineScratchRoot } from '../../../../core/engines/confine.js';
import { recognizeLayout } from '../../../../core/engines/tesseract.js';
import { joinsUnspaced } from './lines.js';
import type { ScanImage, TextRun } from './types.js';

/** Words tesseract is less sure of than this (0-100) are noise: specks, rules read as "|". */
const MIN_CONFIDENCE = 30;
/** Line sizes within this ratio of each other are one size (OCR measures each line a little differently). */
const SAME_SIZE = 1.08;

export interface OcrContext {
  signal: AbortSignal;
  remainingMs(): number;
  language: string;
}

interface OcrLine {
  bbox: [number, number, number, number];
  slope: number;
  offset: number;
  xSize: number;
  words: { bbox: [number, number, number, number]; text: string; confidence: number }[];
}

/** A PGM file tesseract reads directly (no image library needed). */
function pgm(image: ScanImage): Buffer {
  return Buffer.concat([Buffer.from(`P5\n${image.width} ${image.height}\n255\n`, 'latin1'), image.gray]);
}

export async function ocrPage(image: ScanImage, ctx: OcrContext): Promise<TextRun[]> {
  // In the run's folder: tesseract runs jailed and sees nothing else.
  const dir = await mkdtemp(join(engineScratchRoot(), 'pdf-md-ocr-'));
  try {
    const file = join(dir, 'page.pgm');
    await writeFile(file, pgm(image));
    const [a, b] = image.transform;
    const dpi = (image.width / Math.hypot(a, b)) * 72;
    const hocr = await recognizeLayout(file, ctx, { language: ctx.language, dpi });
    return toRuns(parseHocr(hocr), image);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'" };

function decode(text: string): string {
  return text.replace(/<[^>]+>/g, '').replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (entity, name: string) => {
    if (ENTITIES[name]) return ENTITIES[name]!;
    if (name.startsWith('#x')) return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)));
    return entity;
  });
}

function bboxOf(title: string): [number, number, number, number] | undefined {
  const match = /bbox (\d+) (\d+) (\d+) (\d+)/.exec(title);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3]), Number(match[4])] : undefined;
}

/** Latin x-height as a share of the font size (Helvetica 0.52, Times 0.45; the ranks matter, not the points). */
const X_HEIGHT = 0.5;

/**
 * The line's font size in pixels from its x-height (tesseract's x_size less ascenders and
 * descenders): unlike the row height, it does not change with whether a line has a "g" or a "k".
 */
function fontSizePx(title: string, bbox: readonly number[]): number {
  const value = (name: string) => Number(new RegExp(`${name} ([\\d.]+)`).exec(title)?.[1] ?? NaN);
  const xHeight = value('x_size') - value('x_descenders') - value('x_ascenders');
  return Number.isFinite(xHeight) && xHeight > 0 ? xHeight / X_HEIGHT : bbox[3]! - bbox[1]!;
}

export function parseHocr(hocr: string): OcrLine[] {
  const lines: OcrLine[] = [];
  const pattern =
    /<span class='(ocr_line|ocr_caption|ocr_header|ocr_textfloat|ocrx_word)'[^>]*title=(?:"([^"]*)"|'([^']*)')[^>]*>/g;
  for (const match of hocr.matchAll(pattern)) {
    const title = match[2] ?? match[3] ?? '';
    const bbox = bboxOf(title);
    if (!bbox) continue;
    if (match[1] !== 'ocrx_word') {
      const baseline = /baseline (-?[\d.]+) (-?[\d.]+)/.exec(title);
      lines.push({
        bbox,
        slope: Number(baseline?.[1] ?? 0),
        offset: Number(baseline?.[2] ?? 0),
        xSize: fontSizePx(title, bbox),
        words: [],
      });
      continue;
    }
    const start = match.index! + match[0].length;
    const text = decode(hocr.slice(start, hocr.indexOf('</span>', start))).trim();
    const confidence = Number(/x_wconf (\d+)/.exec(title)?.[1] ?? 0);
    if (text && lines.length) lines[lines.length - 1]!.words.push({ bbox, text, confidence });
  }
  return lines;
}

/** Line sizes grouped so one body size does not split into many (each group takes its median). */
function quantise(sizes: readonly number[]): Map<number, number> {
  const sorted = [...new Set(sizes)].sort((a, b) => a - b);
  const result = new Map<number, number>();
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1]! <= sorted[i]! * SAME_SIZE) j++;
    const group = sorted.slice(i, j + 1);
    const members = sizes.filter((s) => s >= group[0]! && s <= group[group.length - 1]!).sort((a, b) => a - b);
    const median = members[Math.floor(members.length / 2)]!;
    for (const size of group) result.set(size, median);
    i = j + 1;
  }
  return result;
}

/** Glyphs OCR reads a bullet as, when it stands alone at the start of a line. */
const MISREAD_BULLET = /^[•·¢©®°«»*@eo+]$/;

/** A misread bullet, set apart from the words after it, is a bullet again. */
function bulletFirst(words: OcrLine['words'], xSize: number): OcrLine['words'] {
  const [first, second] = words;
  if (!first || !second || !MISREAD_BULLET.test(first.text) || second.bbox[0] - first.bbox[2] < 0.5 * xSize)
    return words;
  return [{ ...first, text: '•' }, ...words.slice(1)];
}

/** Words as runs in page space (points, y down), sized by their line's x-height measure. */
function toRuns(lines: readonly OcrLine[], image: ScanImage): TextRun[] {
  const m = image.transform;
  const toPage = (px: number, py: number): [number, number] => {
    const [u, v] = [px / image.width, 1 - py / image.height];
    return [m[0] * u + m[2] * v + m[4], m[1] * u + m[3] * v + m[5]];
  };
  const pointsPerPixel = Math.hypot(m[2], m[3]) / image.height;
  const kept = lines
    .map((line) => ({
      ...line,
      words: bulletFirst(
        // A word of bars only is a drawn rule read as text (scanrules.ts finds the rule itself).
        line.words.filter((w) => w.confidence >= MIN_CONFIDENCE && !/^\|+$/.test(w.text)),
        line.xSize,
      ),
    }))
    .filter((line) => line.words.length);
  const sizes = quantise(kept.map((line) => Math.round(line.xSize * pointsPerPixel * 10) / 10));
  return kept.flatMap((line) => {
    const size = sizes.get(Math.round(line.xSize * pointsPerPixel * 10) / 10)!;
    const runs: TextRun[] = [];
    for (const word of line.words) {
      const baselinePx = line.bbox[3] + line.slope * ((word.bbox[0] + word.bbox[2]) / 2 - line.bbox[0]) + line.offset;
      const [left, baseline] = toPage(word.bbox[0], baselinePx);
      const [right] = toPage(word.bbox[2], baselinePx);
      const [x0, x1] = [Math.min(left, right), Math.max(left, right)];
      const previous = runs[runs.length - 1];
      // Japanese and Chinese words run on in one run, in tesseract's order (their boxes may
      // overlap); any other OCR word is a word: the leading space keeps words apart however tight the boxes.
      if (previous && joinsUnspaced(previous.text, word.text))
        Object.assign(previous, { text: previous.text + word.text, x1: Math.max(previous.x1, x1) });
      else runs.push({ text: ` ${word.text}`, x0, x1, baseline, size, bold: false });
    }
    return runs;
  });
}
