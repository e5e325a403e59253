/** Groups positioned runs into lines (by baseline) and segments (by large horizontal gaps). */
import type { Line, Segment, TextRun } from './types.js';

/** Runs this close to a line's baseline (as a fraction of font size) sit on that line. */
export const SAME_LINE = 0.4;
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
const MARK_TEXT = /^(?:\d{1,3}|[*∗†‡§¶])$/;
/** A script is set at most this share of the text's size. */
const SCRIPT_SIZE = 0.85;
/** Raised by this share of the text's size (superscript, footnote mark)... */
const RAISE = [0.15, 0.7] as const;
/** ...or lowered by this share (subscript). */
const LOWER = [0.08, 0.5] as const;
/** How far (in ems of the text) a script may sit from the text it belongs to. */
const SCRIPT_GAP = 0.3;
/**
 * How far (in ems of the text) a small letter may be kerned back into the run before it and still
 * belong to it: the raised A of the LaTeX logo sits a third of an em inside the L.
 */
const KERN_BACK = 0.5;
/** A script is short: an exponent, an index, a mark, not a line of small print. */
const MAX_SCRIPT_CHARS = 12;

type Shift = 'raised' | 'lowered' | undefined;

function shiftBeside(script: TextRun, text: TextRun): Shift {
  if (script.size >= SCRIPT_SIZE * text.size) return undefined;
  const raise = text.baseline - script.baseline;
  if (raise >= RAISE[0] * text.size && raise <= RAISE[1] * text.size) return 'raised';
  if (-raise >= LOWER[0] * text.size && -raise <= LOWER[1] * text.size) return 'lowered';
  return undefined;
}

/** Runs grouped by baseline band, so neighbours are found without scanning the page. */
function baselineIndex(runs: readonly TextRun[]): (run: TextRun) => TextRun[] {
  const band = 6;
  const buckets = new Map<number, TextRun[]>();
  for (const run of runs) {
    const key = Math.floor(run.baseline / band);
    buckets.set(key, [...(buckets.get(key) ?? []), run]);
  }
  return (run) => {
    const reach = Math.ceil(run.size / band) + 1;
    const key = Math.floor(run.baseline / band);
    const near: TextRun[] = [];
    for (let k = key - reach; k <= key + reach; k++) near.push(...(buckets.get(k) ?? []));
    return near;
  };
}

/**
 * Scripts stay inline with the text they belong to. A raised mark that opens a line of smaller
 * text is a footnote (`[^n]: ` at the page foot); the same mark raised after a word is its
 * reference (`word[^n]`), but only when that note exists on the page. Any other small raised or
 * lowered run right after text is a superscript or subscript: `mc<sup>2</sup>`, `H<sub>2</sub>O`.
 * Without this they would become lines of their own, or footnotes pointing nowhere.
 */
