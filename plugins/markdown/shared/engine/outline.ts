/**
 * Headings from the document's outline (bookmarks). When a PDF carries one, its titles and
 * destination pages are the strongest heading signal: each entry is matched to the line (or up
 * to three consecutive lines, a wrapped title) on its page whose words are the title's, section
 * numbers aside, and that line becomes a heading at the entry's depth, keeping its own text (and
 * so its own numbering). Lines the outline does not name are then never headings.
 */
import type { Line, OutlineEntry } from './types.js';

export interface OutlineHeading {
  level: number;
  /** How many consecutive lines (this one first) make up the title. */
  lines: number;
  /**
   * A run-in title ("4.1. Priority Trees. We define…"): the title is this many characters of the line, the rest is body
   * text.
   */
  runIn?: number;
}

const MAX_RUN_IN_WORDS = 15;

/** Characters of `text` that are the title `key` followed by a run-in stop, if it starts so. */
function runInLength(text: string, key: string): number | undefined {
  const words = [...text.matchAll(/\S+/g)].slice(0, MAX_RUN_IN_WORDS);
  for (const word of words) {
    const end = word.index! + word[0].length;
    const prefix = titleKey(text.slice(0, end));
    if (prefix.length > key.length) return undefined;
    if (prefix !== key) continue;
    // A run-in title ends with a full stop, colon or dash before the body text.
    const stops = /[.:]$/.test(word[0]) || /^\s*[.:—–]/.test(text.slice(end));
    return stops &&
      text
        .slice(end)
        .replace(/^\s*[.:—–]/, '')
        .trim() !== ''
      ? end
      : undefined;
  }
  return undefined;
}

/** A wrapped title spans at most this many lines. */
const MAX_TITLE_LINES = 3;
/** The outline is trusted once this many of its entries are found in the text (or all of them). */
const MIN_MATCHED = 3;
/** A title this short ("Use") is not looked for inside running lines, where it could be part of any word. */
const MIN_RUNNING_KEY = 4;
/**
 * "2.1", "A.3", "3.B", "IV.", "Chapter 2:", "Appendix A", "§ 4" in front of a title: outlines keep or drop them.
 * A lone letter is a number only after a chapter word or before a full stop ("A. Proofs", not "A Title").
 */
const SECTION_NUMBER = new RegExp(
  String.raw`^(?:(?:chapter|section|part|appendix|annexe?|anhang|chapitre|kapitel|capitolo|capitulo)\s+` +
    String.raw`(?:[A-Z]\b|\d+(?:[.-](?:\d+|[A-Z]\b))*|[IVXLC]+\b)|(?:§\s*)?(?:\d+(?:[.-](?:\d+|[A-Z]\b))*|` +
    String.raw`[A-Z](?:\.\d+)+|[A-Z](?=\.)|[IVXLC]+\b))[.:]?(?:\s*[—–]\s*|\s+|$)`,
  'i',
);

/** A word set letter-spaced ("C O N T E N T S"): three or more lone letters one space apart. */
const LETTER_SPACED = /(?<!\S)\p{L}(?: \p{L}(?!\S)){2,}/gu;

/** Accents a text layer may set as characters of their own: acute, grave, diaeresis, circumflex, tilde, caron... */
const SPACING_ACCENTS = /[\u00b4\u0060\u00a8\u00af\u00b8\u02c6\u02c7\u02d8\u02d9\u02da\u02db\u02dc\u02dd]/g;

/**
 * A title as a reader compares it: case, spacing, punctuation and accents aside. The outline
 * keeps "Capítulo", while a TeX text layer may spell the same word with a spacing accent and a
 * dotless i ("Cap´ıtulo") or a letter and a combining mark: both fold to "capitulo".
 */
