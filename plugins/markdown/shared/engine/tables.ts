/**
 * Table recovery. Ruled tables come from drawn rules: a grid of horizontal and vertical rules
 * gives rows and columns directly; horizontal rules alone bound the table and its row bands,
 * with columns read from text alignment. Borderless tables are runs of consecutive lines whose
 * segments line up in columns. In every case a line whose first column is empty continues the
 * row above it, so text wrapping inside a cell stays in one cell.
 */
import { ALIGNED, buildLines, joinText, splitAtColumns } from './lines.js';
import type { Line, Rule, TextRun } from './types.js';

/** Rules closer than this (points) are the same rule drawn in pieces, or touch. */
const TOUCH = 2;
const MIN_RULE_LENGTH = 8;
/** Horizontal rules overlapping this share of the shorter one's length belong to one table. */
const STACKED_OVERLAP = 0.8;
/** A horizontal rule this share of its table's width or more runs across the table. */
const ACROSS_SHARE = 0.9;
/** Horizontal rules further apart than this (points) do not bound one table. */
const MAX_RULE_GAP = 250;
/** A borderless table's rows are at most this many line heights apart. */
const MAX_ROW_GAP = 2.6;
/** ...and at most this many when each of their cells starts where the row above has one. */
const MAX_GRID_ROW_GAP = 4;
/** Aligned run starts need this many lines, and this share of the window, to count as a column. */
const MIN_ALIGNED_LINES = 3;
const ALIGNED_SHARE = 0.6;
/** Average words per cell from which every column reading like prose means it is not a table. */
const PROSE_WORDS_PER_CELL = 5;
/** Leader dots or rules running to a page number: a contents line, not a table row. */
export const LEADERS = /(?:\.\s?){4,}|…{2,}|(?:·\s?){4,}|_{4,}/;
const LEADER_RUNS = new RegExp(LEADERS.source, 'g');
const PAGE_REFERENCE = /^(?:\d{1,4}|[ivxlc]{1,6})$/i;
/** An index entry's locators: two page numbers or ranges or more, "85, 204", "12–14, 30". */
const PAGE_LIST = /^\d{1,4}(?:[–-]\d{1,4})?(?:,\s?\d{1,4}(?:[–-]\d{1,4})?)+$/;
const SECTION_NUMBER = /^(?:\d+(?:\.\d+)*\.?|[A-Z](?:\.\d+)*\.?|[IVXLC]+\.?)(?:\s|$)/;
/** Mathematical operators, arrows, logic, Greek and the mathematical alphabets: formulas and proof trees. */
const MATH = new RegExp(
  String.raw`[=+−±×÷→←↔⇒⇐⇔⊢⊨∀∃∧∨¬⊥⊤∈∉⊂⊃⊆⊇∪∩∑∏∫∮∯∂∇√∞≤≥≠≈≡Γ∆ΔΘΛΞΠΣΦΨΩαβγδεζηθικλμνξπρστυφχψω\u{1D400}-\u{1D7FF}]|` +
    String.raw`<su[bp]>|^\p{L}\(\p{L}\)|\b\p{L}\(\p{L}(?:,\s?\p{L})*\)`,
  'u',
);
/** An equation number at the end of a displayed formula: "(2)", "(3.1)", "(4a)". */
const EQUATION_NUMBER = /^\(\d{1,3}(?:\.\d{1,3})?[a-z]?\)$/;
/** Share of a table's filled cells that may be formulas before it is read as mathematics, not a table. */
const MAX_MATH_SHARE = 0.5;
const LIST_MARKER_ONLY = /^(?:[•·–—\-▪■□◦‣○●*►▶▷▸▹➢➤✓\uf0b7\uf0a7]|\(?(?:\d{1,3}|[a-z]|[ivx]{1,4})[.)])$/i;

export interface Table {
  rows: string[][];
  top: number;
  bottom: number;
  left: number;
  right: number;
  /** Where each column starts (x): a table continued on the next page keeps them. */
  columns: number[];
  /** Its text's font size (the most characters'): lines continuing it on the next page have it too. */
  size?: number;
}

interface Interval {
  start: number;
  end: number;
}

interface RuledRegion {
  left: number;
  right: number;
  /** y of each horizontal rule, top to bottom. */
  rows: number[];
  /**
   * y of the horizontal rules across (nearly) the whole table: a shorter rule under a header spanning some
   * columns (booktabs' cmidrule) parts those columns only, not the rows of the table.
   */
  bands: number[];
  /** x of each vertical rule, left to right; fewer than two when only horizontal rules are drawn. */
  columns: number[];
}

/** Tables bounded by rules, and the runs left over for ordinary text. */
export function extractRuledTables(
  runs: readonly TextRun[],
  rules: readonly Rule[],
): { tables: Table[]; rest: TextRun[] } {
  const tables: Table[] = [];
  let rest = [...runs];
  const pieces = rulePieces(rules);
  for (const region of ruledRegions(rules)) {
    const inside = rest.filter((run) => insideRegion(run, region));
    const table = region.columns.length >= 2 ? gridTable(inside, region, pieces) : horizontalRuleTable(inside, region);
    if (!table) continue;
    tables.push(table);
    const taken = new Set(inside);
    rest = rest.filter((run) => !taken.has(run));
  }
  return { tables, rest };
}

function insideRegion(run: TextRun, region: RuledRegion): boolean {
  const x = (run.x0 + run.x1) / 2;
  const y = run.baseline - run.size / 3;
  return (
    x > region.left - TOUCH &&
    x < region.right + TOUCH &&
    y > region.rows[0]! - TOUCH &&
    y < region.rows[region.rows.length - 1]! + TOUCH
  );
}

/** Rules joined where drawn in touching pieces: a gap left in a grid line is a merged cell. */
function rulePieces(rules: readonly Rule[]): { horizontals: Rule[]; verticals: Rule[] } {
  return {
    horizontals: mergeCollinear(
      rules.filter((r) => r.y0 === r.y1 && r.x1 - r.x0 >= MIN_RULE_LENGTH),
      'horizontal',
    ),
    verticals: mergeCollinear(
      rules.filter((r) => r.x0 === r.x1 && r.y1 - r.y0 >= MIN_RULE_LENGTH),
      'vertical',
    ),
  };
}

function ruledRegions(rules: readonly Rule[]): RuledRegion[] {
  const { horizontals, verticals } = rulePieces(rules);
  // Grids first (rules that cross), then stacks of horizontal rules no vertical touches.
  const grids = clusters([...horizontals, ...verticals], crosses).filter((c) => c.some(isVertical));
  const inGrid = new Set(grids.flat());
  const stacks = clusters(
    horizontals.filter((h) => !inGrid.has(h)),
    stacked,
  ).map(withoutFrameRules);
  return [...grids, ...stacks].flatMap((cluster) => {
    const rows = distinct(cluster.filter((r) => !isVertical(r)).map((r) => r.y0));
    const columns = distinct(cluster.filter(isVertical).map((r) => r.x0));
    if (rows.length < 2) return [];
    const left = Math.min(...cluster.map((r) => r.x0));
    const right = Math.max(...cluster.map((r) => r.x1));
    const across = cluster.filter((r) => !isVertical(r) && r.x1 - r.x0 >= ACROSS_SHARE * (right - left));
    const bands = distinct(across.map((r) => r.y0));
    if (bands.length < 2) return [{ left, right, rows, columns, bands: rows }];
    // Rules stacked with the table but outside its rules across (a notes separator under it) are not the table's.
    const within = columns.length >= 2 ? rows : rows.filter((y) => y >= bands[0]! && y <= bands[bands.length - 1]!);
    return [{ left, right, rows: within, columns, bands }];
  });
}

function isVertical(rule: Rule): boolean {
  return rule.x0 === rule.x1;
}

/** The root of `i` in a union-find forest, shortening the path on the way. */
function unionRoot(parent: number[], i: number): number {
  if (parent[i] !== i) parent[i] = unionRoot(parent, parent[i]!);
  return parent[i]!;
}

/** Connected groups of rules under `linked` (union-find), in a stable order. */
function clusters(rules: readonly Rule[], linked: (a: Rule, b: Rule) => boolean): Rule[][] {
  const parent = rules.map((_, i) => i);
  const find = (i: number) => unionRoot(parent, i);
  for (let i = 0; i < rules.length; i++) {
    for (let j = i + 1; j < rules.length; j++) if (linked(rules[i]!, rules[j]!)) parent[find(j)] = find(i);
  }
  const groups = new Map<number, Rule[]>();
  for (const [i, rule] of rules.entries()) groups.set(find(i), [...(groups.get(find(i)) ?? []), rule]);
  return [...groups.values()];
}

function crosses(a: Rule, b: Rule): boolean {
  if (isVertical(a) === isVertical(b)) return false;
  const [h, v] = isVertical(a) ? [b, a] : [a, b];
  return v.x0 >= h.x0 - TOUCH && v.x0 <= h.x1 + TOUCH && h.y0 >= v.y0 - TOUCH && h.y0 <= v.y1 + TOUCH;
}

function stacked(a: Rule, b: Rule): boolean {
  const overlap = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
  return overlap >= STACKED_OVERLAP * Math.min(a.x1 - a.x0, b.x1 - b.x0) && Math.abs(a.y0 - b.y0) <= MAX_RULE_GAP;
}

/**
 * A stack of rules without the rules of the page around it: a rule across the whole text (under a
 * running head, above the notes) at the top or the bottom of the stack, longer than every rule of
 * the table within it, is no rule of that table; taken with it, the table would swallow the text
 * between them. A table's own rules (top, middle, bottom) share its width; its partial rules
 * (under a header spanning some columns) are shorter, not longer.
 */
function withoutFrameRules(stack: readonly Rule[]): Rule[] {
  const rules = [...stack].sort((a, b) => a.y0 - b.y0);
  const length = (r: Rule) => r.x1 - r.x0;
  const outlasts = (rule: Rule, others: readonly Rule[]) =>
    others.length >= 2 && length(rule) * STACKED_OVERLAP > Math.max(...others.map(length));
  while (rules.length > 2 && outlasts(rules[0]!, rules.slice(1))) rules.shift();
  while (rules.length > 2 && outlasts(rules[rules.length - 1]!, rules.slice(0, -1))) rules.pop();
  return rules;
}

/** Joins pieces of one rule (cell borders drawn one cell at a time). */
function mergeCollinear(rules: Rule[], axis: 'horizontal' | 'vertical'): Rule[] {
  const key = (r: Rule) =>
    (axis === 'horizontal' ? [r.y0, r.x0, r.x1] : [r.x0, r.y0, r.y1]) as [number, number, number];
  const sorted = rules.map(key).sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
  const merged: [number, number, number][] = [];
  for (const [at, start, end] of sorted) {
    const last = merged[merged.length - 1];
    if (last && Math.abs(last[0] - at) <= TOUCH / 2 && start <= last[2] + TOUCH) last[2] = Math.max(last[2], end);
    else merged.push([at, start, end]);
  }
  return merged.map(([at, start, end]) =>
    axis === 'horizontal' ? { x0: start, y0: at, x1: end, y1: at } : { x0: at, y0: start, x1: at, y1: end },
  );
}

