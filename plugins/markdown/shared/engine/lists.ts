/**
 * List markers and where an item's text starts. A list item is a marker and a hanging indent:
 * its text starts at one x (the text indent) and its further lines, in this column or the next,
 * go on at that x. Items of one level share that text indent, whatever their markers' widths
 * ("9." and "10." right-aligned); ordered markers keep the number they show.
 */
import type { Line } from './types.js';

/**
 * Glyphs set as bullets: the classic ones, arrows, stars, triangles, check marks and boxes, and a
 * glyph the font left without a Unicode meaning (a C1 control or private-use code point, as TeX's
 * symbol fonts and Word's Symbol/Wingdings bullets often are).
 */
const BULLET = /^[•·∙–—\-▪■□◦‣○●*∗⋆★☆►▶▷▸▹➢➤➔→⇒◆◇⋄♦❖✓✔✗✘☐☑✦\u0080-\u009f\ue000-\uf8ff]\s+(\S.*)$/u;
/**
 * Bullets beyond the classic ones, which also open formulas and symbol tables: such a line is an
 * item only beside another item with the same marker (the markers of one list share a style).
 */
const CLASSIC_BULLET = /^[•·∙–—\-▪■□◦‣○●*►➢✓\uf0b7\uf0a7\uf076\uf0d8\uf0fc]$/u;
const NUMBERED = /^(?:\((\d{1,3}|[a-z]|[ivxlc]{1,6})\)|(\d{1,3}|[a-z]|[ivxlc]{1,6})[.)])\s+(\S.*)$/i;
const ROMAN: Record<string, number> = { i: 1, v: 5, x: 10, l: 50, c: 100 };

export type MarkerKind = 'bullet' | 'decimal' | 'alpha' | 'roman';

export interface ListMarker {
  kind: MarkerKind;
  /** The marker as printed ("•", "(b)", "iv."), without the item's text. */
  marker: string;
  /** For ordered markers, what they read as: a single i, v or x may be a letter or a numeral. */
  token?: string;
  /** A rarer bullet glyph: an item only next to a sibling with the same marker. */
  needsSibling?: boolean;
  text: string;
}

export function parseListMarker(text: string): ListMarker | undefined {
  // An item says something: a marker before nothing but spaces or symbols is not one.
  if (!/[\p{L}\p{N}]/u.test(text.replace(/^\S+/, ''))) return undefined;
  const bullet = BULLET.exec(text);
  if (bullet) {
    const marker = text.slice(0, text.length - bullet[1]!.length).trim();
    return { kind: 'bullet', marker, text: bullet[1]!, needsSibling: !CLASSIC_BULLET.test(marker) };
  }
  const numbered = NUMBERED.exec(text);
  if (!numbered) return undefined;
  const token = (numbered[1] ?? numbered[2]!).toLowerCase();
  const marker = text.slice(0, text.length - numbered[3]!.length).trim();
  const kind: MarkerKind = /^\d+$/.test(token)
    ? 'decimal'
    : /^[ivxlc]+$/.test(token) && token.length > 1
      ? 'roman'
      : 'alpha';
  return { kind, marker, token, text: numbered[3]! };
}

/**
 * The number an ordered marker stands for, read in the style of its list: "i." is 9 in a list
 * of letters (after "h.") and 1 in a list of numerals or at the start of a list; "v." after "iv."
 * is 5. Returns the style it was read in, which the next sibling inherits.
 */
export function markerNumber(
  marker: ListMarker,
  previous: { kind: MarkerKind; number?: number } | undefined,
): { kind: MarkerKind; number?: number } {
  const token = marker.token;
  if (token === undefined) return { kind: 'bullet' };
  if (marker.kind === 'decimal') return { kind: 'decimal', number: Number(token) };
  const letter = token.length === 1 ? token.charCodeAt(0) - 96 : undefined;
  const numeral = /^[ivxlc]+$/.test(token) ? romanValue(token) : undefined;
  if (letter !== undefined && numeral !== undefined) {
    const readsAsRoman =
      previous?.kind === 'roman' || (previous?.kind !== 'alpha' && numeral === 1) || previous?.number === numeral - 1;
    const followsLetter = previous?.kind === 'alpha' && previous.number === letter - 1;
    return readsAsRoman && !followsLetter ? { kind: 'roman', number: numeral } : { kind: 'alpha', number: letter };
  }
  return letter !== undefined ? { kind: 'alpha', number: letter } : { kind: 'roman', number: numeral };
}

function romanValue(token: string): number {
  return [...token].reduce((n, c, i, all) => {
    const value = ROMAN[c]!;
    return (ROMAN[all[i + 1] ?? ''] ?? 0) > value ? n - value : n + value;
  }, 0);
}

/**
 * Where the item's own text starts on a marker line: the first run after the marker, or inside
 * the run that holds both, placed by its share of characters (`estimated`: a kern after the marker
 * is not a character, so the estimate may fall short).
 */
export function itemTextX(line: Line, marker: string): { x: number; estimated: boolean } {
  let remaining = marker.replace(/\s+/g, '');
  for (const run of line.runs) {
    const compact = run.text.replace(/\s+/g, '');
    if (!compact) continue;
    if (!remaining) return { x: run.x0 + leadingSpaceWidth(run.text, run.x1 - run.x0), estimated: false };
    if (remaining.startsWith(compact)) {
      remaining = remaining.slice(compact.length);
      continue;
    }
    if (compact.startsWith(remaining)) {
      // Marker and text in one run: place the text by its share of the run's characters.
      let seen = 0;
      let index = 0;
      while (index < run.text.length && seen < remaining.length) if (!/\s/.test(run.text[index++]!)) seen++;
      while (index < run.text.length && /\s/.test(run.text[index]!)) index++;
      return { x: run.x0 + ((run.x1 - run.x0) * index) / run.text.length, estimated: true };
    }
    break;
  }
  const share = (marker.length + 1) / Math.max(line.text.length, 1);
  return { x: line.x0 + (line.x1 - line.x0) * share, estimated: true };
}

function leadingSpaceWidth(text: string, width: number): number {
  const spaces = text.length - text.trimStart().length;
  return spaces ? (width * spaces) / text.length : 0;
}

/** Columns further apart than this (points) at their left edges are different columns. */
const COLUMN_APART = 30;

/**
 * The left edge of the column each line sits in, so indents compare across columns and pages.
 * Lines run in reading order; a new page or a column break starts a new stretch. Stretches whose
 * leftmost lines lie within COLUMN_APART of each other share one edge (the leftmost), so a column
 * holding only list items still measures its indents from the margin the body text uses.
 */
export function columnLefts(lines: readonly { page: number; line: Line; columnBreak?: boolean }[]): number[] {
  const stretch: number[] = [];
  const mins: number[] = [];
  lines.forEach((placed, i) => {
    const starts = i === 0 || placed.columnBreak || placed.page !== lines[i - 1]!.page;
    if (starts) mins.push(placed.line.x0);
    const s = mins.length - 1;
    mins[s] = Math.min(mins[s]!, placed.line.x0);
    stretch.push(s);
  });
  const sorted = [...new Set(mins)].sort((a, b) => a - b);
  const edge = new Map<number, number>();
  let groupStart = Number.NEGATIVE_INFINITY;
  for (const x of sorted) {
    if (x - groupStart > COLUMN_APART) groupStart = x;
    edge.set(x, groupStart);
  }
  return stretch.map((s) => edge.get(mins[s]!)!);
}