export function titleKey(text: string): string {
  return text
    .replace(SPACING_ACCENTS, '')
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/ı/g, 'i')
    .replace(/ȷ/g, 'j')
    .normalize('NFKC')
    .replace(/\[\^[^\]]*\]|<su[pb]>.*?<\/su[pb]>/g, '')
    .trim()
    .replace(LETTER_SPACED, (word) => word.replace(/ /g, ''))
    .replace(SECTION_NUMBER, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

export interface PageLines {
  page: number;
  lines: readonly Line[];
}

/**
 * Outline headings by line, or undefined when the outline is absent or does not match the text.
 * `running`: each page's running lines (taken out of the body). A title named only there (a slide
 * deck's section in its navigation bar) shows that the outline describes this document, though
 * it is no heading line.
 */
export function outlineHeadings(
  pages: readonly PageLines[],
  outline: readonly OutlineEntry[],
  running: ReadonlyMap<number, readonly Line[]> = new Map(),
): Map<Line, OutlineHeading> | undefined {
  if (!outline.length) return undefined;
  const byPage = new Map(pages.map((p) => [p.page, p.lines]));
  const keys = new Map<readonly Line[], string[][]>();
  const keysOf = (lines: readonly Line[]) => {
    let cached = keys.get(lines);
    if (!cached) {
      // keys[i][n - 1]: the key of lines i .. i + n - 1 joined.
      cached = lines.map((_, i) =>
        Array.from({ length: Math.min(MAX_TITLE_LINES, lines.length - i) }, (_, n) =>
          titleKey(
            lines
              .slice(i, i + n + 1)
              .map((l) => l.text)
              .join(' '),
          ),
        ),
      );
      keys.set(lines, cached);
    }
    return cached;
  };
  const taken = new Set<Line>();
  const headings = new Map<Line, OutlineHeading>();
  /** The line each entry was found at, by the entry's index. */
  const foundAt = new Map<number, Line>();
  for (const [entryIndex, entry] of outline.entries()) {
    const key = titleKey(entry.title);
    if (!key) continue;
    // The destination may sit at the foot of the page before the title, or name the page before.
    for (const page of [entry.page, entry.page + 1, entry.page - 1]) {
      const lines = byPage.get(page);
      if (!lines) continue;
      const lineKeys = keysOf(lines);
      let best: { index: number; span: number } | undefined;
      lineKeys.forEach((spans, index) => {
        const span = spans.indexOf(key) + 1;
        if (!span || lines.slice(index, index + span).some((l) => taken.has(l))) return;
        if (!best || lines[index]!.size > lines[best.index]!.size) best = { index, span };
      });
      if (!best) {
        const index = lines.findIndex((line) => !taken.has(line) && runInLength(line.text, key) !== undefined);
        if (index < 0) continue;
        headings.set(lines[index]!, {
          level: Math.min(entry.depth + 1, 6),
          lines: 1,
          runIn: runInLength(lines[index]!.text, key),
        });
        taken.add(lines[index]!);
        foundAt.set(entryIndex, lines[index]!);
        break;
      }
      const first = lines[best.index]!;
      headings.set(first, { level: Math.min(entry.depth + 1, 6), lines: best.span });
      for (const line of lines.slice(best.index, best.index + best.span)) taken.add(line);
      foundAt.set(entryIndex, first);
      break;
    }
  }
  findBetweenNeighbours(pages, outline, keysOf, { taken, headings, foundAt });
  const found = new Set([...headings.keys()]);
  const inRunningLines = outline.filter((entry) => {
    const key = titleKey(entry.title);
    if (key.length < MIN_RUNNING_KEY) return false;
    const nearby = [entry.page - 1, entry.page, entry.page + 1].flatMap((page) => running.get(page) ?? []);
    return nearby.some((line) => !found.has(line) && titleKey(line.text).includes(key));
  }).length;
  return headings.size && headings.size + inRunningLines >= Math.min(MIN_MATCHED, outline.length)
    ? headings
    : undefined;
}

/**
 * Entries not found near their destination (a destination a few pages off, or none) are looked
 * for between the entries found before and after them: the outline lists titles in the text's
 * order, so a title can only be there. A whole line (or wrapped lines) must be the title; the
 * largest such line wins, then the one nearest the destination.
 */
function findBetweenNeighbours(
  pages: readonly PageLines[],
  outline: readonly OutlineEntry[],
  keysOf: (lines: readonly Line[]) => string[][],
  found: { taken: Set<Line>; headings: Map<Line, OutlineHeading>; foundAt: Map<number, Line> },
): void {
  const position = new Map<Line, number>();
  let order = 0;
  for (const { lines } of pages) for (const line of lines) position.set(line, order++);
  const matched = () => [...found.foundAt].map(([entry, line]) => ({ entry, at: position.get(line)! }));
  for (const [entryIndex, entry] of outline.entries()) {
    const key = titleKey(entry.title);
    if (!key || found.foundAt.has(entryIndex)) continue;
    const known = matched();
    const after = Math.max(-1, ...known.filter((m) => m.entry < entryIndex).map((m) => m.at));
    const before = Math.min(order, ...known.filter((m) => m.entry > entryIndex).map((m) => m.at));
    let best: { line: Line; span: number; page: number; lines: readonly Line[]; index: number } | undefined;
    for (const { page, lines } of pages) {
      const first = position.get(lines[0]!);
      if (first === undefined || first >= before || first + lines.length <= after) continue;
      keysOf(lines).forEach((spans, index) => {
        const at = first + index;
        const span = spans.indexOf(key) + 1;
        if (!span || at <= after || at + span - 1 >= before) return;
        if (lines.slice(index, index + span).some((l) => found.taken.has(l))) return;
        const line = lines[index]!;
        const distance = (p: number) => Math.abs(p - entry.page);
        if (
          !best ||
          line.size > best.line.size ||
          (line.size === best.line.size && distance(page) < distance(best.page))
        )
          best = { line, span, page, lines, index };
      });
    }
    if (!best) continue;
    found.headings.set(best.line, { level: Math.min(entry.depth + 1, 6), lines: best.span });
    for (const line of best.lines.slice(best.index, best.index + best.span)) found.taken.add(line);
    found.foundAt.set(entryIndex, best.line);
  }
}