function distinct(values: number[]): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.filter((v, i) => i === 0 || v - sorted[i - 1]! > TOUCH);
}

function bandIndex(edges: readonly number[], value: number): number {
  let index = 0;
  while (index < edges.length - 2 && value > edges[index + 1]!) index++;
  return index;
}

/**
 * Full grid: every band between horizontal rules is a row, every band between vertical rules a
 * column. Cells with no rule between them are one merged cell: its text goes in the top-left
 * cell of the span and the cells it covers stay empty, so the grid keeps its shape.
 */
function gridTable(
  runs: TextRun[],
  region: RuledRegion,
  pieces: { horizontals: Rule[]; verticals: Rule[] },
): Table | undefined {
  if (runs.length === 0) return undefined;
  const rowCount = region.rows.length - 1;
  const columnCount = Math.max(1, region.columns.length - 1);
  const covers = (rules: readonly Rule[], at: number, from: number, to: number, vertical: boolean) =>
    rules.some((r) =>
      vertical
        ? Math.abs(r.x0 - at) <= TOUCH && r.y0 <= from + TOUCH && r.y1 >= to - TOUCH
        : Math.abs(r.y0 - at) <= TOUCH && r.x0 <= from + TOUCH && r.x1 >= to - TOUCH,
    );
  const { rows: ys, columns: xs } = region;
  const parent = Array.from({ length: rowCount * columnCount }, (_, i) => i);
  const find = (i: number) => unionRoot(parent, i);
  const join = (a: number, b: number) => {
    const [ra, rb] = [find(a), find(b)];
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb); // the root is the top-left cell
  };
  for (let r = 0; r < rowCount; r++) {
    for (let c = 0; c < columnCount; c++) {
      if (c + 1 < columnCount && !covers(pieces.verticals, xs[c + 1]!, ys[r]!, ys[r + 1]!, true))
        join(r * columnCount + c, r * columnCount + c + 1);
      if (r + 1 < rowCount && !covers(pieces.horizontals, ys[r + 1]!, xs[c]!, xs[c + 1]!, false))
        join(r * columnCount + c, (r + 1) * columnCount + c);
    }
  }
  const cells = new Map<number, TextRun[]>();
  for (const run of runs) {
    const row = bandIndex(ys, run.baseline - run.size / 3);
    const column = bandIndex(xs, (run.x0 + run.x1) / 2);
    const anchor = find(row * columnCount + column);
    cells.set(anchor, [...(cells.get(anchor) ?? []), run]);
  }
  const rows = Array.from({ length: rowCount }, (_, r) =>
    Array.from({ length: columnCount }, (_, c) => cellText(cells.get(r * columnCount + c) ?? [])),
  );
  const filled = rows.filter((row) => row.some((cell) => cell !== ''));
  if (filled.length < 2 || columnCount < 2 || isDrawing(filled)) return undefined;
  // Text in one column only is a framed block, not a table: an office suite draws a shaded note as a
  // box around each of its lines, and a frame around a paragraph has the same shape.
  const writtenColumns = Array.from({ length: columnCount }, (_, c) => filled.some((row) => row[c] !== '')).filter(
    Boolean,
  ).length;
  if (writtenColumns < 2 || isBoxedLines(filled)) return undefined;
  // A table has a column rule running from its top to its bottom, and its cells hold text; boxes
  // drawn around words on neighbouring lines (a .dtx manual's macro names) have neither.
  const bottom = ys[ys.length - 1]!;
  const ruledThrough = xs.some((x) => covers(pieces.verticals, x, ys[0]!, bottom, true));
  const anchors = new Set(Array.from({ length: rowCount * columnCount }, (_, i) => find(i)));
  const written = [...anchors].filter((anchor) => cellText(cells.get(anchor) ?? []) !== '').length;
  if (!ruledThrough || written < MIN_GRID_FILLED * anchors.size) return undefined;
  return {
    rows: filled,
    top: ys[0]!,
    bottom: ys[ys.length - 1]!,
    left: region.left,
    right: region.right,
    columns: xs.slice(0, -1),
    size: textSize(runs),
  };
}

/** Words from which a row's first cell reads as a line of prose rather than a cell's name or value. */
const PROSE_LINE_WORDS = 4;

/**
 * The lines of a paragraph boxed one by one (an office suite's export of a shaded note): nearly every row but
 * the last (a paragraph's last line may be short) opens with a line of prose, and most rows go on with the
 * sentence where the row above ends (no full stop there, and lowercase after or no mark at all before: "sharing
 * a specific" over "Connection over a process boundary"). A table's rows each start afresh: a cell that wraps
 * stays inside its ruled row.
 */
function isBoxedLines(filled: readonly string[][]): boolean {
  const firsts = filled.map((row) => row.find((cell) => cell !== '') ?? '');
  const lasts = filled.map((row) => row.findLast((cell) => cell !== '') ?? '');
  if (firsts.length < 2) return false;
  const prose = firsts.slice(0, -1).filter((cell) => wordCount(cell) >= PROSE_LINE_WORDS).length;
  const runsOn = firsts
    .slice(1)
    .filter(
      (cell, i) =>
        (/^\p{Ll}/u.test(cell) || /[\p{L}\p{N}]$/u.test(lasts[i]!)) &&
        !/[.!?:]$/.test(lasts[i]!) &&
        wordCount(lasts[i]!) >= PROSE_LINE_WORDS,
    );
  return prose >= 0.8 * (firsts.length - 1) && runsOn.length >= 0.5 * (firsts.length - 1);
}

/** Share of a ruled grid's cells (a merged cell counted once) that must hold text. */
const MIN_GRID_FILLED = 0.5;

function cellText(runs: readonly TextRun[]): string {
  return buildLines(runs).reduce((text, line) => joinText(text, line.text), '');
}

/** Horizontal rules only: rules bound row bands; columns come from where the text lines up. */
function horizontalRuleTable(runs: TextRun[], region: RuledRegion): Table | undefined {
  const lines = buildLines(runs);
  const columns = alignedColumns(lines);
  if (columns.length < 2) return undefined;
  const bands = new Map<number, Line[]>();
  for (const line of lines) {
    const band = bandIndex(region.bands, line.baseline - line.size / 3);
    bands.set(band, [...(bands.get(band) ?? []), line]);
  }
  const rows = [...bands.keys()].sort((a, b) => a - b).flatMap((band) => rowsFromLines(bands.get(band)!, columns));
  // Rules drawn across the text bound it (a frame, a note set off by rules), but only rows enough and
  // a header row or values make its lines cells.
  if (rows.length < 2 || isFalseTable(rows) || isFixedPitch(lines) || !isCellGrid(rows)) return undefined;
  return {
    rows,
    top: region.rows[0]!,
    bottom: region.rows[region.rows.length - 1]!,
    left: region.left,
    right: region.right,
    columns: columns.map((c) => c.start),
    size: textSize(runs),
  };
}

/**
 * Columns where text lines up: the gaps left by the union of the lines' segments. A line whose cell spans
 * columns (a heading centred over its sub-columns) bridges the gap between them; the columns are those of the
 * other lines, and the spanning cell falls in the first column it covers.
 */
function alignedColumns(lines: readonly Line[]): Interval[] {
  let kept = [...lines];
  let columns = unionColumns(kept);
  // One line at a time, the one whose leaving parts the most columns, the fewer cells first (a header over
  // sub-columns has fewer cells than the sub-header under it, whose cells may touch it too).
  while (2 * (lines.length - kept.length + 1) <= lines.length && kept.length - 1 >= MIN_ALIGNED_LINES) {
    let best: { line: Line; columns: Interval[] } | undefined;
    // Only the header's lines (the first few) span sub-columns; a line further down bridging columns is the
    // table's own (or no table), and its columns stay as they are.
    for (const line of kept.filter((_, i) => i < HEADER_LINES)) {
      const without = unionColumns(kept.filter((other) => other !== line));
      if (without.length <= columns.length || !spansColumns(line, without)) continue;
      if (!subColumnsBelow(line, kept.slice(kept.indexOf(line) + 1), without)) continue;
      const better =
        !best ||
        without.length > best.columns.length ||
        (without.length === best.columns.length && line.segments.length < best.line.segments.length);
      if (better) best = { line, columns: without };
    }
    if (!best) break;
    kept = kept.filter((line) => line !== best.line);
    columns = best.columns;
  }
  return columns;
}

/**
 * Whether each cell of `line` that covers two columns or more heads them: set centred over them (LaTeX's
 * multicolumn) or from the first one's left edge (a browser's or an office suite's colspan), within an em.
 */
function spansColumns(line: Line, columns: readonly Interval[]): boolean {
  return line.segments.every((segment) => {
    const covered = columns.filter((c) => segment.x0 < c.end + TOUCH && c.start < segment.x1 + TOUCH);
    if (covered.length < 2) return true;
    const first = covered[0]!;
    const last = covered[covered.length - 1]!;
    const centred = Math.abs((segment.x0 + segment.x1) / 2 - (first.start + last.end) / 2) <= line.size;
    return centred || Math.abs(segment.x0 - first.start) <= line.size;
  });
}

/**
 * Whether the lines below `line` write in two or more of the columns each of its cells covers: a header
 * spans sub-columns that the rows under it fill. Columns made only by a line above it are no sub-columns
 * (a narrow header cell over the wide cell of a row that wraps).
 */
function subColumnsBelow(line: Line, below: readonly Line[], columns: readonly Interval[]): boolean {
  return line.segments.every((segment) => {
    const covered = columns.filter((c) => segment.x0 < c.end + TOUCH && c.start < segment.x1 + TOUCH);
    if (covered.length < 2) return true;
    const written = covered.filter((c) => below.some((l) => l.segments.some((s) => s.x0 < c.end && c.start < s.x1)));
    return written.length >= 2;
  });
}

/** Lines at the top of a table that may hold its header (two header rows and a label between them). */
const HEADER_LINES = 3;

function unionColumns(lines: readonly Line[]): Interval[] {
  const spans = lines
    .flatMap((l) => l.segments.map((s) => ({ start: s.x0, end: s.x1 })))
    .sort((a, b) => a.start - b.start || a.end - b.end);
  const columns: Interval[] = [];
  for (const span of spans) {
    const last = columns[columns.length - 1];
    if (last && span.start <= last.end + TOUCH) last.end = Math.max(last.end, span.end);
    else columns.push({ ...span });
  }
  return columns;
}

function columnOf(columns: readonly Interval[], x: number): number {
  let index = 0;
  while (index < columns.length - 1 && x >= columns[index + 1]!.start - TOUCH) index++;
  return index;
}

/**
 * One row per line, except that a line continues the row above when its first column is empty,
 * when one of its cells ends a word hyphenated at the end of the line above in that column
 * (every cell of the row wraps: "Rubis foncé, vio-" over "lacée, presque"), or when the table
 * sets its rows further apart than the lines of a cell (see wrappedRows).
 */
