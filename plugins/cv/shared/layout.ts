/**
 * Reading order by position: the text items of a PDF (pdf.js gives each its place and size) are
 * split into a sidebar and a main column where a vertical gap runs down the page, then read
 * column by column, the column holding the largest text (the name) first. pdftotext -layout
 * prints such columns side by side on one line, which interleaves the sidebar with the jobs.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { readFile } from 'node:fs/promises';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';

const STANDARD_FONTS = join(
  dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json')),
  'standard_fonts/',
);

export interface Item {
  str: string;
  /** Left edge and width, points from the left. */
  x: number;
  w: number;
  /** Baseline, points from the top. */
  y: number;
  /** Font size in points. */
  size: number;
}

// A column gap must leave at least this share of the page width on each side.
const MIN_COLUMN_SHARE = 0.18;
// Lines crossing the gap that are still allowed (a full-width name or title line on top).
const MAX_CROSSING_LINES = 2;
const MIN_ITEMS_PER_COLUMN = 4;

/** The page's lines in reading order, a layout gap written as three spaces. */
export function pageText(items: readonly Item[], pageWidth: number): string {
  const columns = splitColumns(items, pageWidth);
  return columns.map((column) => linesOf(column).join('\n')).join('\n');
}

function splitColumns(items: readonly Item[], pageWidth: number): Item[][] {
  if (items.length < 2 * MIN_ITEMS_PER_COLUMN) return [[...items]];
  const step = 2;
  let best: { x: number; crossing: Item[] } | undefined;
  for (let x = pageWidth * MIN_COLUMN_SHARE; x <= pageWidth * (1 - MIN_COLUMN_SHARE); x += step) {
    const crossing = items.filter((item) => item.x < x && item.x + item.w > x);
    if (!best || crossing.length < best.crossing.length) best = { x, crossing };
    if (best.crossing.length === 0) {
      // Centre the cut in the empty band.
      let end = x;
      while (
        end + step <= pageWidth * (1 - MIN_COLUMN_SHARE) &&
        !items.some((item) => item.x < end + step && item.x + item.w > end + step)
      )
        end += step;
      best = { x: (x + end) / 2, crossing: [] };
      break;
    }
  }
  if (!best) return [[...items]];
  const crossingLines = new Set(best.crossing.map((item) => Math.round(item.y))).size;
  if (crossingLines > MAX_CROSSING_LINES) return [[...items]];
  const crossing = new Set(best.crossing);
  const rest = items.filter((item) => !crossing.has(item));
  const left = rest.filter((item) => item.x + item.w / 2 < best.x);
  const right = rest.filter((item) => item.x + item.w / 2 >= best.x);
  if (left.length < MIN_ITEMS_PER_COLUMN || right.length < MIN_ITEMS_PER_COLUMN) return [[...items]];
  // Both columns must run down a good part of the page, not be one entry's dates beside its title.
  const span = (column: Item[]) => Math.max(...column.map((i) => i.y)) - Math.min(...column.map((i) => i.y));
  const textSpan = span(rest);
  if (span(left) < textSpan * 0.4 || span(right) < textSpan * 0.4) return [[...items]];
  // A column is a few words wide: a label column ("Phone", "Email") beside values is not a sidebar.
  const lineCount = (column: Item[]) => new Set(column.map((i) => Math.round(i.y))).size;
  if (lineCount(left) < MIN_ITEMS_PER_COLUMN || lineCount(right) < MIN_ITEMS_PER_COLUMN) return [[...items]];
  if (isLabelColumn(left)) return [[...items]];
  const largest = (column: Item[]) => Math.max(...column.map((i) => i.size));
  const columns = largest(right) > largest(left) * 1.2 ? [right, left] : [left, right];
  return best.crossing.length ? [best.crossing, ...columns] : columns;
}

// A label column is set flush right against its values: its lines end within this distance of one another.
const LABEL_EDGE_TOLERANCE = 3;
const LABEL_LINE_SHARE = 0.8;

