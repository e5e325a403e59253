/**
 * Scores a Markdown conversion against the corpus truth: heading F1 on (level, text), list F1 on
 * (depth, number, text) of each item, table cell accuracy, text similarity, running-line leaks and page markers.
 * Works on any Markdown (ours or the anchor's), so both are scored by the same rules.
 */
import { distance } from 'fastest-levenshtein';
import { teds } from '../lib/teds.js';
import type { TruthMeta } from './corpus/generate.js';

export interface Counts {
  truePositives: number;
  predicted: number;
  expected: number;
}

export interface DocumentScore {
  headings: Counts;
  listItems: Counts;
  tableCells: { correct: number; total: number };
  tables: TableDetection;
  textSimilarity: number;
  runningLeaks: number;
  pageMarkers: { correct: number; total: number };
}

const PAGE_MARKER = /^<!-- page (\d+) -->$/;
const HEADING = /^(#{1,6})\s+(.*?)\s*#*$/;
const LIST_ITEM = /^\s*([-*+•]|\d+[.)])\s+(.*)$/;
/** A source marker left inside an item's text ("- • item", "- 1) item"): the item still counts as found. */
const MARKER_REMNANT = /^(?:[•·–—\-▪■◦*]|\(?(?:\d{1,3}|[a-z])[.)])\s+/i;
const TABLE_SEPARATOR = /^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$/;