function rowsFromLines(
  bandLines: readonly Line[],
  columns: readonly Interval[],
  rowContinuations: ReadonlySet<Line> = new Set(),
): string[][] {
  const { lines, lineCells } = atTopOfRowSpans(bandLines, cellsOfLines(bandLines, columns));
  const hyphenated = lineCells.map(
    (cells, i) => i > 0 && cells.some((cell, c) => /\p{Ll}-$/u.test(lineCells[i - 1]![c]!) && /^\p{Ll}/u.test(cell)),
  );
  const wraps = wrappedRows(lines, lineCells, hyphenated);
  const pieces = lineCells.map((cells, i) => brokenPieces(lines[i]!, cells, columns));
  const rows: string[][] = [];
  // The cell's last line so far in each column of the row being built: it may hold a word's first piece.
  let lastPieces: (BrokenPiece | undefined)[] = [];
  for (const [i, cells] of lineCells.entries()) {
    const previous = rows[rows.length - 1];
    // The rest of a wrapped cell goes on in a column the row has written; a line that writes where the row
    // left a gap is a row of its own (the quarters under a year heading that spans them).
    const goesOn = (cells: readonly string[]) => cells.every((cell, c) => cell === '' || previous?.[c] !== '');
    const continues =
      (cells[0] === '' && !isUnderRowSpan(cells) && goesOn(cells)) ||
      hyphenated[i] ||
      wraps[i] ||
      rowContinuations.has(lines[i]!);
    if (previous && continues)
      for (const [c, cell] of cells.entries()) {
        previous[c] = joinsBrokenWord(lastPieces[c], cell, columns[c]!, lines[i]!, cellStart(lines[i]!, c, columns))
          ? previous[c]! + cell
          : joinText(previous[c]!, cell);
        if (cell !== '') lastPieces[c] = pieces[i]![c];
      }
    else {
      rows.push(cells);
      lastPieces = [...pieces[i]!];
    }
  }
  return rows;
}

/** A cell's line of one word, which may be the first piece of a word the cell broke: where it ends and sits. */
interface BrokenPiece {
  text: string;
  x0: number;
  x1: number;
  baseline: number;
  /** Its line's font size. */
  size: number;
}

/** Each column's cell of `line` when it is one word (else undefined). */
function brokenPieces(line: Line, cells: readonly string[], columns: readonly Interval[]): (BrokenPiece | undefined)[] {
  return cells.map((cell, c) => {
    if (cell === '' || /\s/.test(cell)) return undefined;
    const inColumn = line.segments.filter((segment) => columnOf(columns, segment.x0) === c);
    // A cell moved from another line (a row span's label) has no geometry on this one: never joined.
    if (inColumn.map((segment) => segment.text).join(' ') !== cell) return undefined;
    const x1 = Math.max(...inColumn.map((segment) => segment.x1));
    return { text: cell, x0: cellStart(line, c, columns), x1, baseline: line.baseline, size: line.size };
  });
}

/** Where the line's text in column `c` starts (Infinity when it writes nothing there). */
function cellStart(line: Line, c: number, columns: readonly Interval[]): number {
  return Math.min(...line.segments.filter((segment) => columnOf(columns, segment.x0) === c).map((s) => s.x0));
}

/** How far (in ems) a word's first piece may end short of its column's widest extent: less than a glyph. */
const BROKEN_EDGE = 0.7;
/** The lines of one cell are at most this many font sizes apart; rows stand further apart (their padding). */
const CELL_LINE_SPACING = 1.4;
/** A word followed by another (no mark between): prose wrapped at a space, not the rest of a name. */
const PROSE_GOES_ON = /^\S*[\p{L}\p{N}]\s/u;

/**
 * A word too wide for its cell, broken where the line ran out (an office suite's export: "ColumnDef" over "ault";
 * a browser breaks only at spaces): the piece is its line's one word, with no closing or hyphen mark, ending at the
 * column's right edge (its widest extent in the table) within a glyph, and the cell's next line, one line spacing
 * below and starting no further left than the piece (a line starting left of it is another cell's), goes on with a
 * word's inside: lowercase, digit or underscore, no number standing alone. Never before a capital: a header's
 * "Keyword" over "Argument" sets its column's width and looks the same. A next line going on with more words is
 * prose wrapped at a space ("surrounding" over "the current one"). Joined without a space.
 */
function joinsBrokenWord(
  piece: BrokenPiece | undefined,
  next: string,
  column: Interval,
  nextLine: Line,
  nextStart: number,
): boolean {
  if (!piece || !/^[\p{Ll}\d_]/u.test(next) || PROSE_GOES_ON.test(next)) return false;
  if (/[-.,;:!?)\]}'"’”]$/u.test(piece.text)) return false;
  // A number after a word is a word of its own ("Gewürztraminer" over "2000"); digits go on digits ("201" over
  // "2,") or a word that goes on in letters ("web" over "2py").
  if (/^\d/.test(next) && !/\d$/.test(piece.text) && !/^\d+[\p{L}_]/u.test(next)) return false;
  return (
    column.end - piece.x1 <= BROKEN_EDGE * piece.size &&
    nextLine.baseline - piece.baseline <= CELL_LINE_SPACING * piece.size &&
    nextStart >= piece.x0 - ALIGNED
  );
}

/** How far (in font sizes) a line may sit from where a centred span would put it. */
const CENTRED = 0.5;
/** Font sizes within this share of each other are one size. */
const SAME_SIZE = 0.1;

/**
 * A cell spanning rows may be set centred on them (LaTeX's multirow): on the middle row of an odd count, or
 * on a line of its own between the two middle rows of an even count, and the rows above it look like rows
 * with their first cell empty. Where the first column reads that way (its first line empty) and every label
 * in it is the centre of a run of rows that follow one another, each label moves up to the first row of its
 * run; a label on a line of its own takes that line's other cells with it (a header cell spanning both header
 * rows beside a header spanning columns). Anything that does not fit exactly is left as it is.
 */
function atTopOfRowSpans(lines: readonly Line[], lineCells: string[][]): { lines: Line[]; lineCells: string[][] } {
  const unchanged = { lines: [...lines], lineCells };
  if (lines.length < 3 || lineCells[0]![0] !== '') return unchanged;
  const floating = lines.map(
    (line, i) => i > 0 && i < lines.length - 1 && isFloatingLabel(line, lines[i - 1]!, lines[i + 1]!),
  );
  const rowLines = lines.flatMap((_, i) => (floating[i] ? [] : [i]));
  const labels = lines.flatMap((_, i) => (lineCells[i]![0] !== '' ? [i] : []));
  if (!labels.length) return unchanged;
  const moves: { label: number; top: number }[] = [];
  let next = 0;
  for (const label of labels) {
    const top = rowLines[next];
    if (top === undefined || top > label) return unchanged;
    const centre = lines[label]!.baseline;
    const bottomAt = 2 * centre - lines[top]!.baseline;
    const end = rowLines.findIndex(
      (i, k) => k >= next && Math.abs(lines[i]!.baseline - bottomAt) <= CENTRED * lines[i]!.size,
    );
    if (end < 0 || rowLines[end]! < label) return unchanged;
    const inside = rowLines.slice(next, end + 1).filter((i) => i !== label);
    if (inside.some((i) => lineCells[i]![0] !== '')) return unchanged;
    moves.push({ label, top });
    next = end + 1;
  }
  if (next !== rowLines.length || moves.every(({ label, top }) => label === top)) return unchanged;
  const cells = lineCells.map((row) => [...row]);
  for (const { label, top } of moves) {
    if (label === top) continue;
    const moved = floating[label] ? cells[label]!.map((_, c) => c) : [0];
    for (const c of moved) {
      if (cells[label]![c] === '') continue;
      if (cells[top]![c] !== '') return unchanged;
      cells[top]![c] = cells[label]![c]!;
      cells[label]![c] = '';
    }
  }
  const kept = lines.flatMap((_, i) => (floating[i] ? [] : [i]));
  return { lines: kept.map((i) => lines[i]!), lineCells: kept.map((i) => cells[i]!) };
}

/**
 * A line set midway between the lines above and below it, in their type and in columns both leave empty: the
 * label of a cell spanning those rows, centred on them.
 */
function isFloatingLabel(line: Line, above: Line, below: Line): boolean {
  const up = line.baseline - above.baseline;
  const down = below.baseline - line.baseline;
  if (!(up > 0 && down > 0) || Math.abs(up - down) > CENTRED * line.size) return false;
  // Set in the table's type: text of another size between two rows is not one of its cells.
  if ([above, below].some((row) => Math.abs(row.size - line.size) > SAME_SIZE * line.size)) return false;
  const overlaps = (a: Line, b: Line) =>
    a.segments.some((s) => b.segments.some((t) => s.x0 < t.x1 + TOUCH && t.x0 < s.x1 + TOUCH));
  return !overlaps(line, above) && !overlaps(line, below);
}

/**
 * A line with its first cell empty and every other cell written, none going on with a lowercase word, is a row
 * of its own under a first cell that spans rows (a unit over its teams). The rest of a wrapped cell fills the
 * columns that wrap, not every column, and a sentence going on starts lowercase.
 */
function isUnderRowSpan(cells: readonly string[]): boolean {
  return cells.length >= 3 && cells.slice(1).every((cell) => cell !== '' && !/^\p{Ll}/u.test(cell));
}

/** Each line's text cut at the columns, one row per line. */
function cellsOfLines(lines: readonly Line[], columns: readonly Interval[]): string[][] {
  return lines.map((line) => {
    const cells = columns.map(() => '');
    for (const segment of line.segments) {
      const column = columnOf(columns, segment.x0);
      cells[column] = joinText(cells[column]!, segment.text);
    }
    return cells;
  });
}

/** Rows set this much further apart than the lines within a cell show where rows start. */
const ROW_SPACING = 1.3;
/** Gaps within this factor of the tightest are the line spacing of a cell. */
const SAME_SPACING = 1.1;

/**
 * Whether each line continues the row above because it sits at a cell's line spacing, in a table
 * whose rows are set further apart, and fills only columns the row's first line filled (a line
 * that fills another column starts a row, whatever its spacing). Only when two rows or more span
 * several lines and each of them shows wrapping (a line with fewer cells than the row's first, or
 * a hyphenated word), so a header set apart above single-line rows is not taken for one tall row.
 */
function wrappedRows(
  lines: readonly Line[],
  lineCells: readonly string[][],
  hyphenated: readonly boolean[],
): boolean[] {
  const none = lines.map(() => false);
  const gaps = lines.map((line, i) => (i === 0 ? Number.POSITIVE_INFINITY : line.baseline - lines[i - 1]!.baseline));
  const tight = Math.min(...gaps);
  if (!(tight > 0) || !gaps.some((gap, i) => i > 0 && gap >= ROW_SPACING * tight)) return none;
  const filled = (cells: readonly string[]) => cells.filter(Boolean).length;
  const continues = lines.map(() => false);
  let tallRows = 0;
  for (let start = 0; start < lines.length; ) {
    const first = lineCells[start]!;
    let end = start + 1;
    while (
      end < lines.length &&
      gaps[end]! <= SAME_SPACING * tight &&
      lineCells[end]!.every((cell, c) => cell === '' || first[c] !== '')
    )
      continues[end++] = true;
    if (end - start >= 2) {
      const wrapped = lineCells
        .slice(start + 1, end)
        .some((cells, k) => filled(cells) < filled(first) || hyphenated[start + 1 + k]);
      if (!wrapped || first[0] === '') return none;
      tallRows++;
    }
    start = end;
  }
  return tallRows >= 2 ? continues : none;
}

