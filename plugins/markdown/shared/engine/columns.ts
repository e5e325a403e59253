/**
 * Reading order by layout. A page is read as one column unless a gutter shows: a vertical strip
 * in the middle of the text that no line crosses, with prose lines filling both sides of it.
 * Then lines and tables that cross the gutter (a title, a wide table), and headings with an
 * empty stretch beside them in the other column, are wide: they cut the page into bands, and each
 * band is read left column first, then right. Drawn rules never make columns: only text does.
 */
import { buildLines, roundSize, SAME_LINE } from './lines.js';
import type { Table } from './tables.js';
import type { Line } from './types.js';

/** One stretch of the page read top to bottom: a column of a band, or wide lines and tables. */
export interface Flow {
  lines: Line[];
  tables: Table[];
  /** It starts at the top of a new column (the right column of a band): text may run on into it. */
  columnBreak: boolean;
}

/** The gutter is searched for in this middle share of the text's width. */
const GUTTER_SEARCH = [0.3, 0.7] as const;
/** Lines with text on both sides of the gutter needed before a page counts as two columns. */
const MIN_TWO_SIDED = 4;
/** Lines on each side filling this share of their column needed (prose, not table cells). */
const MIN_FULL_LINES = 3;
const FULL_SHARE = 0.6;
/**
 * A column is at least this wide (in ems of the body text): a line of prose holds several words.
 * The cells of a table of notes, a few words wide, are not columns.
 */
const MIN_COLUMN_EMS = 12;
/** ...and with most of their characters in words (prose, not a grid of glyphs). */
const PROSE_SHARE = 0.5;
/** Headings larger than body by this much (points) may cut bands. */
const HEADING_STEP = 0.9;
/**
 * A gap wider than this (in ems) may be a gutter. Segments split at a full em, but LaTeX's
 * two-column classes set the columns 10 pt apart, which is one em of 10 pt text and less of 11
 * or 12 pt: there the columns of a line join into one segment and only a narrower cut sees them.
 */
const NARROW_GAP = 0.5;

/** Horizontal stretches of a line's text: its segments, or its runs cut at narrower gaps. */
type Spans = (line: Line) => readonly { x0: number; x1: number }[];

const segmentSpans: Spans = (line) => line.segments;

const narrowSpans: Spans = (line) => {
  const spans: { x0: number; x1: number }[] = [];
  for (const run of line.runs) {
    const last = spans[spans.length - 1];
    if (last && run.x0 - last.x1 <= NARROW_GAP * Math.max(line.size, run.size)) last.x1 = Math.max(last.x1, run.x1);
    else spans.push({ x0: run.x0, x1: run.x1 });
  }
  return spans;
};

function crossesWith(spans: Spans, line: Line, x: number): boolean {
  return spans(line).some((s) => s.x0 < x && s.x1 > x);
}

const crosses = (line: Line, x: number) => crossesWith(narrowSpans, line, x);

/**
 * x of the page's gutter, if its lines sit in two columns. Segments first; when most lines cross
 * what they find, narrower gaps (the columns of most lines were joined). Which lines cross the
 * gutter is always told by the narrower gaps: a line whose two columns are an em apart is two
 * lines. A page of one column whose runs happen to leave a word gap at one place is not two
 * columns: most lines must sit beside the gutter found by narrower gaps.
 */
export function findGutter(lines: readonly Line[]): number | undefined {
  const mostlyBeside = (x: number) => 2 * lines.filter((l) => crosses(l, x)).length < lines.length;
  const wide = gutterBy(lines, segmentSpans);
  if (wide !== undefined && mostlyBeside(wide)) return wide;
  const narrow = gutterBy(lines, narrowSpans);
  return narrow !== undefined && mostlyBeside(narrow) ? narrow : wide;
}

