/**
 * Scores Markdown (ours or the anchor's) against what a real PDF carries (truth.ts): outline
 * heading F1, running-line leaks, tables in files that have none, word recall, and reading order
 * on two-column pages (share of the page's word pairs, in pdftotext's order, found in the output).
 */
import { normaliseText, parseTables, plainText } from '../score.js';
import { folioKey, runningKey, type RealTruth } from './truth.js';

export interface RealScore {
  headings?: { truePositives: number; predicted: number; expected: number };
  /** Running lines found in the output of the page they run on (file-wide when the output has no page markers). */
  runningLeaks: number;
  /** The former measure: output lines anywhere that are one of the file's running lines or folios. */
  runningLeaksAnywhere: number;
  runningLines: number;
  /** Tables in a file without one (truth 'none'). */
  falseTables?: number;
  /** Tables in a file whose only sign of a table is its source (truth 'borderline'). */
  borderlineTables?: number;
  /** Tables in a file that has tables (truth 'yes'). */
  foundTables?: number;
  words: { found: number; total: number };
  order: { found: number; total: number };
}

const PAGE_MARKER = /^<!-- page (\d+) -->$/;
const HEADING = /^(#{1,6})\s+(.*?)\s*#*$/;
/**
 * Section numbers in front of a title ("2.1", "A.3", "IV.", "Chapter 1:", "Appendix 3.A") are compared
 * without: outlines keep or drop them. A lone letter is a number after a chapter word or before a
 * full stop ("A. Proofs"); in "A section" it is a word.
 */
const CHAPTER_WORD = String.raw`(?:chapter|section|part|appendix)\s+`;
const SECTION_NUMBER = new RegExp(
  String.raw`^(?:${CHAPTER_WORD}[A-Z]\b|(?:${CHAPTER_WORD})?(?:\d+(?:\.(?:\d+|[A-Z]\b))*|[A-Z](?:\.\d+)+|` +
    String.raw`[A-Z](?=\.)|[IVXLC]+))[.:]?\s+(?=\S)`,
  'i',
);

export function headingKey(text: string): string {
  const plain = normaliseText(text).replace(SECTION_NUMBER, '');
  return (
    plain
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim()
      // Spaces beside Chinese or Japanese say nothing ("第 1 节介绍" is "第1节 介绍"), as for word recall.
      .replace(CJK_SPACE, '')
  );
}

const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}';
const CJK_SPACE = new RegExp(`(?<=[${CJK}])\\s+|\\s+(?=[${CJK}])`, 'gu');
const CJK_OR_WORD = new RegExp(`[${CJK}]|(?:(?![${CJK}])[\\p{L}\\p{N}])+`, 'gu');

/**
 * Words, compared as readers see them: compatibility forms folded (the ligature "ﬁ" is "fi", as
 * pdftotext keeps it and pdfjs does not), and Chinese or Japanese text counted character by
 * character, since where a converter puts spaces in it says nothing about lost words. An
 * underscore separates words ("bin_PROGRAMS"): Markdown emphasis would otherwise glue them. A
 * dotless ı under an accent reads as í (pdftotext keeps "ı́" where TeX built í from ı and ´).
 */
export function tokens(text: string): string[] {
  return (
    text
      .replace(/ı([\u0300-\u0314])/gu, 'i$1')
      .normalize('NFKC')
      .replace(/_/g, ' ')
      .replace(/(\p{Ll})-\s*\n\s*(\p{Ll})/gu, '$1$2')
      .toLowerCase()
      .match(CJK_OR_WORD) ?? []
  );
}

function multisetFound(expected: readonly string[], found: readonly string[]): number {
  const left = new Map<string, number>();
  for (const key of found) left.set(key, (left.get(key) ?? 0) + 1);
  let hits = 0;
  for (const key of expected) {
    const n = left.get(key) ?? 0;
    if (n > 0) {
      hits++;
      left.set(key, n - 1);
    }
  }
  return hits;
}

/** `words` less one occurrence of each of `taken`. */
export function withoutWords(words: readonly string[], taken: readonly string[]): string[] {
  const left = new Map<string, number>();
  for (const key of taken) left.set(key, (left.get(key) ?? 0) + 1);
  return words.filter((word) => {
    const n = left.get(word) ?? 0;
    if (n > 0) left.set(word, n - 1);
    return n === 0;
  });
}