function isTabular(line: Line): boolean {
  return line.segments.length >= 2 && !LIST_MARKER_ONLY.test(line.segments[0]!.text);
}

/**
 * Borderless tables among a page's lines (in reading order): two or more multi-segment lines in
 * a row, with single-segment lines between or after them that start right of the first column.
 */
export function extractBorderlessTables(pageLines: readonly Line[]): { tables: Table[]; rest: Line[] } {
  const realigned = realignCentredRows(pageLines);
  const lines = splitAlignedColumns(realigned.lines, realigned.continues);
  const rowContinuations = new Set(lines.filter((_, i) => realigned.continues[i]));
  // A centred row's later lines are a cell's lines, not the flow's text: they show no text edge.
  const left = textLeft(lines.filter((_, i) => !realigned.continues[i]));
  const tables: Table[] = [];
  const rest: Line[] = [];
  let index = 0;
  while (index < lines.length) {
    // A block never starts inside a realigned row: the row's lines stand or fall together. Rows set apart as
    // paragraphs on one grid are tried first; when they make no table, the block as far as its first wide gap.
    let block: Line[] = [];
    let table: Table | undefined;
    for (const spaced of [true, false]) {
      const tried = realigned.continues[index] ? [] : tabularBlock(lines, index, rowContinuations, spaced);
      if (!spaced && tried.length === block.length) break;
      block = tried;
      table = block.length ? tableFromBlock(block, left, rowContinuations) : undefined;
      if (table) break;
    }
    if (table) {
      tables.push(table);
      index += block.length;
    } else {
      // A realigned row that is no table's goes back to text as it was set.
      rest.push(...(realigned.sources[index] ?? [lines[index]!]));
      index++;
    }
  }
  return { tables, rest };
}

/** A gap between a row's cells is wider than this many font sizes (a word space is about a quarter). */
const CELL_GAP = 0.5;
/** Lines of one table row are at most this many font sizes apart (a cell's line spacing, or half of it). */
const ROW_LINE_GAP = 1.5;
/** A row of centred cells spans at most this many lines. */
const MAX_ROW_LINES = 12;
/** How far (in font sizes) the centres of a row's cells may sit apart and still be centred on one height. */
const CELL_CENTRED = 0.2;

/**
 * Cells set centred in their row (an office suite's HTML tables): a one-line cell sits midway between the
 * two lines of the cell beside it, so a row's cells share no baseline. Where a few lines, set apart from the
 * lines around them by more than a cell's line spacing, form stacks in separate columns, each stack at one
 * line spacing, all centred on one height and one at least of two lines, they are one row: set again from its top,
 * the k-th line of every cell on one line. `continues` marks the row's lines after its first; `sources` gives
 * the lines as they were set, on the row's first line (none on the others), for when the row is no table's.
 */
function realignCentredRows(lines: readonly Line[]): {
  lines: Line[];
  continues: boolean[];
  sources: (Line[] | undefined)[];
} {
  const centred = realignRows(lines, undefined);
  // Rows whose cells wrap alike (no cell centred) show themselves only beside centred rows: those tell the
  // line spacing of a cell, and that rows stand further apart.
  return centred.spacing === undefined ? centred : realignRows(lines, centred.spacing);
}

function realignRows(
  lines: readonly Line[],
  cellSpacing: number | undefined,
): { lines: Line[]; continues: boolean[]; sources: (Line[] | undefined)[]; spacing?: number } {
  const out: Line[] = [];
  const continues: boolean[] = [];
  const sources: (Line[] | undefined)[] = [];
  let spacing: number | undefined;
  for (let i = 0; i < lines.length; ) {
    let row: { lines: Line[]; spacing: number } | undefined;
    let end = i;
    for (let j = i + 1; j < Math.min(lines.length, i + MAX_ROW_LINES) && !row; j++) {
      if (lines[j]!.baseline - lines[j - 1]!.baseline > ROW_LINE_GAP * lines[j]!.size) break;
      row = centredRow(lines, i, j, cellSpacing);
      end = j;
    }
    if (!row) {
      out.push(lines[i]!);
      continues.push(false);
      sources.push(undefined);
      i++;
      continue;
    }
    spacing = Math.min(spacing ?? row.spacing, row.spacing);
    const span = lines.slice(i, end + 1);
    row.lines.forEach((line, k) => {
      out.push(line);
      continues.push(k > 0);
      sources.push(k === 0 ? span : []);
    });
    i += span.length;
  }
  return { lines: out, continues, sources, spacing };
}

/**
 * Lines `start`..`end` set again as one row of centred cells (see realignCentredRows), or undefined; with
 * `cellSpacing` (centred rows elsewhere set their cells' lines that far apart), also a row whose cells all
 * have as many lines, at that spacing.
 */
function centredRow(
  lines: readonly Line[],
  start: number,
  end: number,
  cellSpacing: number | undefined,
): { lines: Line[]; spacing: number } | undefined {
  const band = lines.slice(start, end + 1);
  const size = band[0]!.size;
  const columns = unionColumns(band);
  if (columns.length < 2) return undefined;
  const stacks = columns.map((column) =>
    band.flatMap((line) => {
      const runs = line.runs.filter(
        (run) => (run.x0 + run.x1) / 2 >= column.start && (run.x0 + run.x1) / 2 <= column.end,
      );
      return runs.some((run) => run.text.trim()) ? [{ baseline: line.baseline, runs }] : [];
    }),
  );
  if (stacks.some((stack) => !stack.length) || stacks.every((stack) => stack.length === 1)) return undefined;
  // Each cell in one type; cells may differ (a name in code type beside its description).
  const sameSize = (stack: readonly { runs: TextRun[] }[]) => {
    const sizes = stack.map((line) => textSize(line.runs)!);
    return Math.max(...sizes) - Math.min(...sizes) <= SAME_SIZE * Math.min(...sizes);
  };
  if (!stacks.every(sameSize)) return undefined;
  const alike = stacks.every((stack) => stack.length === stacks[0]!.length);
  if (alike && cellSpacing === undefined) return undefined;
  const gaps = stacks.flatMap((stack) => stack.slice(1).map((line, k) => line.baseline - stack[k]!.baseline));
  const spacing = Math.min(...gaps);
  if (!(spacing > 0) || gaps.some((gap) => gap > SAME_SPACING * spacing)) return undefined;
  if (alike && Math.abs(spacing - cellSpacing!) > (SAME_SPACING - 1) * cellSpacing!) return undefined;
  const centres = stacks.map((stack) => (stack[0]!.baseline + stack[stack.length - 1]!.baseline) / 2);
  const bottoms = stacks.map((stack) => stack[stack.length - 1]!.baseline);
  const oneHeight = (values: readonly number[]) => Math.max(...values) - Math.min(...values) <= CELL_CENTRED * size;
  // A header row in bold may sit on its row's foot instead (docutils' HTML sets a table head `valign="bottom"`):
  // a two-line header cell beside a one-line one ends on its line.
  if (!oneHeight(centres) && !(band.every((line) => line.bold) && oneHeight(bottoms))) return undefined;
  // Set apart: rows stand further from each other than the lines of a cell.
  const before = lines[start - 1];
  const after = lines[end + 1];
  if (before && band[0]!.baseline - before.baseline < ROW_SPACING * spacing) return undefined;
  if (after && after.baseline - band[band.length - 1]!.baseline < ROW_SPACING * spacing) return undefined;
  const top = Math.min(...stacks.map((stack) => stack[0]!.baseline));
  const height = Math.max(...stacks.map((stack) => stack.length));
  const row: Line[] = [];
  for (let k = 0; k < height; k++) {
    const runs = stacks
      .flatMap((stack) => stack[k]?.runs ?? [])
      .map((run) => ({ ...run, baseline: top + k * spacing }));
    const built = buildLines(runs);
    if (built.length !== 1) return undefined;
    row.push(built[0]!);
  }
  return { lines: row, spacing };
}

/**
 * Table cells can sit closer than a segment gap ("Widget A 120"). Where three or more short lines
 * in a row have runs starting at the same x, that x is a column edge, whatever the gap before it.
 * The lines of a wrapped cell count too: a line of one piece starting where a row above starts an inner cell
 * (an office suite's narrow cells, "34.23234 {{ value|" over "floatformat" over "}}") shows that edge again, and
 * the lines of a row set again from its top (`rowContinues`, see realignCentredRows) stay in the window.
 */
function splitAlignedColumns(lines: readonly Line[], rowContinues: readonly boolean[] = []): Line[] {
  const textRight = Math.max(...lines.map((l) => l.x1));
  const short = (line: Line) => line.x1 < textRight - 2 * line.size;
  // A list item's marker is no cell: its lines are the list's, around a table set inside an item.
  const candidate = (line: Line) =>
    line.runs.length >= 2 &&
    !LIST_MARKER_ONLY.test(line.segments[0]!.text) &&
    !LIST_MARKER_ONLY.test(line.runs[0]!.text.trim()) &&
    short(line);
  // A wrapped cell's line starts where a row above in the window has a cell start inside the line, and it is a
  // line of text: a line's height below the line above, more than one glyph (a formula's or a drawing's pieces
  // stack closer, glyph by glyph).
  const wrappedCell = (line: Line, above: readonly Line[]) =>
    line.segments.length === 1 &&
    short(line) &&
    [...line.text.replace(/\s+/g, '')].length >= 2 &&
    line.baseline - above[above.length - 1]!.baseline >= line.size &&
    above.some((row) => candidate(row) && row.runs.slice(1).some((run) => Math.abs(run.x0 - line.x0) <= ALIGNED));
  // A row whose cells both fill their columns reaches the text's right edge, so it is not short: it is a row all the
  // same when a run opens where two of the flow's rows start an inner cell; opening a stretch of rows, past more
  // than a word space (after rows, the cells may sit closer: the stretch's rows show the edge).
  const innerStarts = lines.filter(candidate).flatMap((line) => line.runs.slice(1).map((run) => run.x0));
  const fullRow = (line: Line, opening: boolean) =>
    !LIST_MARKER_ONLY.test(line.runs[0]!.text.trim()) &&
    line.runs.some(
      (run, i) =>
        i > 0 &&
        (!opening || run.x0 - line.runs[i - 1]!.x1 > CELL_GAP * line.size) &&
        innerStarts.filter((x) => Math.abs(x - run.x0) <= ALIGNED).length >= 2,
    );
  // The row above a line: the last line before it that opens a row (a realigned row's later lines do not).
  const rowAbove = (index: number) => lines.slice(0, index).findLast((_, k) => !rowContinues[k]) ?? lines[index - 1]!;
  const result = [...lines];
  for (let start = 0; start < lines.length; ) {
    let end = start;
    while (
      end < lines.length &&
      (candidate(lines[end]!) ||
        fullRow(lines[end]!, end === start) ||
        (end > start && (rowContinues[end] || wrappedCell(lines[end]!, lines.slice(start, end))))) &&
      (end === start ||
        lines[end]!.baseline - lines[end - 1]!.baseline <=
          (sameRunStarts(lines[end]!, rowAbove(end)) ? MAX_GRID_ROW_GAP : MAX_ROW_GAP) * lines[end]!.size * 1.2)
    )
      end++;
    const window = lines.slice(start, end);
    const starts = window.filter(candidate).length >= MIN_ALIGNED_LINES ? alignedStarts(window, candidate) : [];
    if (starts.length) {
      // A bold line just above the rows, kept out of them only by its width (its names centred over the columns
      // run as wide as the table), is their header.
      const above = lines[start - 1];
      const header =
        above?.bold &&
        above.runs.length >= 2 &&
        !short(above) &&
        lines[start]!.baseline - above.baseline <= MAX_ROW_GAP * above.size * 1.2
          ? start - 1
          : start;
      for (let i = header; i < end; i++) result[i] = splitAtColumns(lines[i]!, starts);
    } else {
      const rows = spacedRows(window);
      const edges = spacedEdges(rows);
      if (edges.length) for (const [k, line] of rows.entries()) result[start + k] = splitAtColumns(line, edges);
    }
    start = Math.max(end, start + 1);
  }
  return result;
}