function gutterBy(lines: readonly Line[], spans: Spans): number | undefined {
  if (lines.length < MIN_TWO_SIDED) return undefined;
  const left = Math.min(...lines.map((l) => l.x0));
  const right = Math.max(...lines.map((l) => l.x1));
  const width = right - left;
  let best: { x: number; crossing: number; run: number } | undefined;
  let runStart = -1;
  let previous = -1;
  // Scan whole points; among the positions crossed by the fewest lines, take the middle of the widest free run.
  const from = Math.ceil(left + GUTTER_SEARCH[0] * width);
  const to = Math.floor(left + GUTTER_SEARCH[1] * width);
  // Lines crossing each whole x, by a difference array over the segments (segments of one line never overlap).
  const counts = new Array<number>(Math.max(0, to - from + 2)).fill(0);
  for (const segment of lines.flatMap(spans)) {
    const [first, last] = [Math.max(from, Math.floor(segment.x0) + 1), Math.min(to, Math.ceil(segment.x1) - 1)];
    if (first > last) continue;
    counts[first - from]! += 1;
    counts[last - from + 1]! -= 1;
  }
  counts.pop();
  for (let i = 1; i < counts.length; i++) counts[i]! += counts[i - 1]!;
  const minimum = Math.min(...counts);
  counts.forEach((count, i) => {
    if (count !== minimum) {
      previous = -1;
      return;
    }
    if (previous !== i - 1) runStart = i;
    previous = i;
    const run = i - runStart + 1;
    if (!best || run > best.run) best = { x: from + (runStart + i) / 2, crossing: count, run };
  });
  if (!best) return undefined;
  const gutter = best.x;
  const sides = lines.filter((l) => !crossesWith(spans, l, gutter));
  // Text on both sides: on the same lines, or (columns whose baselines do not line up) in two
  // stacks of lines side by side, with most of the page's lines beside the gutter.
  const twoSided = sides.filter((l) => l.x0 < gutter && l.x1 > gutter).length;
  const [leftLines, rightLines] = [sides.filter((l) => l.x0 < gutter), sides.filter((l) => l.x1 > gutter)];
  const sideBySide =
    2 * sides.length > lines.length &&
    Math.min(leftLines.length, rightLines.length) >= MIN_TWO_SIDED &&
    Math.max(...leftLines.map((l) => l.baseline)) > Math.min(...rightLines.map((l) => l.baseline)) &&
    Math.max(...rightLines.map((l) => l.baseline)) > Math.min(...leftLines.map((l) => l.baseline));
  const fullLeft = sides.filter(
    (l) =>
      l.x0 < gutter &&
      sideExtent(spans(l), gutter, 'left') >= FULL_SHARE * (gutter - left) &&
      isProse(sideText(l, gutter, 'left')) &&
      !isCut(l, gutter, 'left') &&
      textBeside(l, lines, gutter, 'right') &&
      inParagraph(l, lines, gutter, 'left'),
  ).length;
  const fullRight = sides.filter(
    (l) =>
      l.x1 > gutter &&
      sideExtent(spans(l), gutter, 'right') >= FULL_SHARE * (right - gutter) &&
      isProse(sideText(l, gutter, 'right')) &&
      !isCut(l, gutter, 'right') &&
      textBeside(l, lines, gutter, 'left') &&
      inParagraph(l, lines, gutter, 'right'),
  ).length;
  const wideEnough = Math.min(gutter - left, right - gutter) >= MIN_COLUMN_EMS * dominantSize(lines);
  return (twoSided >= MIN_TWO_SIDED || sideBySide) &&
    fullLeft >= MIN_FULL_LINES &&
    fullRight >= MIN_FULL_LINES &&
    wideEnough
    ? gutter
    : undefined;
}

/** A line of a column's prose holds this many words at least. */
const PROSE_LINE_WORDS = 3;

/**
 * Text that reads as prose: a few words, most of its characters in words of two letters or more. A grid of
 * single glyphs, digits or symbols (a font chart, a Karnaugh map) fills its width without being a column, and
 * so does a table's cell holding one long name ("CELERY_AMQP_EXCHANGE_TYPE"): a column's full line is words.
 */
function isProse(text: string): boolean {
  const words = (text.match(/\p{L}{2,}/gu) ?? []).join('').length;
  const count = text.split(/\s+/).filter((word) => /\p{L}/u.test(word)).length;
  return count >= PROSE_LINE_WORDS && words >= PROSE_SHARE * text.replace(/\s+/g, '').length;
}

/**
 * A side of a line cut into stretches by gaps of an em or more: the cells of a table row, not a line of a
 * column's prose (its words are a space apart). A table across the page leaves a free strip between two of its
 * columns, and its cells can be words wide enough to fill either side; a column of text is not cut like that.
 */
function isCut(line: Line, gutter: number, side: 'left' | 'right'): boolean {
  const pieces = line.segments.filter((s) => (side === 'left' ? s.x1 <= gutter : s.x0 >= gutter));
  // Columns within a side (three across the page) are stretches too, but each one a column's width of prose.
  return pieces.length >= 2 && pieces.every((s) => s.x1 - s.x0 < MIN_COLUMN_EMS * line.size);
}