/**
 * A Europass-style label column ("Phone", "Work experience", an entry's dates) set flush right
 * against the values it labels: read row by row with them, not as a sidebar. A sidebar is set
 * flush left.
 */
function isLabelColumn(left: readonly Item[]): boolean {
  const lines = new Map<number, { start: number; end: number }>();
  for (const item of left) {
    const y = Math.round(item.y);
    const line = lines.get(y);
    lines.set(y, {
      start: Math.min(line?.start ?? Infinity, item.x),
      end: Math.max(line?.end ?? -Infinity, item.x + item.w),
    });
  }
  const spans = [...lines.values()];
  const rightEdge = Math.max(...spans.map((l) => l.end));
  const leftEdge = Math.min(...spans.map((l) => l.start));
  const flushRight = spans.filter((l) => rightEdge - l.end <= LABEL_EDGE_TOLERANCE).length;
  const flushLeft = spans.filter((l) => l.start - leftEdge <= LABEL_EDGE_TOLERANCE).length;
  return flushRight >= LABEL_LINE_SHARE * spans.length && flushLeft < LABEL_LINE_SHARE * spans.length;
}

/** Items grouped into lines by baseline, left to right; wide gaps kept as three spaces. */
export function linesOf(items: readonly Item[]): string[] {
  const sorted = [...items].sort((a, b) => a.y - b.y || a.x - b.x);
  const lines: Item[][] = [];
  for (const item of sorted) {
    const line = lines.at(-1);
    if (line && Math.abs(line[0]!.y - item.y) < Math.max(2, 0.4 * Math.min(line[0]!.size, item.size))) line.push(item);
    else lines.push([item]);
  }
  return lines.map((line) => {
    const ordered = line.sort((a, b) => a.x - b.x);
    let text = '';
    let end = -Infinity;
    for (const item of ordered) {
      const gap = item.x - end;
      if (text && gap > 2 * item.size) text += '   ';
      else if (text && gap > 0.15 * item.size && !/\s$/.test(text) && !/^\s/.test(item.str)) text += ' ';
      text += item.str;
      end = item.x + item.w;
    }
    return text.trim();
  });
}

/** The PDF's text in reading order by position, pages ended by form feeds; undefined when pdf.js cannot read it. */
export async function positionedText(pdf: string, signal: AbortSignal, maxPages = 10): Promise<string | undefined> {
  // Imported here: pdfjs adds about 200 MB to a process, which the server (reading manifests) never needs.
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const task = getDocument({
    data: new Uint8Array(await readFile(pdf)),
    standardFontDataUrl: STANDARD_FONTS,
    disableFontFace: true,
    isEvalSupported: false,
    useSystemFonts: false,
    verbosity: 0,
  });
  const abort = () => void task.destroy();
  signal.addEventListener('abort', abort, { once: true });
  try {
    const document = await task.promise;
    const pages: string[] = [];
    for (let number = 1; number <= Math.min(document.numPages, maxPages); number++) {
      signal.throwIfAborted();
      const page = await document.getPage(number);
      const viewport = page.getViewport({ scale: 1 });
      const content = await page.getTextContent();
      const items: Item[] = [];
      for (const raw of content.items) {
        const item = raw as TextItem;
        if (!('str' in item) || !item.str.trim()) continue;
        const [, b, c, d, e, f] = item.transform as number[];
        // Upright text only; rotated margin notes keep pdftotext's order.
        if (Math.abs(b!) > 0.01 || Math.abs(c!) > 0.01) continue;
        items.push({
          str: item.str,
          x: e!,
          w: item.width,
          y: viewport.height - f!,
          size: Math.hypot(c!, d!) || item.height,
        });
      }
      pages.push(pageText(items, viewport.width));
      page.cleanup();
    }
    return `${pages.join('\f')}\f`;
  } catch {
    signal.throwIfAborted();
    return undefined;
  } finally {
    signal.removeEventListener('abort', abort);
    await task.destroy();
  }
}