/** The rows opening a window that stand apart as paragraphs on one grid (see tabularBlock), or none. */
function spacedRows(window: readonly Line[]): Line[] {
  let end = 1;
  while (
    end < window.length &&
    window[end]!.baseline - window[end - 1]!.baseline > MAX_ROW_GAP * window[end]!.size * 1.2 &&
    sameRunStarts(window[end]!, window[end - 1]!)
  )
    end++;
  return end >= 2 ? window.slice(0, end) : [];
}

/**
 * Column edges of such rows: where one row parts its cells by a cell's gap and every other row has a run starting
 * there. Two rows show it (a table of two rows under its caption), where lines that stand close need three
 * (alignedStarts).
 */
function spacedEdges(rows: readonly Line[]): number[] {
  const edges = rows.flatMap((line) => line.segments.slice(1).map((segment) => segment.x0));
  return [...new Set(edges)].filter((x) =>
    rows.every((line) => line.runs.slice(1).some((run) => Math.abs(run.x0 - x) <= ALIGNED)),
  );
}

/**
 * Two lines whose runs start on one grid: at the same place first, and an inner run of each at one place (a name
 * set in pieces, "__init__" + "(*args, **kwargs)" or "tag_in_exception" + "(tag)", beside its description): rows of
 * one table, however far apart (see tabularBlock). Which of the starts are the table's edges, the rows tell together
 * (alignedStarts, spacedEdges).
 */
function sameRunStarts(line: Line, above: Line): boolean {
  if (line.runs.length < 2 || above.runs.length < 2) return false;
  if (Math.abs(line.runs[0]!.x0 - above.runs[0]!.x0) > ALIGNED) return false;
  return line.runs.slice(1).some((run) => above.runs.slice(1).some((other) => Math.abs(other.x0 - run.x0) <= ALIGNED));
}

/**
 * x positions where inner runs of as many lines as most of the window's rows start (a wrapped cell's line, not a
 * `candidate`, counts where it starts); an edge is some line's inner run twice at least, so that it parts cells.
 */
function alignedStarts(window: readonly Line[], candidate: (line: Line) => boolean): number[] {
  const starts = window
    .flatMap((line, index) =>
      (candidate(line) ? line.runs.slice(1) : line.runs.slice(0, 1)).map((run) => ({
        x: run.x0,
        index,
        inner: candidate(line),
      })),
    )
    .sort((a, b) => a.x - b.x || a.index - b.index);
  // The share is of the rows' lines: a wrapped cell's lines confirm an edge, they do not raise the bar for it.
  const needed = Math.max(MIN_ALIGNED_LINES, Math.ceil(ALIGNED_SHARE * window.filter(candidate).length));
  const edges: number[] = [];
  for (let i = 0; i < starts.length; ) {
    let j = i;
    while (j + 1 < starts.length && starts[j + 1]!.x - starts[i]!.x <= ALIGNED) j++;
    const here = starts.slice(i, j + 1);
    const inner = new Set(here.filter((s) => s.inner).map((s) => s.index)).size;
    if (new Set(here.map((s) => s.index)).size >= needed && inner >= 2) edges.push(starts[i]!.x);
    i = j + 1;
  }
  return edges;
}

/**
 * The lines of a borderless table starting at `start`, or none. With `spaced`, a row on the grid of the row above
 * (each cell starting where one of that row's starts) may stand up to MAX_GRID_ROW_GAP lines below it: HTML sets
 * a cell's text as a paragraph (`<td><p>`), and without a stylesheet its margins set the rows far apart.
 */
function tabularBlock(
  lines: readonly Line[],
  start: number,
  rowContinuations: ReadonlySet<Line>,
  spaced = false,
): Line[] {
  const first = lines[start]!;
  const next = lines[start + 1];
  // Such rows may stand under a caption of their own, a bold line of one cell where their first cells start
  // ("Arguments:", "Signals:"), a row's distance above them: the table's header.
  const caption =
    spaced &&
    first.bold &&
    first.segments.length === 1 &&
    next !== undefined &&
    isTabular(next) &&
    !next.bold &&
    Math.abs(next.x0 - first.x0) <= TOUCH &&
    next.baseline - first.baseline <= MAX_GRID_ROW_GAP * next.size * 1.2;
  if (!isTabular(first) && !caption) return [];
  const block = [first];
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!;
    const previous = block[block.length - 1]!;
    if (rowContinuations.has(line)) {
      block.push(line);
      continue;
    }
    const gap = line.baseline - previous.baseline;
    const lastRow = block.findLast(isTabular) ?? line;
    // Under a header set in bold, a row whose cells start where the row above has its cells, every one: the
    // same grid, whatever a tall cell (perhaps set out of sight, in another column of the page) left between
    // them. Without a header naming the columns, a wide gap ends the block (a drawing's rows of marks).
    const onGrid =
      line.segments.length === lastRow.segments.length &&
      line.segments.every((segment, c) => Math.abs(segment.x0 - lastRow.segments[c]!.x0) <= TOUCH);
    const sameGrid = onGrid && ((first.bold && !line.bold) || spaced);
    if (gap <= 0 || gap > (sameGrid ? MAX_GRID_ROW_GAP : MAX_ROW_GAP) * line.size * 1.2) break;
    const continuesCell = line.segments.length === 1 && line.x0 > first.x0 + 2 * line.size;
    const after = lines[i + 1];
    // A row-span label set between two rows, in the first column, left of every cell of both rows.
    const spanLabel =
      after !== undefined &&
      isTabular(after) &&
      isFloatingLabel(line, previous, after) &&
      line.x1 < Math.min(previous.segments[0]!.x0, after.segments[0]!.x0);
    // A row whose other cells are empty: one cell, in the first column of the rows above and below it.
    const firstCellOnly =
      line.segments.length === 1 &&
      after !== undefined &&
      isTabular(after) &&
      [lastRow, after].every(
        (row) => Math.abs(row.segments[0]!.x0 - line.x0) <= TOUCH && line.x1 < row.segments[1]!.x0 - TOUCH,
      );
    if (!isTabular(line) && !continuesCell && !spanLabel && !firstCellOnly) break;
    block.push(line);
  }
  return block.filter(isTabular).length >= 2 ? block : [];
}

/** Side-by-side prose (two columns of running text), not a table: every column is long sentences. */
function isProse(rows: readonly string[][]): boolean {
  const width = Math.max(...rows.map((r) => r.length));
  return Array.from({ length: width }, (_, c) => rows.map((r) => r[c] ?? '')).every((cells) => {
    const words = cells.reduce((n, cell) => n + cell.split(/\s+/).filter(Boolean).length, 0);
    return words / cells.length >= PROSE_WORDS_PER_CELL;
  });
}

/**
 * Aligned text that is not a table: a table of contents (leader dots, or titles with a page number
 * after them in order), numbered headings split at the gap after their number, formulas and proof
 * trees (mostly mathematics). `tableLayout`: the rows are laid out as a definition list never is (cells centred on
 * one another, or rows set apart as paragraphs on a grid sized by its cells: see tableFromBlock).
 */
export function isFalseTable(rows: readonly string[][], tableLayout = false): boolean {
  const filled = rows.map((row) => row.filter((cell) => cell.trim() !== ''));
  // Judged on the rows with two cells or more: text after a contents listing can hang on as one-cell rows.
  const fullRows = filled.filter((cells) => cells.length >= 2).length;
  // Counted run by run: contents lines merged into one cell (a wrapped entry) still show each of their leaders.
  const leaderRuns = filled.reduce(
    (n, cells) => n + cells.reduce((m, cell) => m + (cell.match(LEADER_RUNS)?.length ?? 0), 0),
    0,
  );
  if (leaderRuns >= 0.3 * fullRows) return true;
  const pages: number[] = [];
  const contents = filled.filter((cells) => {
    const last = cells[cells.length - 1] ?? '';
    if (
      cells.length < 2 ||
      cells.length > 3 ||
      !PAGE_REFERENCE.test(last) ||
      !/\p{L}{2}/u.test(cells.slice(0, -1).join(' '))
    )
      return false;
    if (/^\d+$/.test(last)) pages.push(Number(last));
    return SECTION_NUMBER.test(cells[0]!) || cells.length === 2;
  });
  const ascending = pages.every((page, i) => i === 0 || page >= pages[i - 1]!);
  if (contents.length >= 2 && contents.length >= 0.6 * fullRows && ascending) return true;
  if (isIndex(filled, fullRows)) return true;
  const numberedTitles = filled.filter(
    (cells) =>
      cells.length === 2 &&
      SECTION_NUMBER.test(`${cells[0]} `) &&
      /^\S+$/.test(cells[0]!) &&
      /\p{L}{2}/u.test(cells[1]!),
  );
  // Judged on full rows too: a line above the headings (a title set apart) hangs on as a one-cell row. Under a row
  // naming the columns ("Django version | Python versions") numbered rows are a table's.
  const named = !SECTION_NUMBER.test(`${filled[0]?.[0] ?? ''} `) && hasHeaderRow(filled);
  if (!named && numberedTitles.length >= 2 && numberedTitles.length >= 0.8 * Math.min(rows.length, fullRows))
    return true;
  if (
    isNumberedLines(filled) ||
    isBulletList(filled) ||
    (!tableLayout && isDefinitionList(rows)) ||
    isFlowingText(filled)
  )
    return true;
  if (isProseColumns(rows)) return true;
  if (isLabelledValues(filled)) return true;
  return isDrawing(rows);
}

/**
 * An index (or a list of changes): terms, each followed by the pages it is found on, in the order
 * of the terms, not of the pages. Some entry lists several pages; a table's values are not lists of
 * page numbers.
 */
