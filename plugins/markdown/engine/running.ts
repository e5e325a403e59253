/**
 * Running headers and footers: lines in the top or bottom margin band that repeat across pages
 * once digits are normalised ("Page 3 of 7" = "Page 4 of 7"), plus lone page numbers anywhere.
 */
import { roundSize } from './lines.js';
import type { Line } from './types.js';

/** Share of the page height, at top and bottom, where running lines live. */
const MARGIN_BAND = 0.12;
/** How many lines from each end of a page are considered. */
const LINES_PER_END = 2;
/** A repeated line must appear on at least this share of pages (and on two of them). */
const MIN_PAGE_SHARE = 0.5;

const PAGE_NUMBER = /^(?:page\s*)?[-–—(|]?\s*#+\s*[-–—)|]?(?:\s*(?:of|\/)\s*#+)?$/i;

export interface PageLines {
  height: number;
  lines: Line[];
}

export function runningKey(text: string): string {
  return text.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();
}

function marginLines({ height, lines }: PageLines): Line[] {
  const top = lines.slice(0, LINES_PER_END).filter((l) => l.baseline < height * MARGIN_BAND);
  const bottom = lines.slice(-LINES_PER_END).filter((l) => l.baseline > height * (1 - MARGIN_BAND));
  return [...new Set([...top, ...bottom])];
}

/** The running lines of each page, to be dropped (lines must be in reading order). */
export function findRunningLines(pages: readonly PageLines[]): Set<Line>[] {
  const candidates = pages.map(marginLines);
  const pagesWithKey = new Map<string, number>();
  // The size is part of the key: a title that repeats the running header's words is not running.
  const keyOf = (line: Line) => `${runningKey(line.text)}|${roundSize(line.size)}`;
  for (const lines of candidates) {
    for (const key of new Set(lines.map(keyOf))) pagesWithKey.set(key, (pagesWithKey.get(key) ?? 0) + 1);
  }
  const repeated = (key: string) => {
    const count = pagesWithKey.get(key) ?? 0;
    return count >= 2 && count >= MIN_PAGE_SHARE * pages.length;
  };
  return candidates.map((lines) => new Set(lines.filter((l) => repeated(keyOf(l)) || PAGE_NUMBER.test(runningKey(l.text)))));
}