export const pairs = (words: readonly string[]) => words.slice(1).map((w, i) => `${words[i]} ${w}`);

/** The output's text of each page, by its page markers. */
export function outputPages(markdown: string): Map<number, string> {
  const pages = new Map<number, string[]>();
  let page = 1;
  for (const line of markdown.split('\n')) {
    const marker = PAGE_MARKER.exec(line.trim());
    if (marker) page = Number(marker[1]);
    else pages.set(page, [...(pages.get(page) ?? []), line]);
  }
  return new Map([...pages].map(([n, lines]) => [n, plainText(asReadText(lines.join('\n')))]));
}

const lineKey = (line: string) => {
  const text = plainText(line);
  return folioKey(text) ?? runningKey(text);
};

/**
 * Running lines that reach the body of the page they run on: each page's own running lines
 * (truth.runningTexts), looked for in that page's output (its page marker to the next). A "3"
 * in a code listing or a Karnaugh map on page 7 is content, not page 3's folio leaking. Since
 * 2026-11-26 14:30, a page's text that carries the same line outside its running lines (pdftotext's
 * lines, less the running ones: a listing's line number 11 on page 11, a section heading that
 * its page's running head repeats, a title printed twice on a title page) lets the output carry
 * it as often; a running line that the outline names as a section starting on its page is that
 * section's heading, which the output may carry once; so is a line found only on pages where a
 * top-level section of the outline starts, when other pages have running lines of their own (a
 * chapter label, "Kapitel 1" above its title); and a line with neither letter nor digit left
 * (`<Editors>` read as a tag, a table's `| --- |` row) is nobody's running line.
 */
export function leakedLines(markdown: string, truth: RealTruth): { page: number; line: string }[] {
  const byPage = new Map<number, string[]>();
  let page = 1;
  for (const line of markdown.split('\n')) {
    const marker = PAGE_MARKER.exec(line.trim());
    if (marker) page = Number(marker[1]);
    else if (line.trim()) byPage.set(page, [...(byPage.get(page) ?? []), line]);
  }
  const chapterPages = new Set(truth.outline.filter((entry) => entry.depth === 0).map((entry) => entry.page));
  const pagesOf = new Map<string, number[]>();
  truth.runningTexts.forEach((running, index) => {
    for (const key of new Set(running.map(lineKey))) pagesOf.set(key, [...(pagesOf.get(key) ?? []), index + 1]);
  });
  const elsewhere = truth.runningTexts.some((running, index) => running.length > 0 && !chapterPages.has(index + 1));
  const labels = new Set(
    [...pagesOf]
      .filter(
        ([key, pages]) =>
          elsewhere && !key.startsWith('folio:') && pages.length >= 2 && pages.every((p) => chapterPages.has(p)),
      )
      .map(([key]) => key),
  );
  const leaks: { page: number; line: string }[] = [];
  truth.runningTexts.forEach((running, index) => {
    const left = new Map<string, number>();
    for (const key of running.map(lineKey)) if (MEANINGFUL.test(key)) left.set(key, (left.get(key) ?? 0) + 1);
    // How often the page's text carries each running line outside its running lines; once at least
    // when the outline names it as the title of a section on this page (the line is its heading).
    const body = new Map<string, number>();
    for (const key of (truth.pageTexts[index] ?? '').split('\n').map(lineKey))
      if (left.has(key)) body.set(key, (body.get(key) ?? 0) + 1);
    const titles = new Set(truth.outline.filter((entry) => entry.page === index + 1).map((e) => headingKey(e.title)));
    const headings = new Set([
      ...running.filter((line) => titles.has(headingKey(line))).map(lineKey),
      ...running.map(lineKey).filter((key) => labels.has(key)),
    ]);
    for (const [key, n] of left) body.set(key, Math.max(headings.has(key) ? 1 : 0, (body.get(key) ?? 0) - n));
    for (const line of byPage.get(index + 1) ?? []) {
      const key = lineKey(line);
      const n = left.get(key) ?? 0;
      if (n === 0) continue;
      if ((body.get(key) ?? 0) > 0) body.set(key, body.get(key)! - 1);
      else {
        leaks.push({ page: index + 1, line });
        left.set(key, n - 1);
      }
    }
  });
  return leaks;
}