function isIndex(filled: readonly string[][], fullRows: number): boolean {
  const entries = filled.filter(
    (cells) =>
      cells.length === 2 &&
      /\p{L}{2}/u.test(cells[0]!) &&
      (PAGE_LIST.test(cells[1]!) || PAGE_REFERENCE.test(cells[1]!)),
  );
  return entries.some((cells) => PAGE_LIST.test(cells[1]!)) && entries.length >= 2 && entries.length >= 0.6 * fullRows;
}

/**
 * What a figure or a displayed formula leaves when its text lines up: labels scattered over a
 * wide grid, or cells that are mostly mathematics (equation numbers count with them). Checked on
 * ruled grids too: a plot's axes and a matrix's brackets are drawn rules.
 */
export function isDrawing(rows: readonly string[][]): boolean {
  if (isScattered(rows) || isMarkPattern(rows) || isRepeatedColumns(rows) || rows.some(isPanelLabels)) return true;
  if (rows.some(isAddressRow)) return true;
  const cells = rows.flat().filter((cell) => cell.trim() !== '');
  const math = cells.filter((cell) => MATH.test(cell) || EQUATION_NUMBER.test(cell.trim()));
  return math.length >= MAX_MATH_SHARE * cells.length;
}

/**
 * Copies side by side (one example or figure set twice, to compare two settings): every column
 * repeats another one cell for cell. A table's columns each say something of their own.
 */
function isRepeatedColumns(rows: readonly string[][]): boolean {
  const width = Math.max(...rows.map((r) => r.length));
  if (width < 2) return false;
  const columns = Array.from({ length: width }, (_, c) => rows.map((r) => (r[c] ?? '').trim()).join('\u0000'));
  return columns.every((column, c) => columns.some((other, d) => d !== c && other === column));
}

/** "(a) Input matrix", "(b)": the label of a figure's panel. */
const PANEL_LABEL = /^\(([a-z])\)(?:\s|$)/;

/**
 * A row of panel labels in order, "(a) ...", "(b) ...": the subfigures of one figure set side by side
 * (a matrix, a plot, a drawing over each label), not the cells of a table.
 */
function isPanelLabels(row: readonly string[]): boolean {
  const letters = row.flatMap((cell) => {
    const written = cell.trim();
    return written ? [PANEL_LABEL.exec(written)?.[1] ?? ''] : [];
  });
  return (
    letters.length >= 2 &&
    letters.every(
      (letter, i) => letter !== '' && (i === 0 || letter.charCodeAt(0) === letters[i - 1]!.charCodeAt(0) + 1),
    )
  );
}

const EMAIL = /^\{?[\w.+-]+(?:,\s?[\w.+-]+)*\}?@[\w-]+(?:\.[\w-]+)+$/;

/**
 * A row whose every cell is an e-mail address: an author block, each column one author's name and
 * address. A table lists addresses down a column, beside other things.
 */
function isAddressRow(row: readonly string[]): boolean {
  const written = row.map((cell) => cell.trim()).filter(Boolean);
  return written.length >= 2 && written.every((cell) => EMAIL.test(cell));
}

/** A grid whose cells use no more than this many different words is a pattern of marks. */
const PATTERN_WORDS = 2;

/**
 * A pattern of marks (a drawing's repeated labels "b b", a grid of bits with no labels): every cell,
 * the first row's included, drawn from one or two words (and dashes). A table names its columns or its rows, so
 * some cell says something else.
 */
function isMarkPattern(rows: readonly string[][]): boolean {
  // A dash or a star (a don't-care, an empty mark) is no word.
  const words = new Set(rows.flat().flatMap((cell) => cell.split(/\s+/).filter((word) => /[\p{L}\p{N}]/u.test(word))));
  return words.size <= PATTERN_WORDS;
}

/** Words from which a description cell reads as prose; a term is at most this many words. */
const DESCRIPTION_WORDS = 6;
const TERM_WORDS = 3;

const wordCount = (text: string) => text.split(/\s+/).filter(Boolean).length;

/**
 * A definition list (an option, command or key, then a sentence or two about it): two columns,
 * short terms on the left and prose on the right, no header row. A table of values has short
 * cells; a table with a prose column has a header over it or other columns beside it.
 */
function isDefinitionList(rows: readonly string[][]): boolean {
  if (Math.max(...rows.map((r) => r.length)) !== 2) return false;
  const full = rows.filter((r) => r[0]?.trim() && r[1]?.trim());
  if (full.length < 2) return false;
  // A header row ("Option | Description") over the descriptions makes it a table.
  const header = full[0]!;
  if (wordCount(header[0]!) <= TERM_WORDS && wordCount(header[1]!) <= TERM_WORDS && !/[.:]$/.test(header[1]!.trim()))
    return false;
  // Brackets and marks around a term ("[ 〈 X size〉]") are not words.
  const terms = full.every((r) => (r[0]!.match(/[\p{L}\p{N}]+/gu)?.length ?? 0) <= TERM_WORDS);
  const described = full.filter((r) => wordCount(r[1]!) >= DESCRIPTION_WORDS && /\p{Ll}{2}/u.test(r[1]!)).length;
  return terms && described >= 0.5 * full.length;
}

/** Share of full rows whose text runs on across a cell boundary before a row is read as prose. */
const FLOWING_SHARE = 0.6;

/**
 * Running text split at a wide word space (justified lines of a narrow column, a listing): in
 * most rows a sentence runs on from one cell into the next (lowercase word to lowercase word,
 * several words on each side), or a word is hyphenated across the boundary. A table's cells
 * stand alone, under a header row when it has one.
 */
function isFlowingText(filled: readonly string[][]): boolean {
  const full = filled.filter((cells) => cells.length >= 2);
  if (full.length < 2) return false;
  const runsOn = (cells: readonly string[]) =>
    cells.slice(1).some((cell, i) => {
      const before = cells[i]!;
      if (/\p{Ll}-$/u.test(before) && /^\p{Ll}/u.test(cell)) return true;
      return /\p{Ll}[,;]?$/u.test(before) && /^\p{Ll}/u.test(cell) && wordCount(before) >= 2 && wordCount(cell) >= 2;
    });
  // A header row (short capitalised cells) over lowercase rows makes it a table.
  const header = full[0]!;
  if (!runsOn(header) && header.every((cell) => /^\p{Lu}/u.test(cell) && wordCount(cell) <= TERM_WORDS)) return false;
  return full.filter(runsOn).length >= FLOWING_SHARE * full.length;
}

/** Rows from which narrow columns of running text show themselves, and the share of their lines that run on. */
const PROSE_COLUMN_ROWS = 4;
const RUN_ON_SHARE = 0.7;
/** Words per line from which a narrow column reads as running text rather than as values or names. */
const PROSE_COLUMN_WORDS = 2;

/**
 * Narrow columns of running text side by side (a paragraph set twice to compare two settings, a text
 * and its translation): in every column most lines go on with the sentence of the line above (they
 * start in lowercase), with a few words each, and somewhere a sentence's punctuation. A table's
 * cells start afresh, or hold a word or two, or no punctuation.
 */
