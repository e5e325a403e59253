/** Groups positioned runs into lines (by baseline) and segments (by large horizontal gaps). */
import type { Line, Segment, TextRun } from './types.js';

/** Runs this close to a line's baseline (as a fraction of font size) sit on that line. */
const SAME_LINE = 0.4;
/** A gap wider than this (in ems) between runs is a word space. */
const WORD_GAP = 0.15;
/** A gap wider than this (in ems) separates segments: table cells, not words. */
const SEGMENT_GAP = 1.0;
/** Runs this close in position with the same text are one glyph drawn twice (fake bold). */
const OVERPRINT = 1;
/** Run starts this close (points) across lines are one column edge. */
export const ALIGNED = 1;

export function roundSize(size: number): number {
  return Math.round(size * 2) / 2;
}

/** Sort key for reading order: top to bottom, then left to right, with a total tie-break. */
export function compareRuns(a: TextRun, b: TextRun): number {
  return a.baseline - b.baseline || a.x0 - b.x0 || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0);
}

/** A footnote mark: a few digits or a dagger, set smaller than the text beside it and raised. */
const MARK_TEXT = /^(?:\d{1,3}|[*†‡])$/;
const MARK_SIZE = 0.85;
const MARK_RAISE = [0.15, 0.7] as const;
/** How far (in ems of the text) a mark may sit from the word it belongs to. */
const MARK_GAP = 0.3;

function raisedBeside(mark: TextRun, text: TextRun): boolean {
  const raise = text.baseline - mark.baseline;
  return mark.size < MARK_SIZE * text.size && raise >= MARK_RAISE[0] * text.size && raise <= MARK_RAISE[1] * text.size;
}

/**
 * Footnote marks as Markdown footnotes: a raised small number right after a word becomes
 * `[^n]` on the word's baseline; one that opens a line of smaller text (the note at the page
 * foot) becomes `[^n]: `. Without this the raised digits would be lines of their own.
 */
function attachMarks(runs: readonly TextRun[]): TextRun[] {
  return runs.map((run) => {
    const text = run.text.trim();
    if (!MARK_TEXT.test(text)) return run;
    const before = runs.find((r) => r !== run && raisedBeside(run, r) && Math.abs(run.x0 - r.x1) <= MARK_GAP * r.size);
    if (before) return { ...run, text: `[^${text}]`, baseline: before.baseline, size: before.size, bold: before.bold };
    const after = runs.find((r) => r !== run && raisedBeside(run, r) && Math.abs(r.x0 - run.x1) <= MARK_GAP * r.size);
    const opensLine = after && !runs.some((r) => r !== run && Math.abs(r.baseline - after.baseline) < 0.4 * after.size && r.x1 <= run.x0 + 0.5);
    if (after && opensLine) return { ...run, text: `[^${text}]: `, baseline: after.baseline, size: after.size, bold: after.bold };
    return run;
  });
}

export function buildLines(input: readonly TextRun[]): Line[] {
  const runs = attachMarks(input);
  const sorted = [...runs].sort(compareRuns);
  const groups: TextRun[][] = [];
  for (const run of sorted) {
    const group = groups[groups.length - 1];
    const anchor = group?.[0];
    if (group && anchor && Math.abs(run.baseline - anchor.baseline) <= SAME_LINE * Math.min(run.size, anchor.size)) group.push(run);
    else groups.push([run]);
  }
  return groups.map(toLine);
}

function toLine(group: TextRun[]): Line {
  const runs = dropOverprints([...group].sort((a, b) => a.x0 - b.x0 || a.baseline - b.baseline));
  const size = dominantSize(runs);
  const segments = segmentRuns(runs, size, () => false);
  const boldChars = runs.filter((r) => r.bold).reduce((n, r) => n + r.text.trim().length, 0);
  const allChars = runs.reduce((n, r) => n + r.text.trim().length, 0);
  return {
    text: segments.map((s) => s.text).join(' '),
    segments,
    runs,
    x0: segments[0]!.x0,
    x1: Math.max(...segments.map((s) => s.x1)),
    baseline: Math.min(...runs.map((r) => r.baseline)),
    size,
    bold: allChars > 0 && boldChars >= 0.9 * allChars,
  };
}

/** Joins runs into words and segments; a segment also starts wherever `startsCell` says so. */
function segmentRuns(runs: readonly TextRun[], size: number, startsCell: (run: TextRun) => boolean): Segment[] {
  const segments: Segment[] = [];
  let previous: TextRun | undefined;
  for (const run of runs) {
    const text = run.text.replace(/\s+/g, ' ');
    const segment = segments[segments.length - 1];
    const gap = previous ? run.x0 - previous.x1 : Infinity;
    if (!segment || gap > SEGMENT_GAP * Math.max(size, run.size) || startsCell(run)) {
      segments.push({ text, x0: run.x0, x1: run.x1 });
    } else {
      // Japanese and Chinese words meet without a space, whatever the gap.
      if (joinsUnspaced(segment.text.trimEnd(), text.trimStart())) segment.text = segment.text.trimEnd() + text.trimStart();
      else segment.text += (gap > WORD_GAP * run.size && !segment.text.endsWith(' ') && !text.startsWith(' ') ? ' ' : '') + text;
      segment.x1 = Math.max(segment.x1, run.x1);
    }
    previous = run;
  }
  for (const segment of segments) segment.text = segment.text.trim();
  return segments;
}

/** The line with a new segment at every run starting at one of `starts` (aligned table columns). */
export function splitAtColumns(line: Line, starts: readonly number[]): Line {
  const startsCell = (run: TextRun) => starts.some((x) => Math.abs(run.x0 - x) <= ALIGNED);
  const segments = segmentRuns(line.runs, line.size, startsCell);
  return { ...line, segments, text: segments.map((s) => s.text).join(' ') };
}

function dropOverprints(runs: TextRun[]): TextRun[] {
  return runs.filter(
    (run, i) => !runs.slice(0, i).some((r) => r.text === run.text && Math.abs(r.x0 - run.x0) < OVERPRINT && Math.abs(r.baseline - run.baseline) < OVERPRINT),
  );
}

/** The font size carrying the most characters (rounded, so float noise does not split sizes). */
function dominantSize(runs: readonly TextRun[]): number {
  const weights = new Map<number, number>();
  for (const run of runs) weights.set(roundSize(run.size), (weights.get(roundSize(run.size)) ?? 0) + run.text.trim().length);
  return [...weights].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0]![0];
}

/** Chinese and Japanese characters and their punctuation: written without spaces between words. */
const UNSPACED = '[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\u3000-\\u303f\\uff00-\\uffef]';
const UNSPACED_END = new RegExp(`${UNSPACED}$`, 'u');
const UNSPACED_START = new RegExp(`^${UNSPACED}`, 'u');

/** Text meeting across a line break or between OCR words with no space: Japanese, Chinese. */
export function joinsUnspaced(before: string, after: string): boolean {
  return UNSPACED_END.test(before) && UNSPACED_START.test(after);
}

/** Joins two lines of running text, undoing end-of-line hyphenation. */
export function joinText(before: string, after: string): string {
  if (before === '') return after;
  if (after === '') return before;
  if (/\p{Ll}-$/u.test(before) && /^\p{Ll}/u.test(after)) return before.slice(0, -1) + after;
  if (joinsUnspaced(before, after)) return before + after;
  return `${before} ${after}`;
}