function attachScripts(runs: readonly TextRun[]): TextRun[] {
  if (runs.length < 2) return [...runs];
  const largest = Math.max(...runs.map((r) => r.size));
  const isCandidate = (run: TextRun) => run.size < SCRIPT_SIZE * largest && run.text.trim().length <= MAX_SCRIPT_CHARS;
  if (!runs.some(isCandidate)) return [...runs];
  const near = baselineIndex(runs);
  const notes = new Set<string>();
  const opening = new Map<TextRun, TextRun>();
  for (const run of runs) {
    const text = run.text.trim();
    if (!isCandidate(run) || !MARK_TEXT.test(text)) continue;
    const neighbours = near(run);
    const after = neighbours.find(
      (r) => r !== run && shiftBeside(run, r) === 'raised' && Math.abs(r.x0 - run.x1) <= SCRIPT_GAP * r.size,
    );
    const opensLine =
      after &&
      !neighbours.some(
        (r) => r !== run && Math.abs(r.baseline - after.baseline) < 0.4 * after.size && r.x1 <= run.x0 + 0.5,
      );
    if (after && opensLine) {
      notes.add(text);
      opening.set(run, after);
    }
  }
  // Notes set "2 Text of the note" on one baseline in small print, low on the page.
  const body = dominantSize(runs);
  const low =
    Math.max(...runs.map((r) => r.baseline)) -
    0.35 * (Math.max(...runs.map((r) => r.baseline)) - Math.min(...runs.map((r) => r.baseline)));
  for (const run of runs) {
    const text = run.text.trim();
    if (!MARK_TEXT.test(text) || run.size >= SCRIPT_SIZE * body || run.baseline < low || notes.has(text)) continue;
    const line = near(run).filter((r) => Math.abs(r.baseline - run.baseline) < 0.3 * run.size);
    const first = line.every((r) => r === run || r.x0 > run.x1 - 0.5);
    // The note itself is small print too: a listing's line numbers stand before body-size code.
    const followed = line.find(
      (r) => r !== run && r.x0 - run.x1 <= run.size && /\p{L}/u.test(r.text) && r.size < SCRIPT_SIZE * body,
    );
    if (first && followed) {
      notes.add(text);
      opening.set(run, followed);
    }
  }
  return runs.map((run) => {
    const text = run.text.trim();
    const note = opening.get(run);
    if (note) return { ...run, text: `[^${text}]: `, baseline: note.baseline, size: note.size, bold: note.bold };
    if (!isCandidate(run) || !/[^\s\u200b-\u200f\u2060\ufeff]/u.test(text)) return run;
    const before = near(run).find(
      (r) =>
        r !== run &&
        r.size > run.size &&
        run.x0 - r.x1 <= SCRIPT_GAP * r.size &&
        r.x1 - run.x0 <= KERN_BACK * r.size &&
        r.x0 < run.x0 &&
        shiftBeside(run, r) !== undefined,
    );
    const shift = before && shiftBeside(run, before);
    if (!before || !shift) return run;
    // Kerned back into the letter before it (the A of LaTeX, the E of TeX): part of a logo, not a script.
    if (run.x0 < before.x1 - 0.1 * before.size)
      return { ...run, baseline: before.baseline, size: before.size, bold: before.bold };
    const marked =
      shift === 'raised' && MARK_TEXT.test(text) && notes.has(text)
        ? `[^${text}]`
        : shift === 'raised'
          ? `<sup>${text}</sup>`
          : `<sub>${text}</sub>`;
    return {
      ...run,
      text: marked,
      x0: Math.min(run.x0, before.x1),
      baseline: before.baseline,
      size: before.size,
      bold: before.bold,
    };
  });
}

export function buildLines(input: readonly TextRun[]): Line[] {
  const runs = attachScripts(input);
  const sorted = [...runs].sort(compareRuns);
  // A line is judged by its largest run, not its highest: a small raised letter first in the sort
  // (the A of a LaTeX logo) must not set the baseline that its own line's lowered E is measured from.
  const groups: { runs: TextRun[]; anchor: TextRun }[] = [];
  for (const run of sorted) {
    const group = groups[groups.length - 1];
    if (group && Math.abs(run.baseline - group.anchor.baseline) <= SAME_LINE * Math.min(run.size, group.anchor.size)) {
      group.runs.push(run);
      if (run.size > group.anchor.size) group.anchor = run;
    } else groups.push({ runs: [run], anchor: run });
  }
  return groups.map((group) => toLine(group.runs));
}

function toLine(group: TextRun[]): Line {
  const runs = composeAccents(dropOverprints([...group].sort((a, b) => a.x0 - b.x0 || a.baseline - b.baseline)));
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
      if (joinsUnspaced(segment.text.trimEnd(), text.trimStart()))
        segment.text = segment.text.trimEnd() + text.trimStart();
      else
        segment.text +=
          (gap > WORD_GAP * run.size && !segment.text.endsWith(' ') && !text.startsWith(' ') ? ' ' : '') + text;
      segment.x1 = Math.max(segment.x1, run.x1);
    }
    previous = run;
  }
  for (const segment of segments) segment.text = segment.text.trim();
  return segments;
}

/**
 * The line with a new segment at every run starting at one of `starts` (aligned table columns). In a header set in
 * bold, a run is also a cell's start when it is the first past an edge (the run before ends short of it): a header
 * cell is set centred over its column ("Tested up to" 3 pt right of the rows' cells).
 */