function isProseColumns(rows: readonly string[][]): boolean {
  if (rows.length < PROSE_COLUMN_ROWS) return false;
  const width = Math.max(...rows.map((r) => r.length));
  return Array.from({ length: width }, (_, c) => rows.slice(1).map((r) => (r[c] ?? '').trim())).every((cells) => {
    const written = cells.filter(Boolean);
    const runOn = written.filter((cell) => /^\p{Ll}/u.test(cell)).length;
    const words = written.reduce((n, cell) => n + wordCount(cell), 0);
    // Sentences break somewhere in the column ("program. TeX is", "typesetting,"); cells of a
    // table ("row 1 | data 1") may start in lowercase with two words, but hold no punctuation.
    const punctuated = written.some((cell) => /\p{L}[,.;:!?]["”’)]?(?:\s|$)/u.test(cell));
    return (
      written.length >= PROSE_COLUMN_ROWS - 1 &&
      runOn >= RUN_ON_SHARE * written.length &&
      words >= PROSE_COLUMN_WORDS * written.length &&
      punctuated
    );
  });
}

/** "12", "12:" or a note mark "[^12]:" in front of a line: a line number. */
const LINE_NUMBER = /^(?:\[\^)?(\d{1,5})\]?:?$/;

/**
 * Numbered lines (a program listing, numbered verse or clauses): two columns whose first is a
 * count going up by one from row to row. A table of values numbers its rows with more columns.
 */
function isNumberedLines(filled: readonly string[][]): boolean {
  if (isNumberedListing(filled)) return true;
  // Code cut into a few pieces at its indentation may follow the number, counted from the first row.
  // A table numbers its rows under a header or beside values; a chart (a code point per row, a cell
  // per column) has many cells.
  const wide = filled.some((cells) => cells.length > 2);
  const values = filled.filter((cells) => cells.slice(1).some(isValue)).length >= NUMERIC_SHARE * filled.length;
  if (
    wide &&
    (values || !LINE_NUMBER.test(filled[0]?.[0] ?? '') || filled.some((cells) => cells.length > LISTING_PIECES))
  )
    return false;
  const numbers = filled.flatMap((cells) => {
    const match = cells.length >= 2 ? LINE_NUMBER.exec(cells[0]!) : null;
    return match ? [Number(match[1])] : [];
  });
  return countsLines(filled, numbers);
}

/** A numbered code line split at its indentation comes in at most this many pieces, its number included. */
const LISTING_PIECES = 4;

/** A line number set a word space before the code it numbers, at the start of a cell: "155 \\cs_new:Npn". */
const GLUED_LINE_NUMBER = /^(\d{1,5})\s+\S/;

/**
 * Numbers in front of most rows counting up one by one: lines numbered. Rows numbered under a row naming the
 * columns ("Outdim Value | Description" over 2, 3) are a table's.
 */
function countsLines(filled: readonly string[][], numbers: readonly number[]): boolean {
  if (numbers.length < 2 || numbers.length < 0.6 * filled.length) return false;
  if (!LINE_NUMBER.test(filled[0]?.[0] ?? '') && hasHeaderRow(filled)) return false;
  const steps = numbers.slice(1).filter((n, i) => n === numbers[i]! + 1).length;
  return steps >= 0.8 * (numbers.length - 1);
}

/**
 * A listing whose line numbers sit in a cell with the code (a margin note beside it can take the
 * first cell): in most rows some cell starts with a number that goes up by one from row to row.
 * A table's row numbers stand in a cell of their own.
 */
function isNumberedListing(filled: readonly string[][]): boolean {
  const numbers = filled.flatMap((cells) => {
    const match = cells.map((cell) => GLUED_LINE_NUMBER.exec(cell)).find(Boolean);
    return match ? [Number(match[1])] : [];
  });
  return countsLines(filled, numbers);
}

/** Share of full rows whose first cell is a label ending in a colon before the rows are read as a form. */
const LABEL_SHARE = 0.6;

/**
 * A form's fields or a title page's particulars ("Betreut von: | Name"): labels ending in a colon,
 * each followed by its value. Read as lines, each label stays beside its value.
 */
function isLabelledValues(filled: readonly string[][]): boolean {
  const full = filled.filter((cells) => cells.length >= 2);
  return full.length >= 2 && full.filter((cells) => /:$/.test(cells[0]!.trim())).length >= LABEL_SHARE * full.length;
}

const BULLET_START = /^[•·▪■□◦‣○●►▶▷▸▹➢➤✓\uf0b7\uf0a7]\s*\S/;

/** Bulleted items whose words were set apart by a wide space ("• use   \\newcommand"): a list. */
function isBulletList(filled: readonly string[][]): boolean {
  const full = filled.filter((cells) => cells.length >= 2);
  return full.length > 0 && full.filter((cells) => BULLET_START.test(cells[0]!)).length >= 0.5 * full.length;
}

/** A grid this wide (columns) with fewer cells filled than this share is scattered labels. */
const SCATTER_COLUMNS = 4;
const MIN_FILLED_SHARE = 0.3;
/** A sparser grid is labels unless a column or the first row is filled this much (a key column, a header). */
const SPARSE_SHARE = 0.6;
const KEY_SHARE = 0.8;

/**
 * Labels scattered over a grid (a plot's axes and ticks, a tree diagram): most cells empty, or
 * many empty with no column filled on nearly every row and no header row. A sparse table of
 * marks still has its key column or its header.
 */
function isScattered(rows: readonly string[][]): boolean {
  const width = Math.max(...rows.map((r) => r.length));
  const isFilled = (cell: string | undefined) => (cell ?? '').trim() !== '';
  const filled = rows.reduce((n, row) => n + row.filter(isFilled).length, 0);
  if (width >= SCATTER_COLUMNS && filled < MIN_FILLED_SHARE * width * rows.length) return true;
  if (width < 3 || rows.length < 3 || filled >= SPARSE_SHARE * width * rows.length) return false;
  const keyColumn = Array.from({ length: width }, (_, c) => rows.filter((r) => isFilled(r[c])).length).some(
    (n) => n >= KEY_SHARE * rows.length,
  );
  const header = rows[0]!.filter(isFilled).length >= KEY_SHARE * width;
  return !keyColumn && !header;
}

/** Runs of this many letters or more show a font's pitch. */
const PITCH_SAMPLE_LETTERS = 4;
/** Advances (width per character, in ems) this close to their median are one fixed pitch. */
const PITCH_TOLERANCE = 0.03;

/**
 * Program text: every run with a few letters has the same advance per character (a fixed-pitch
 * font). Aligned fixed-pitch text is a listing laid out with spaces, not a table. Runs of
 * digits are left out: most fonts set figures at one width.
 */
export function isFixedPitch(lines: readonly Line[]): boolean {
  const advances = lines
    .flatMap((line) => line.runs)
    .filter((run) => !run.text.includes('<') && (run.text.match(/\p{L}/gu)?.length ?? 0) >= PITCH_SAMPLE_LETTERS)
    .map((run) => (run.x1 - run.x0) / ([...run.text].length * run.size))
    .sort((a, b) => a - b);
  if (advances.length < MIN_ALIGNED_LINES) return false;
  const median = advances[Math.floor(advances.length / 2)]!;
  return advances.every((advance) => Math.abs(advance - median) <= PITCH_TOLERANCE * median);
}

/** Lines of at least this many characters show where the text block starts. */
const TEXT_LINE_CHARS = 20;

/** Text lines that must start at one x for it to be the text edge. */
const TEXT_EDGE_LINES = 3;

/**
 * The flow's text edge: the leftmost start shared by three text lines set in one piece (a line
 * with a note in the margin beside it is two pieces), when there are such lines.
 */
function textLeft(lines: readonly Line[]): number | undefined {
  const starts = lines
    .filter((line) => line.segments.length === 1 && line.text.length >= TEXT_LINE_CHARS)
    .map((line) => line.x0)
    .sort((a, b) => a - b);
  const last = TEXT_EDGE_LINES - 1;
  return starts.find((x, i) => i + last < starts.length && starts[i + last]! - x <= TOUCH);
}

/**
 * Notes in the margin (macro names beside documented code, keys beside their description): a
 * first column of words that ends before the flow's text edge, the rest of the line at or after it.
 */
function isMarginNotes(block: readonly Line[], columns: readonly Interval[], textLeft: number | undefined): boolean {
  if (textLeft === undefined || columns[0]!.end >= textLeft - TOUCH || columns[1]!.start < textLeft - TOUCH)
    return false;
  const notes = block.map((line) => line.segments[0]!).filter((segment) => segment.x1 < textLeft - TOUCH);
  return notes.every((note) => /\p{L}{2}/u.test(note.text));
}

/** Rows of cells centred on one another that show a table without a header or a column of values. */
const MIN_CENTRED_ROWS = 2;

/** `textLeft`: the flow's text edge (see isMarginNotes). */
function tableFromBlock(
  block: readonly Line[],
  textLeft?: number,
  rowContinuations: ReadonlySet<Line> = new Set(),
): Table | undefined {
  const columns = alignedColumns(block);
  if (columns.length < 2) return undefined;
  if (isMarginNotes(block, columns, textLeft)) return undefined;
  const rows = rowsFromLines(block, columns, rowContinuations);
  const fullRows = rows.filter((row) => row.filter(Boolean).length >= 2);
  // Prose is judged line by line: a wrapped cell is long, and a table all the same.
  const prose = isProse(cellsOfLines(block, columns));
  // Cells centred on one another in rows of several lines (see realignCentredRows), in two rows or more: a table's
  // layout, whatever its cells say. A definition list sets its term level with the first line of its description.
  const centredRows = block.filter((line, i) => rowContinuations.has(line) && !rowContinuations.has(block[i - 1]!));
  const centred = centredRows.length >= MIN_CENTRED_ROWS;
  const spaced = isSpacedGrid(block, columns, rowContinuations);
  // Rows further apart than a table's lines show a table only by that layout, or under a bold header (tabularBlock).
  const wide = block.some((line, i) => i > 0 && line.baseline - block[i - 1]!.baseline > MAX_ROW_GAP * line.size * 1.2);
  if (wide && !(block[0]!.bold && isTabular(block[0]!)) && !(spaced || rowsHoldWords(block))) return undefined;
  // A header set in bold over rows that are not is distinct: two rows show the table, and rows of program text
  // under it are a table's values (old and new names side by side), not a listing laid out with spaces.
  const boldLines = block.findIndex((line) => !line.bold);
  const distinctHeader = boldLines > 0 && isTabular(block[0]!) && block.slice(boldLines).every((line) => !line.bold);
  if (fullRows.length < 2 || prose || isFalseTable(rows, centred || spaced)) return undefined;
  if (isFixedPitch(block) && !distinctHeader) return undefined;
  if (!centred && !spaced && !isCellGrid(rows, distinctHeader)) return undefined;
  const last = block[block.length - 1]!;
  return {
    rows,
    top: block[0]!.baseline - block[0]!.size,
    bottom: last.baseline + 0.25 * last.size,
    left: Math.min(...block.map((l) => l.x0)),
    right: Math.max(...block.map((l) => l.x1)),
    columns: columns.map((c) => c.start),
    size: textSize(block.flatMap((line) => line.runs)),
  };
}

/** Rows set apart as paragraphs stand this many font sizes apart at least (baseline to baseline)... */
const SPACED_ROWS = 2;
/** ...and a column sized by its widest cell ends within this many font sizes of the next column. */
const CELL_PADDING = 1;

/**
 * Rows set apart as paragraphs (HTML's `<td><p>` without a stylesheet), three or more, all at one distance from
 * the line above them, on columns each as wide as its widest cell: the layout of a table, whatever its cells say.
 * A definition list or an option list sets its descriptions at a fixed indent, not at its widest term's end.
 */
function isSpacedGrid(block: readonly Line[], columns: readonly Interval[], rowContinuations: ReadonlySet<Line>) {
  const gaps = block.flatMap((line, i) =>
    i > 0 && isTabular(line) && !rowContinuations.has(line)
      ? [(line.baseline - block[i - 1]!.baseline) / line.size]
      : [],
  );
  if (gaps.length + 1 < MIN_TABLE_ROWS || Math.min(...gaps) < SPACED_ROWS) return false;
  if (!rowsHoldWords(block)) return false;
  if (Math.max(...gaps) > SAME_SPACING * Math.min(...gaps)) return false;
  const size = Math.min(...block.map((line) => line.size));
  return columns.slice(1).every((column, c) => column.start - columns[c]!.end <= CELL_PADDING * size);
}

/** Paragraphs hold words: rows of marks or figures set apart are a drawing's (a Karnaugh map's). */
const rowsHoldWords = (block: readonly Line[]) => block.filter(isTabular).every((line) => /\p{L}{2}/u.test(line.text));

/** With no grid drawn, a table shows itself over this many rows: a header and two rows, or three rows of values. */
const MIN_TABLE_ROWS = 3;
/** ...or a header row set apart in its type (bold over plain rows) and one row under it. */
const MIN_HEADED_ROWS = 2;
/** A header cell names its column in a few words. */
const HEADER_WORDS = 4;
/** Share of a column's body cells that must be numbers for it to be a column of values. */
const NUMERIC_SHARE = 0.6;
/** A number, maybe signed, grouped, with a currency before it or a unit or per cent after it: "1,200", "21.5 °C". */
const NUMBER_CELL = /^[-−+±]?[$€£¥]?\d[\d,.\u00a0\u202f']*(?:\s?(?:%|‰|°\p{L}?|[\p{L}µ]{1,3}))?$/u;

/**
 * A number that is a value: not a section number ("3.3.1"), nor an item of a sequence written out ("9.," in an
 * array printed by a program: a value ends with its digits, unit or sign, not with a separator).
 */
const isValue = (cell: string) =>
  NUMBER_CELL.test(cell.trim()) && !/^\d+\.\d+\.\d/.test(cell.trim()) && !/[,;]$/.test(cell.trim());

/**
 * What aligned text needs, when no rule is drawn, to be read as a table rather than as text that
 * happens to line up (a title block, a listing, a figure's labels, two lines split at a wide
 * space): rows enough to show the columns (two when `distinctHeader`: the first row set apart in
 * bold), and cells that read as cells -- a header row naming the columns, or a column of numbers.
 * Text that fails is kept as lines: a reader loses little, where a false table would mangle it.
 */
export function isCellGrid(rows: readonly string[][], distinctHeader = false): boolean {
  if (rows.length < (distinctHeader ? MIN_HEADED_ROWS : MIN_TABLE_ROWS)) return false;
  return hasHeaderRow(rows) || hasNumberColumn(rows);
}

/** How a row's first cell starts when it is not a word: a digit, or the sign itself ("-v", "\\cmd", "[opt]"). */
function leadSign(row: readonly string[]): string | undefined {
  const first = row.map((cell) => cell.trim()).find(Boolean);
  if (!first || /^\p{L}/u.test(first)) return undefined;
  return /^\p{N}/u.test(first) ? 'digit' : [...first][0];
}

/** A cell that is one quoted string: a literal value ("'AM'", "“None”"), which no header names its column with. */
const QUOTED_LITERAL = /^['"‘“][^'"‘’“”]*['"’”]$/u;

/**
 * The first row names the columns: short cells over at least half of them, none ending a sentence
 * or a clause, and not led like the rows below it (an option list's first "-v", a macro list's first
 * "\\cmd" is a row like the others, not a name).
 */
function hasHeaderRow(rows: readonly string[][]): boolean {
  const width = Math.max(...rows.map((r) => r.length));
  const names = rows[0]!.map((cell) => cell.trim()).filter(Boolean);
  if (names.length < 2 || names.length < width / 2) return false;
  const sign = leadSign(rows[0]!);
  const body = rows.slice(1).filter((row) => row.some((cell) => cell.trim() !== ''));
  if (sign !== undefined && body.filter((row) => leadSign(row) === sign).length >= KEY_SHARE * body.length)
    return false;
  // A column the rows fill but the header leaves blank before its last name (the first column aside:
  // the rows' own labels) is under a name spanning two columns ("Left delimiters" over a command and
  // its glyph); labels set over some words of a line (a dependency graph's arcs over a sentence and
  // its tags) leave such gaps too, with two rows below. So a header with gaps shows its columns over
  // three rows at least.
  const named = rows[0]!.flatMap((cell, c) => (cell.trim() ? [c] : []));
  const gap = Array.from({ length: width }, (_, c) => c).some(
    (c) => c > 0 && c < named[named.length - 1]! && !rows[0]![c]?.trim() && body.some((row) => row[c]?.trim()),
  );
  if (gap && body.length < MIN_TABLE_ROWS) return false;
  return names.every(
    // A name neither ends a clause nor starts in the middle of one (",2" is what a formula leaves), nor
    // ends in a colon (a label waiting for its value: a form, an instrument's panel),
    // is no quoted literal (a value such as "'AM'": a row of a table whose header is on an earlier page),
    // and is no formula ("E = mc²" over the symbols it explains).
    (cell) =>
      wordCount(cell) <= HEADER_WORDS &&
      /[\p{L}\p{N}]/u.test(cell) &&
      !/[,;:]$|\p{Ll}{3}[.!?]$|^[,.;:)\]}]/u.test(cell) &&
      !QUOTED_LITERAL.test(cell) &&
      !(/[=<>≤≥≈]|<su[bp]>/u.test(cell) || EQUATION_NUMBER.test(cell)),
  );
}

