/**
 * Page lists as clients write them: 1-based page numbers and ranges separated by commas,
 * e.g. "1-3, 5, 8-10". Syntax is checked when options are validated (a 400 before any credit is
 * spent); whether the pages exist is checked against the PDF at run time.
 */
import { PluginError } from './index.js';

export interface PageRange {
  first: number;
  last: number;
}

export type ParsedRanges = { ok: true; ranges: PageRange[] } | { ok: false; error: string };

const EXAMPLE = 'use page numbers and ranges such as 1-3, 5, 8-10';
const ENTRY = /^(\d+)(?:\s*-\s*(\d+))?$/;

/** Parse a page list; every entry is kept, in the order written (split-pdf makes one file per entry). */
export function parsePageRanges(text: string): ParsedRanges {
  const entries = text.split(',').map((entry) => entry.trim());
  if (entries.every((entry) => entry === '')) return { ok: false, error: `no pages given; ${EXAMPLE}` };
  const ranges: PageRange[] = [];
  for (const entry of entries) {
    if (entry === '') return { ok: false, error: `empty entry between commas; ${EXAMPLE}` };
    const match = ENTRY.exec(entry);
    if (!match) return { ok: false, error: `'${entry}' is not a page or a range; ${EXAMPLE}` };
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : Number(match[2]);
    if (!Number.isSafeInteger(first) || !Number.isSafeInteger(last))
      return { ok: false, error: `'${entry}' is not a page number` };
    if (first === 0 || last === 0) return { ok: false, error: 'pages are numbered from 1' };
    if (first > last) return { ok: false, error: `range ${entry} runs backwards; write ${last}-${first}` };
    ranges.push({ first, last });
  }
  return { ok: true, ranges };
}

/** Parse a page list that option validation has already accepted. */
export function pageRangesOf(text: string): PageRange[] {
  const parsed = parsePageRanges(text);
  if (!parsed.ok) throw new PluginError(`Invalid pages: ${parsed.error}`);
  return parsed.ranges;
}

/** Refuse ranges that reach past the end of the document. */
export function assertPagesExist(ranges: readonly PageRange[], pageCount: number): void {
  const highest = Math.max(...ranges.map((range) => range.last));
  if (highest > pageCount) {
    throw new PluginError(`page ${highest} does not exist: the PDF has ${pageCount} page${pageCount === 1 ? '' : 's'}`);
  }
}

/** The distinct pages the ranges cover, in document order. */
export function pagesIn(ranges: readonly PageRange[]): number[] {
  const pages = new Set<number>();
  for (const { first, last } of ranges) for (let page = first; page <= last; page++) pages.add(page);
  return [...pages].sort((a, b) => a - b);
}

/** "1-3" or "5": a range as qpdf and file names write it. */
export function formatRange({ first, last }: PageRange): string {
  return first === last ? String(first) : `${first}-${last}`;
}

/** Sorted, distinct pages written compactly as qpdf page ranges ("1-3,5,8-10"). */
export function compactRanges(pages: readonly number[]): string {
  const ranges: PageRange[] = [];
  for (const page of pages) {
    const previous = ranges[ranges.length - 1];
    if (previous && page === previous.last + 1) previous.last = page;
    else ranges.push({ first: page, last: page });
  }
  return ranges.map(formatRange).join(',');
}