/**
 * Whether some text stands on the other side of the gutter at the height of `line`: a column's line has the
 * other column beside it. A one-column page's short lines (a heading, a paragraph's last line) end before the
 * gutter with nothing beside them.
 */
function textBeside(line: Line, lines: readonly Line[], gutter: number, side: 'left' | 'right'): boolean {
  return lines.some(
    (other) =>
      bottom(other) > top(line) - 0.25 * line.size &&
      top(other) < bottom(line) + 0.25 * line.size &&
      sideRuns(other, gutter, side).some((run) => run.text.trim() !== ''),
  );
}

/** A column's lines of one paragraph are at most this many font sizes apart (baseline to baseline). */
const PARAGRAPH_LINE_GAP = 1.6;

/**
 * Whether a line of its side has another line of that side just above or below it, at a paragraph's line spacing:
 * a column's full line runs on from or into the next (a sentence flows down the column). A table's cells of one
 * name each ("compare(other[, context])") stand a row apart, alone on their side.
 */
function inParagraph(line: Line, lines: readonly Line[], gutter: number, side: 'left' | 'right'): boolean {
  return lines.some((other) => {
    const apart = Math.abs(other.baseline - line.baseline);
    return (
      other !== line &&
      apart > 0.5 * line.size &&
      apart <= PARAGRAPH_LINE_GAP * line.size &&
      sideRuns(other, gutter, side).some((run) => run.text.trim() !== '')
    );
  });
}

const sideRuns = (line: Line, gutter: number, side: 'left' | 'right') =>
  line.runs.filter((r) => (r.x0 + r.x1) / 2 < gutter === (side === 'left'));

/** A line's text on one side, its runs joined as the line joins them: a name set in two fonts is one word. */
const sideText = (line: Line, gutter: number, side: 'left' | 'right') =>
  sideLines(line, gutter, side)
    .map((l) => l.text)
    .join(' ');

function sideExtent(spans: readonly { x0: number; x1: number }[], gutter: number, side: 'left' | 'right'): number {
  const segments = spans.filter((s) => (side === 'left' ? s.x1 <= gutter : s.x0 >= gutter));
  if (!segments.length) return 0;
  return Math.max(...segments.map((s) => s.x1)) - Math.min(...segments.map((s) => s.x0));
}

/**
 * The lines of one column, grouped by baseline within the column alone. Lines were first grouped
 * across the whole page, where the other column's baseline, a few points off, may anchor a group:
 * a glyph set a little lower in this column (the lowered E of the TeX logo in "BibTEX") then
 * missed its line and stood as a line of its own. So a column whose lines sit closer than a line
 * apart is grouped again from its runs; every run stays (a side of a line may hold two lines).
 */
function columnLines(lines: readonly Line[]): Line[] {
  const sorted = [...lines].sort((a, b) => a.baseline - b.baseline);
  const apart = sorted.every(
    (line, i) =>
      i === 0 || line.baseline - sorted[i - 1]!.baseline > SAME_LINE * Math.min(line.size, sorted[i - 1]!.size),
  );
  return apart ? [...lines] : buildLines(lines.flatMap((line) => line.runs));
}

/** A line's runs on one side of the gutter, as lines of their own (all of them: no run is dropped). */
function sideLines(line: Line, gutter: number, side: 'left' | 'right'): Line[] {
  const runs = sideRuns(line, gutter, side);
  return runs.length ? buildLines(runs) : [];
}

const top = (line: Line) => line.baseline - line.size;
const bottom = (line: Line) => line.baseline + 0.25 * line.size;

function dominantSize(lines: readonly Line[]): number {
  const chars = new Map<number, number>();
  for (const line of lines) chars.set(roundSize(line.size), (chars.get(roundSize(line.size)) ?? 0) + line.text.length);
  return [...chars].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0] ?? 10;
}

/** A column heading with nothing beside it in the other column (text above and below there): it spans. */
function cutsBands(line: Line, other: readonly Line[], bodySize: number): boolean {
  if (!(line.size >= bodySize + HEADING_STEP || line.bold)) return false;
  const margin = 0.25 * line.size;
  const beside = other.some((o) => bottom(o) > top(line) - margin && top(o) < bottom(line) + margin);
  const above = other.some((o) => o.baseline < line.baseline);
  const below = other.some((o) => o.baseline > line.baseline);
  return !beside && above && below;
}

/**
 * The page's lines and tables as flows in reading order. One column: a single flow. Two: wide
 * items cut bands; each band gives its left column, then its right column.
 */