/** Inline text without emphasis, links or escapes, whitespace collapsed. */
export function normaliseText(text: string): string {
  return (
    text
      // A link shows its text; an escaped bracket (`\[x](y)`) is no link (CommonMark).
      .replace(/(?<!\\)!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      // An inline script is part of its word: `mc<sup>2</sup>` reads "mc2", as pdftotext prints it.
      .replace(/<\/?su[bp]>/g, '')
      // A tag is raw HTML, hidden by a reader; `\<stmt>` is escaped text, shown. A tag opens with a
      // letter after `<` (CommonMark): "|πA| < |λ| ... A/λ > 0" is text, not one long tag.
      .replace(/(?<!\\)<(?:\/?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?\/?|[!?][^<>]*)>/g, ' ')
      .replace(/[*_`]+/g, '')
      // CommonMark escapes ASCII punctuation only: `\def` in a TeX listing is a backslash and a word.
      .replace(/\\([!-/:-@[-`{-~])/g, '$1')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

export function runningKey(text: string): string {
  return normaliseText(text).toLowerCase().replace(/\d+/g, '#');
}

function isTableLine(line: string): boolean {
  return line.trim().startsWith('|');
}

function tableCells(line: string): string[] {
  const inner = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  return inner.split(/(?<!\\)\|/).map((cell) => normaliseText(cell));
}

export function parseTables(markdown: string): string[][][] {
  const tables: string[][][] = [];
  let current: string[][] | undefined;
  for (const line of markdown.split('\n')) {
    if (!isTableLine(line)) {
      current = undefined;
      continue;
    }
    if (!current) {
      current = [];
      tables.push(current);
    }
    if (!TABLE_SEPARATOR.test(line.trim())) current.push(tableCells(line));
  }
  return tables;
}

function headingKeys(markdown: string): string[] {
  return markdown.split('\n').flatMap((line) => {
    const match = HEADING.exec(line);
    return match ? [`${match[1]!.length}|${normaliseText(match[2]!)}`] : [];
  });
}

/**
 * List items as (nesting level, number, text): an ordered item must keep its number (a list that
 * starts at 7 or resumes after a paragraph), and a nested item its depth. Depth counts distinct
 * indents within one run of list lines, so any consistent indentation scores the same. Text
 * indented under an item's text (a paragraph of the item, e.g. its words on the next page) is
 * more of that item; page markers are not content and do not end a list.
 */
function listKeys(markdown: string): string[] {
  const items: { depth: number; marker: string; text: string; textIndent: number }[] = [];
  let indents: number[] = [];
  let open: (typeof items)[number] | undefined;
  for (const line of markdown.split('\n')) {
    if (line.trim() === '' || PAGE_MARKER.test(line.trim())) continue;
    const indent = line.length - line.trimStart().length;
    const match = LIST_ITEM.exec(line);
    if (!match || isTableLine(line)) {
      if (open && indent >= open.textIndent) open.text = `${open.text} ${normaliseText(line)}`;
      else [indents, open] = [[], undefined];
      continue;
    }
    while (indents.length && indents[indents.length - 1]! > indent) indents.pop();
    if (!indents.length || indents[indents.length - 1]! < indent) indents.push(indent);
    open = {
      depth: indents.length - 1,
      marker: match[1]!,
      text: normaliseText(match[2]!),
      textIndent: indent + match[1]!.length + 1,
    };
    items.push(open);
  }
  return items.map(({ depth, marker, text }) => {
    // The number is the marker's, or that of a source marker left in the text ("- 7. item", "- b) item").
    const remnant = /^\(?(\d{1,3}|[a-z])[.)]\s/i.exec(text)?.[1];
    const number =
      /^\d+/.exec(marker)?.[0] ??
      (remnant ? String(/\d/.test(remnant) ? Number(remnant) : remnant.toLowerCase().charCodeAt(0) - 96) : '-');
    return `${depth}|${number}|${text.replace(MARKER_REMNANT, '')}`;
  });
}

/** Multiset match: how many predicted keys pair with an expected key. */
function match(predicted: readonly string[], expected: readonly string[]): Counts {
  const remaining = new Map<string, number>();
  for (const key of expected) remaining.set(key, (remaining.get(key) ?? 0) + 1);
  let truePositives = 0;
  for (const key of predicted) {
    const left = remaining.get(key) ?? 0;
    if (left > 0) {
      truePositives++;
      remaining.set(key, left - 1);
    }
  }
  return { truePositives, predicted: predicted.length, expected: expected.length };
}

export function f1(counts: Counts): number {
  if (counts.expected === 0 && counts.predicted === 0) return 1;
  if (counts.truePositives === 0) return 0;
  const precision = counts.truePositives / counts.predicted;
  const recall = counts.truePositives / counts.expected;
  return (2 * precision * recall) / (precision + recall);
}

function cellsMatching(expected: string[][], predicted: string[][]): number {
  let correct = 0;
  for (const [r, row] of expected.entries()) {
    for (const [c, cell] of row.entries()) if (predicted[r]?.[c] === cell) correct += 1;
  }
  return correct;
}

/** Each truth table is paired with the unused predicted table that matches most of its cells. */
export function scoreTables(output: string, truth: string): { correct: number; total: number } {
  const expected = parseTables(truth);
  const unused = parseTables(output);
  let correct = 0;
  let total = 0;
  for (const table of expected) {
    total += table.flat().length;
    const scores = unused.map((candidate) => cellsMatching(table, candidate));
    const best = scores.indexOf(Math.max(-1, ...scores));
    if (best < 0) continue;
    correct += scores[best]!;
    unused.splice(best, 1);
  }
  return { correct, total };
}

/** A truth table counts as found when the output table paired with it scores at least this TEDS. */
export const TABLE_FOUND_TEDS = 0.5;

export interface TableDetection {
  /** Truth tables, output tables, and pairs of the two that score TABLE_FOUND_TEDS or more. */
  truth: number;
  output: number;
  found: number;
  /** TEDS summed over truth tables (0 for a truth table no output table pairs with). */
  tedsSum: number;
}

/**
 * Tables paired by TEDS, best pairs first, each table in one pair at most: precision is found / output tables,
 * recall found / truth tables, and a table split in two (a continued table read as two) pairs once and leaves
 * its other half an output table with no truth.
 */
export function scoreTableDetection(output: string, truth: string): TableDetection {
  const expected = parseTables(truth);
  const predicted = parseTables(output);
  const pairs = expected
    .flatMap((table, e) => predicted.map((candidate, p) => ({ e, p, score: teds(candidate, table) })))
    .sort((a, b) => b.score - a.score || a.e - b.e || a.p - b.p);
  const usedTruth = new Set<number>();
  const usedOutput = new Set<number>();
  let found = 0;
  let tedsSum = 0;
  for (const pair of pairs) {
    if (usedTruth.has(pair.e) || usedOutput.has(pair.p) || pair.score <= 0) continue;
    usedTruth.add(pair.e);
    usedOutput.add(pair.p);
    tedsSum += pair.score;
    if (pair.score >= TABLE_FOUND_TEDS) found++;
  }
  return { truth: expected.length, output: predicted.length, found, tedsSum };
}

/** Text content only: markers, heading hashes, list markers and table pipes removed. */
export function plainText(markdown: string): string {
  return markdown
    .split('\n')
    .filter((line) => !PAGE_MARKER.test(line.trim()) && !TABLE_SEPARATOR.test(line.trim()))
    .map((line) => {
      if (isTableLine(line)) return tableCells(line).join(' ');
      const heading = HEADING.exec(line);
      if (heading) return heading[2]!;
      const item = LIST_ITEM.exec(line);
      return item ? item[2]! : line;
    })
    .map(normaliseText)
    .filter(Boolean)
    .join(' ');
}

function textSimilarity(output: string, truth: string): number {
  const [a, b] = [plainText(output), plainText(truth)];
  const longest = Math.max(a.length, b.length);
  return longest === 0 ? 1 : 1 - distance(a, b) / longest;
}

/** Output lines that are, or contain, a running header or footer. */
export function runningLeaks(output: string, runningLines: readonly string[]): number {
  const keys = runningLines.map(runningKey);
  return output.split('\n').filter((line) => {
    const key = runningKey(plainText(line));
    return keys.some((running) => key === running || (running.length >= 8 && key.includes(running)));
  }).length;
}

function firstWords(text: string, count: number): string {
  return text.toLowerCase().split(' ').filter(Boolean).slice(0, count).join(' ');
}

/** Page N is right when its marker comes after marker N-1 and is followed by page N's first words. */
function scorePageMarkers(output: string, meta: TruthMeta): { correct: number; total: number } {
  const lines = output.split('\n');
  let correct = 0;
  let previousIndex = -1;
  meta.pageStarts.forEach((start, i) => {
    const index = lines.findIndex((line) => PAGE_MARKER.exec(line.trim())?.[1] === String(i + 1));
    if (index <= previousIndex) return;
    previousIndex = index;
    const expected = firstWords(normaliseText(start), 4);
    const following = plainText(lines.slice(index + 1).join('\n'));
    if (firstWords(following, expected.split(' ').length) === expected) correct++;
  });
  return { correct, total: meta.pages };
}

export function scoreDocument(output: string, truth: string, meta: TruthMeta): DocumentScore {
  return {
    headings: match(headingKeys(output), headingKeys(truth)),
    listItems: match(listKeys(output), listKeys(truth)),
    tableCells: scoreTables(output, truth),
    tables: scoreTableDetection(output, truth),
    textSimilarity: textSimilarity(output, truth),
    runningLeaks: runningLeaks(output, meta.runningLines),
    pageMarkers: scorePageMarkers(output, meta),
  };
}