export function splitAtColumns(line: Line, starts: readonly number[]): Line {
  const opening = new Set(
    line.bold
      ? line.runs.filter(
          (run, i) => i > 0 && starts.some((x) => line.runs[i - 1]!.x1 <= x + ALIGNED && run.x0 >= x - ALIGNED),
        )
      : [],
  );
  const startsCell = (run: TextRun) => opening.has(run) || starts.some((x) => Math.abs(run.x0 - x) <= ALIGNED);
  const segments = segmentRuns(line.runs, line.size, startsCell);
  return { ...line, segments, text: segments.map((s) => s.text).join(' ') };
}

/** Spacing accents as typesetters draw them over or under a letter, and the combining marks they stand for. */
const COMBINING: Readonly<Record<string, string>> = {
  '`': '\u0300',
  '´': '\u0301',
  ˆ: '\u0302',
  '˜': '\u0303',
  '¯': '\u0304',
  '˘': '\u0306',
  '˙': '\u0307',
  '¨': '\u0308',
  '˚': '\u030a',
  '˝': '\u030b',
  ˇ: '\u030c',
  '¸': '\u0327',
  '˛': '\u0328',
};
/** An accent overlaps its letter by more than this (in ems): kerning between letters never does. */
const ACCENT_OVERLAP = 0.1;

/** The letter with the mark, composed where Unicode has the letter: a dotless ı or ȷ takes the accent for its dot. */
function withMark(letter: string, mark: string): string {
  const above = mark < '\u0315';
  const base = above && letter === 'ı' ? 'i' : above && letter === 'ȷ' ? 'j' : letter;
  return (base + mark).normalize('NFC');
}

/**
 * An accent drawn as a glyph of its own over a letter (TeX's \accent in OT1 fonts: "Cap´" then
 * "ıtulo" moved back under it) is that letter's mark: "Capítulo", not "Cap´ıtulo". Runs overlap
 * only there; the accent may end the run before its letter or open the run after it.
 */
function composeAccents(runs: readonly TextRun[]): TextRun[] {
  const out: TextRun[] = [];
  for (const run of runs) {
    const previous = out[out.length - 1];
    if (!previous || run.x0 >= previous.x1 - ACCENT_OVERLAP * run.size) {
      out.push(run);
      continue;
    }
    const before = [...previous.text.trimEnd()];
    const after = [...run.text.trimStart()];
    const [last, first] = [before[before.length - 1] ?? '', after[0] ?? ''];
    if (COMBINING[last] && /\p{L}/u.test(first)) {
      const rest = before.slice(0, -1).join('');
      const merged = { ...run, text: withMark(first, COMBINING[last]!) + after.slice(1).join('') };
      if (rest.trim()) out.splice(out.length - 1, 1, { ...previous, text: rest }, merged);
      else out.splice(out.length - 1, 1, { ...merged, x0: Math.min(previous.x0, run.x0) });
    } else if (COMBINING[first] && /\p{L}/u.test(last)) {
      const joined = { ...previous, text: before.slice(0, -1).join('') + withMark(last, COMBINING[first]!) };
      out[out.length - 1] = after.length > 1 ? joined : { ...joined, x1: Math.max(previous.x1, run.x1) };
      if (after.length > 1) out.push({ ...run, text: after.slice(1).join('') });
    } else out.push(run);
  }
  return out;
}

function dropOverprints(runs: TextRun[]): TextRun[] {
  return runs.filter(
    (run, i) =>
      !runs
        .slice(0, i)
        .some(
          (r) =>
            r.text === run.text &&
            Math.abs(r.x0 - run.x0) < OVERPRINT &&
            Math.abs(r.baseline - run.baseline) < OVERPRINT,
        ),
  );
}

/** The font size carrying the most characters (rounded, so float noise does not split sizes). */
function dominantSize(runs: readonly TextRun[]): number {
  const weights = new Map<number, number>();
  for (const run of runs)
    weights.set(roundSize(run.size), (weights.get(roundSize(run.size)) ?? 0) + run.text.trim().length);
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