/**
 * Some column below the first row holds numbers on most rows (values, amounts, codes of a chart).
 * With two columns the first does not count: numbers before text are how listings, notes and
 * numbered headings are set. A section number ("3.3.1") is no value.
 */
function hasNumberColumn(rows: readonly string[][]): boolean {
  const body = rows.slice(1);
  const width = Math.max(...rows.map((r) => r.length));
  // Sentences with a number after them are notes with their page (a list of changes), not rows with values.
  if (width === 2 && body.filter((r) => SENTENCE.test((r[0] ?? '').trim())).length >= NUMERIC_SHARE * body.length)
    return false;
  return Array.from({ length: width }, (_, c) => body.map((r) => (r[c] ?? '').trim())).some((cells, c) => {
    if (width === 2 && c === 0) return false;
    const values = cells.filter(isValue);
    return values.length >= 2 && values.length >= NUMERIC_SHARE * body.length && !(width === 2 && isCount(values));
  });
}

/** A sentence: words ending in a full stop, a question or an exclamation mark. */
const SENTENCE = /\S\s+\S.*\p{L}[)'’]?[.!?]$/u;

/**
 * Numbers going up by one from row to row, three or more, beside a line of text (line numbers in the
 * margin of a parallel text, "5R", "6R", "7R"): they count the lines, they measure nothing. A chart
 * keys its many cells by such numbers; a table's row numbers come with a header or values beside them.
 */
function isCount(values: readonly string[]): boolean {
  const numbers = values.map((value) => Number(/\d+/.exec(value)![0]));
  return numbers.length >= MIN_TABLE_ROWS && numbers.slice(1).every((n, i) => n === numbers[i]! + 1);
}

/** Column starts this close (points) are the same grid on the next page. */
const SAME_GRID = 3;

/** What a table opening a page adds to the table ending the page before: its rows, and the rest of its last row. */
export interface Continuation {
  rows: string[][];
  lastRow?: string[];
}

/**
 * Whether `next` (first on its page) continues `table` (last on the page before): the same number of columns, and
 * the same header row (dropped) or the same column grid. A header row set again whose cells go on with more words,
 * the first cell as it was, is the header over the rest of the row the page break cut: those lines, with no first
 * cell, were read as the header's wrapped lines; they finish the last row.
 */
export function continuesTable(
  table: Pick<Table, 'rows' | 'columns'>,
  next: Pick<Table, 'rows' | 'columns'>,
): Continuation | undefined {
  const width = (t: Pick<Table, 'rows'>) => Math.max(...t.rows.map((r) => r.length));
  if (width(table) !== width(next)) return undefined;
  const [header, first] = [table.rows[0]!, next.rows[0]!];
  if (header.join('\u0000') === first.join('\u0000')) return { rows: next.rows.slice(1) };
  const words = (cell: string | undefined) => (cell ?? '').split(/\s+/).filter(Boolean);
  const rest = header.map((cell, c) => {
    const [head, given] = [words(cell), words(first[c])];
    return head.every((word, k) => given[k] === word) ? given.slice(head.length).join(' ') : undefined;
  });
  if (rest[0] === '' && rest.slice(1).some(Boolean) && rest.every((cell) => cell !== undefined))
    return { rows: next.rows.slice(1), lastRow: rest as string[] };
  const sameGrid =
    table.columns.length === next.columns.length &&
    table.columns.every((x, i) => Math.abs(x - next.columns[i]!) <= SAME_GRID);
  return sameGrid ? { rows: next.rows } : undefined;
}

/** The font size set in the most characters of `runs`. */
function textSize(runs: readonly TextRun[]): number | undefined {
  const chars = new Map<number, number>();
  for (const run of runs) chars.set(run.size, (chars.get(run.size) ?? 0) + run.text.trim().length);
  return [...chars].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0];
}

/** Lines continuing a table on the next page: what they add to its last row, the rows they add, how many they are. */
export interface ContinuedRows {
  lastRow: string[];
  rows: string[][];
  used: number;
}

/** Lines of one row's cells stand at most this many font sizes apart (baseline to baseline); rows stand further. */
const CONTINUED_ROW_LINES = 1.5;
/** Font sizes (baseline to baseline) beyond which lines are no longer the table's rows. */
const CONTINUED_ROW_GAP = 2.6;
/** A line of the table's text is set within this share of its font size. */
const CONTINUED_SIZE = 0.1;

/**
 * The lines opening a page that go on with `table`, the last block of the page before, when no table was found
 * in them (one row, or a row's rest, is too little for a table of its own): each piece of each line lies inside
 * one of the table's columns (prose runs across them), every line is set in the table's size, one at most a
 * row's spacing below the other. They fall in bands of a row's line spacing and weight (a line filling the first
 * column and another opens a band of its own, unless centred in it): a band that fills two columns or more, its
 * first among them, is a row; a first band that does not (the rest of a cell the page break cut, or of the cells
 * beside it) finishes the table's last row; a band that repeats the header row is the header again. A paragraph
 * going on from them at its line spacing shows they were its first lines, not the table's.
 */
export function continuedRows(
  table: Pick<Table, 'rows' | 'columns' | 'right' | 'size'>,
  lines: readonly Line[],
): ContinuedRows | undefined {
  const { columns, size } = table;
  const width = Math.max(...table.rows.map((row) => row.length));
  if (size === undefined || columns.length < 2 || columns.length !== width) return undefined;
  const cellsOf = (line: Line): string[] | undefined => {
    if (Math.abs(line.size - size) > CONTINUED_SIZE * size) return undefined;
    const cells = columns.map(() => '');
    for (const segment of splitAtColumns(line, columns).segments) {
      const column = columns.findLastIndex((x) => x <= segment.x0 + SAME_GRID);
      const end = columns[column + 1] ?? table.right + size;
      if (column < 0 || segment.x1 > end + SAME_GRID) return undefined;
      cells[column] = joinText(cells[column]!, segment.text);
    }
    return cells;
  };
  const accepted: { line: Line; cells: string[] }[] = [];
  for (const [i, line] of lines.entries()) {
    const cells = cellsOf(line);
    if (!cells || (i > 0 && line.baseline - lines[i - 1]!.baseline > CONTINUED_ROW_GAP * size)) break;
    accepted.push({ line, cells });
  }
  const used = accepted.length;
  const nextLine = (i: number) =>
    accepted[i + 1]!.line.baseline - accepted[i]!.line.baseline <= CONTINUED_ROW_LINES * size;
  /** Lines after the i-th at a row's line spacing, with no first cell. */
  const restBelow = (i: number) => {
    let n = 0;
    while (i + n + 1 < used && nextLine(i + n) && accepted[i + n + 1]!.cells[0] === '') n++;
    return n;
  };
  const bands: { cells: string[]; lines: number; bold: boolean }[] = [];
  for (const [i, { line, cells }] of accepted.entries()) {
    const band = bands[bands.length - 1];
    // A line filling the first cell and another opens a row (rows may stand a line apart), unless it stands
    // midway down the band's lines (as many above as below: a first cell set centred in its row) or goes on with
    // a bold band in bold (a header's wrapped lines).
    const centred = band !== undefined && band.cells[0] === '' && restBelow(i) === band.lines;
    const opensRow = cells[0] !== '' && cells.filter(Boolean).length >= 2 && !centred && !(line.bold && band?.bold);
    if (band && nextLine(i - 1) && !opensRow && line.bold === band.bold) {
      band.cells = band.cells.map((cell, c) => joinText(cell, cells[c]!));
      band.lines++;
    } else bands.push({ cells, lines: 1, bold: line.bold });
  }
  if (used === 0) return undefined;
  const after = lines[used];
  if (after && !after.bold && after.baseline - accepted[used - 1]!.line.baseline <= CONTINUED_ROW_LINES * size)
    return undefined;
  const same = (a: readonly string[], b: readonly string[]) =>
    a.length === b.length && a.every((cell, c) => cell.replace(/\s+/g, '') === (b[c] ?? '').replace(/\s+/g, ''));
  const isRow = (cells: readonly string[]) => cells[0] !== '' && cells.filter(Boolean).length >= 2;
  const result: ContinuedRows = { lastRow: columns.map(() => ''), rows: [], used: 0 };
  let lineCount = 0;
  for (const [b, band] of bands.entries()) {
    if (b === 0 && same(band.cells, table.rows[0]!)) {
      // The header row set again on the page: already the table's.
    } else if (isRow(band.cells)) result.rows.push(band.cells);
    else if (b === 0 || (b === 1 && same(bands[0]!.cells, table.rows[0]!))) result.lastRow = band.cells;
    else break;
    lineCount += band.lines;
    result.used = lineCount;
  }
  return result.used ? result : undefined;
}