export function readingOrder(lines: readonly Line[], tables: readonly Table[]): Flow[] {
  return columnFlows(lines, tables, 0);
}

/**
 * A column may itself hold two columns (three or four across the page, or two under a wide one):
 * each column of a band is read again the same way, this many times deep.
 */
const MAX_NESTED_SPLITS = 2;

function columnFlows(lines: readonly Line[], tables: readonly Table[], depth: number): Flow[] {
  const gutter = findGutter(lines);
  if (gutter === undefined) return [{ lines: [...lines], tables: [...tables], columnBreak: false }];
  const wideLines: Line[] = [];
  const leftParts: Line[] = [];
  const rightParts: Line[] = [];
  for (const line of lines) {
    if (crosses(line, gutter)) {
      wideLines.push(line);
      continue;
    }
    leftParts.push(...sideLines(line, gutter, 'left'));
    rightParts.push(...sideLines(line, gutter, 'right'));
  }
  const [left, right] = [columnLines(leftParts), columnLines(rightParts)];
  const bodySize = dominantSize(lines);
  const spanning = new Set([
    ...left.filter((l) => cutsBands(l, right, bodySize)),
    ...right.filter((r) => cutsBands(r, left, bodySize)),
  ]);
  const wide = [...wideLines, ...spanning].map(
    (line) =>
      ({ top: top(line), bottom: bottom(line), line }) as { top: number; bottom: number; line?: Line; table?: Table },
  );
  const columnTables: { table: Table; side: 'left' | 'right' }[] = [];
  for (const table of tables) {
    if (table.left < gutter && table.right > gutter) wide.push({ top: table.top, bottom: table.bottom, table });
    else columnTables.push({ table, side: table.right <= gutter ? 'left' : 'right' });
  }
  wide.sort((a, b) => a.top - b.top);
  const flows: Flow[] = [];
  // From the cursor on, inclusive: an item level with the wide item just read (a table beside a
  // wider one, both starting at one height) belongs to the band after it.
  const columnItemsBetween = (from: number, to: number) => ({
    left: {
      lines: left.filter((l) => !spanning.has(l) && l.baseline >= from && l.baseline <= to),
      tables: columnTables
        .filter((t) => t.side === 'left' && t.table.top >= from && t.table.top <= to)
        .map((t) => t.table),
    },
    right: {
      lines: right.filter((l) => !spanning.has(l) && l.baseline >= from && l.baseline <= to),
      tables: columnTables
        .filter((t) => t.side === 'right' && t.table.top >= from && t.table.top <= to)
        .map((t) => t.table),
    },
  });
  let cursor = -Infinity;
  const pushColumn = (column: { lines: Line[]; tables: Table[] }, columnBreak: boolean) => {
    const nested =
      depth < MAX_NESTED_SPLITS ? columnFlows(column.lines, column.tables, depth + 1) : [{ ...column, columnBreak }];
    nested[0]!.columnBreak = columnBreak;
    flows.push(...nested);
  };
  const pushBand = (to: number) => {
    const band = columnItemsBetween(cursor, to);
    const leftHas = band.left.lines.length > 0 || band.left.tables.length > 0;
    if (leftHas) pushColumn(band.left, false);
    if (band.right.lines.length || band.right.tables.length) pushColumn(band.right, flows.length > 0 && leftHas);
  };
  for (const item of wide) {
    const at = item.line ? item.line.baseline : item.top;
    pushBand(at - 0.01);
    // pushBand added nothing: no column text since the last wide item, which this one joins.
    const last = flows[flows.length - 1];
    const flow: Flow =
      last && isWideFlow(last) ? last : ({ lines: [], tables: [], columnBreak: false, wide: true } as Flow);
    if (item.line) flow.lines.push(item.line);
    if (item.table) flow.tables.push(item.table);
    if (flow !== last) flows.push(flow);
    // Past the item's top only: column lines beside a tall wide table come after it, never lost.
    cursor = Math.max(cursor, at);
  }
  pushBand(Infinity);
  // Lines that cross this gutter may be columns set to another measure (two columns above three):
  // a stretch of wide lines is read again on its own.
  if (depth >= MAX_NESTED_SPLITS) return flows;
  return flows.flatMap((flow) => {
    if (!isWideFlow(flow)) return [flow];
    const nested = columnFlows(flow.lines, flow.tables, depth + 1);
    return nested.length > 1 ? nested : [flow];
  });
}

function isWideFlow(flow: Flow): boolean {
  return (flow as Flow & { wide?: boolean }).wide === true;
}