const MEANINGFUL = /[\p{L}\p{N}]/u;

/**
 * The words each page is expected to give. Running lines are meant to go: the words expected are
 * the body's. Their words are taken out of the page's (pdftotext without -layout may cut a header
 * into lines of its own).
 */
export function bodyWordsByPage(truth: RealTruth): string[][] {
  return truth.pageTexts.map((page, index) => bodyWords(truth, page, index + 1));
}

/**
 * Running lines are taken out line by line first: a line of the text made only of their words (the
 * whole head, or the folio that pdftotext cut from it), so that a word hyphenated around it (a
 * folio between a column's "devel-" and the next column's "oped") joins; the words of running lines
 * that are not lines of their own are taken out after.
 */
function bodyWords(truth: RealTruth, text: string, page: number): string[] {
  let running = tokens((truth.runningTexts[page - 1] ?? []).join('\n'));
  const kept: string[] = [];
  for (const line of text.split('\n')) {
    const words = tokens(line);
    const rest = withoutWords(running, words);
    if (words.length && rest.length === running.length - words.length) running = rest;
    else kept.push(line);
  }
  return withoutWords(tokens(kept.join('\n')), running);
}

/** Each two-column page's body words in the reference reading order (truth.columnTexts). */
export function columnWordsByPage(truth: RealTruth): Map<number, string[]> {
  return new Map(truth.twoColumnPages.map((page, i) => [page, bodyWords(truth, truth.columnTexts[i] ?? '', page)]));
}

/**
 * Markdown as a reader sees its text, before plainText takes the syntax out: an underscore
 * separates words (emphasis would glue `bin_PROGRAMS`), a lone star between two characters of
 * words is one ("list (4*itemize)" is not emphasis), and an ordered item shows its number ("2.
 * Second item" reads "2 Second item", as pdftotext prints the PDF's "2.").
 */
function asReadText(markdown: string): string {
  return markdown
    .replace(/_/g, ' ')
    .replace(/(?<=[\p{L}\p{N}])\*(?=[\p{L}\p{N}])/gu, ' ')
    .replace(/^(\s*)(\d{1,9})[.)](?=\s)/gm, '$1$2');
}

/** The words of an output, as a reader sees them. */
export const outputWords = (markdown: string): string[] => tokens(plainText(asReadText(markdown)));

export function scoreReal(markdown: string, truth: RealTruth): RealScore {
  const lines = markdown.split('\n');
  const outline = truth.outline.map((e) => headingKey(e.title)).filter(Boolean);
  const produced = lines.flatMap((line) => {
    const match = HEADING.exec(line);
    return match ? [headingKey(match[2]!)] : [];
  });
  // A key leaks at most as often as the file carries it (a lone number elsewhere is content).
  const leaked = new Map<string, number>();
  for (const line of lines) {
    if (!line.trim() || PAGE_MARKER.test(line.trim())) continue;
    const key = lineKey(line);
    if (truth.runningKeys[key]) leaked.set(key, Math.min(truth.runningKeys[key], (leaked.get(key) ?? 0) + 1));
  }
  const runningLeaksAnywhere = [...leaked.values()].reduce((a, b) => a + b, 0);
  const expectedWords = bodyWordsByPage(truth).flat();
  const pages = outputPages(markdown);
  const tables = parseTables(markdown).length;
  let orderFound = 0;
  let orderTotal = 0;
  for (const [page, words] of columnWordsByPage(truth)) {
    const expected = pairs(words);
    orderTotal += expected.length;
    orderFound += multisetFound(expected, pairs(tokens(pages.get(page) ?? '')));
  }
  return {
    headings: outline.length
      ? { truePositives: multisetFound(produced, outline), predicted: produced.length, expected: outline.length }
      : undefined,
    runningLeaks: markdown.split('\n').some((line) => PAGE_MARKER.test(line.trim()))
      ? leakedLines(markdown, truth).length
      : runningLeaksAnywhere,
    runningLeaksAnywhere,
    runningLines: truth.runningLines,
    ...{ none: { falseTables: tables }, borderline: { borderlineTables: tables }, yes: { foundTables: tables } }[
      truth.tables
    ],
    words: {
      found: multisetFound(expectedWords, outputWords(markdown)),
      total: expectedWords.length,
    },
    order: { found: orderFound, total: orderTotal },
  };
}
