/**
 * Turns a page's lines (in reading order) and tables into blocks: headings by font-size rank or
 * weight, normalised list items, and paragraphs joined across line breaks.
 */
import { joinText, roundSize } from './lines.js';
import { columnLefts, itemTextX, type ListMarker, type MarkerKind, markerNumber, parseListMarker } from './lists.js';
import type { OutlineHeading } from './outline.js';
import { continuedRows, continuesTable, LEADERS, type Table } from './tables.js';
import type { Block, Box, Line, TextPart } from './types.js';

/** Lines larger than body by this many points are headings. */
const HEADING_SIZE_STEP = 0.9;
const MAX_HEADING_LINES = 3;
const MAX_HEADING_WORDS = 20;
const MAX_BOLD_HEADING_LINES = 2;
const MAX_BOLD_HEADING_WORDS = 14;
/** A line further below the previous one than this many line steps starts a new paragraph. */
const PARAGRAPH_BREAK = 1.25;
/** List item lines may be spaced a little wider than paragraph lines. */
const LIST_CONTINUATION = 1.6;
/** A paragraph of an item, at its text indent, may sit this many line steps below the item's last line. */
const ITEM_PARAGRAPH_GAP = 2.5;
/** Markers closer than this (points) in x are at the same nesting level. */
const INDENT_TOLERANCE = 3;
const SENTENCE_END = /[.!?:]["'”’)]?$/;
/** A footnote's text at the page foot (see attachScripts): each starts a paragraph of its own. */
const FOOTNOTE = /^\[\^[^\]]+\]:/;

/**
 * A section number in front of a title: "2", "2.1", "A.3", "IV." (a lone digit or letter needs nothing after it but a
 * title).
 */
const SECTION_TITLE =
  /^(\d{1,2}(?:\.\d{1,2}){0,4}\.?|[A-Z]\.(?:\d{1,2}\.?){0,3}|[A-Z](?:\.\d{1,2}){1,3}|[IVXLC]{1,6}\.)\s+(\S.*)$/u;
const MAX_NUMBERED_HEADING_WORDS = 12;

/** What spacing is judged against: the body's size and each size's usual line step. */
interface LineMetrics {
  bodySize: number;
  /** Rounded font size -> usual distance between baselines of consecutive lines. */
  lineSteps: Map<number, number>;
}

export interface DocumentStyle extends LineMetrics {
  /** Heading style key -> level (1 = largest). */
  headingLevels: Map<string, number>;
  /** Headings the document's outline names (outline.ts): when present, the only headings. */
  outline?: Map<Line, OutlineHeading>;
}

function styleKey(line: Line): string {
  return `${roundSize(line.size)}|${line.bold ? 'bold' : 'regular'}`;
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** How far below the baseline a line's box reaches, as a share of its size (descenders). */
const DESCENT = 0.25;

/** Where a line's glyphs sit: from a size above its baseline to its descenders. */
export function lineBox(line: Line): Box {
  return { x0: line.x0, y0: line.baseline - line.size, x1: line.x1, y1: line.baseline + DESCENT * line.size };
}

function union(a: Box, b: Box): Box {
  return { x0: Math.min(a.x0, b.x0), y0: Math.min(a.y0, b.y0), x1: Math.max(a.x1, b.x1), y1: Math.max(a.y1, b.y1) };
}

/** Grows a node's box by a line on its page: a node that runs on to the next page keeps its first page's box. */
function extend(node: { page: number; box?: Box }, page: number, line: Line): void {
  if (page !== node.page) return;
  node.box = node.box ? union(node.box, lineBox(line)) : lineBox(line);
}

/** The box of lines on one page. */
function linesBox(lines: readonly Line[]): Box {
  return lines.map(lineBox).reduce(union);
}

/** A line with the page it sits on. */
interface PlacedLine {
  page: number;
  line: Line;
  /** First line of a new column: text may run on into it from the bottom of the previous one. */
  columnBreak?: boolean;
}

/** One item of a page in reading order. */
export type FlowItem = { line: Line; columnBreak?: boolean } | { table: Table };

/** Consecutive lines of one style, close together: a heading that wraps stays one heading. */
function styleGroup(lines: readonly PlacedLine[], start: number): Line[] {
  const group = [lines[start]!.line];
  for (let i = start + 1; i < lines.length && sameStyleRun(lines[i - 1]!, lines[i]!); i++) group.push(lines[i]!.line);
  return group;
}

/** The next line goes on in the previous one's style at about its line spacing, in the same column. */
function sameStyleRun(previous: PlacedLine, next: PlacedLine): boolean {
  const step = next.line.baseline - previous.line.baseline;
  return (
    next.page === previous.page &&
    !next.columnBreak &&
    styleKey(next.line) === styleKey(previous.line) &&
    step > 0 &&
    step <= 1.6 * next.line.size
  );
}

/**
 * A group of lines that starts at lines[start] (where its style starts) is a heading: larger than the body, or bold
 * at body size and set off by space above it. Bold at body size alone is how a definition list sets its terms, an
 * option list its option names and a listing its code; a heading of body size has only its own line and the space
 * around it to show what it is, so a bold line at the body's line spacing below the text before it (a term, or a
 * code line, under the previous one) is not a heading.
 */
function isHeading(lines: readonly PlacedLine[], start: number, group: readonly Line[], style: LineMetrics): boolean {
  const first = group[0]!;
  const text = group.map((l) => l.text).join(' ');
  if (parseListMarker(first.text) || !/\p{L}/u.test(text) || endsWithPageNumber(first)) return false;
  // A heading starts where its style does: the tail of a longer run of one style (a paragraph, a code block) is not.
  if (start > 0 && sameStyleRun(lines[start - 1]!, lines[start]!)) return false;
  if (hasSiblingTerm(lines, start, group.length)) return false;
  if (first.size >= style.bodySize + HEADING_SIZE_STEP)
    return group.length <= MAX_HEADING_LINES && wordCount(text) <= MAX_HEADING_WORDS;
  const bodySized = Math.abs(first.size - style.bodySize) < HEADING_SIZE_STEP;
  return (
    bodySized &&
    first.bold &&
    group.length <= MAX_BOLD_HEADING_LINES &&
    wordCount(text) <= MAX_BOLD_HEADING_WORDS &&
    !/[.,;]$/.test(text) &&
    spacedAbove(lines, start, style) &&
    !indentedDisplay(lines, start, group.length)
  );
}

/**
 * The line just before or just after the group is a line of its own in the group's style at its x, with no text
 * between them: a column of terms (option names, commands) whose descriptions sit beside or below them. A heading
 * introduces text; two of one level back to back introduce nothing. (The last line of a paragraph in the same style
 * is no such line: it runs on from the lines above it.)
 */
function hasSiblingTerm(lines: readonly PlacedLine[], start: number, count: number): boolean {
  const placed = lines[start]!;
  const sibling = (index: number, runsOn: boolean) => {
    const other = lines[index];
    return (
      other !== undefined &&
      other.page === placed.page &&
      !lines[Math.max(index, start)]!.columnBreak &&
      !runsOn &&
      styleKey(other.line) === styleKey(placed.line) &&
      Math.abs(other.line.x0 - placed.line.x0) <= INDENT_TOLERANCE
    );
  };
  const before = start - 1;
  const after = start + count;
  return (
    sibling(before, before > 0 && sameStyleRun(lines[before - 1]!, lines[before]!)) ||
    sibling(after, after + 1 < lines.length && sameStyleRun(lines[after]!, lines[after + 1]!))
  );
}

/**
 * The line starts right of the text both before and after it and is not centred between them: an indented display
 * (a line of code, a command) inside the body, not a title over it.
 */
function indentedDisplay(lines: readonly PlacedLine[], start: number, count: number): boolean {
  const placed = lines[start]!;
  const before = lines[start - 1];
  const after = lines[start + count];
  if (!before || !after || before.page !== placed.page || after.page !== placed.page) return false;
  if (placed.columnBreak || after.columnBreak) return false;
  const { x0, x1, size } = placed.line;
  if (x0 <= Math.max(before.line.x0, after.line.x0) + INDENT_TOLERANCE) return false;
  const left = Math.min(before.line.x0, after.line.x0);
  const right = Math.max(before.line.x1, after.line.x1);
  return Math.abs((x0 + x1) / 2 - (left + right) / 2) > 2 * size;
}

/**
 * The line opens its page or column, or sits more than a paragraph break below the line before it (a line of text
 * further up the page read after it, as in a two-column float, counts as space too).
 */
function spacedAbove(lines: readonly PlacedLine[], index: number, style: LineMetrics): boolean {
  const placed = lines[index]!;
  const previous = lines[index - 1];
  if (!previous || previous.page !== placed.page || placed.columnBreak) return true;
  const gap = placed.line.baseline - previous.line.baseline;
  return gap <= 0 || gap > PARAGRAPH_BREAK * lineStep(style, placed.line) + 0.5;
}

/**
 * A numbered title set apart from the body by weight, capitals or size ("1 INTRODUCTION",
 * "IV. RESULTS", "2.1 **Scope**"), short and not a sentence: a heading at the depth its number
 * shows, never a list item, and never renumbered.
 */
function numberedHeadingLevel(group: readonly Line[], bodySize: number): number | undefined {
  if (group.length !== 1) return undefined;
  const line = group[0]!;
  const match = SECTION_TITLE.exec(line.text);
  if (!match || endsWithPageNumber(line)) return undefined;
  const [, number, title] = match as unknown as [string, string, string];
  if (wordCount(title) > MAX_NUMBERED_HEADING_WORDS || /[.,;:]$/.test(title) || !/^\p{Lu}/u.test(title))
    return undefined;
  const letters = title.replace(/[^\p{L}]/gu, '');
  const capitals = letters.length >= 3 && letters === letters.toUpperCase();
  const titleRuns = line.runs.filter((r) => r.x0 >= line.x0 + 0.5 && r.text.trim() !== number);
  const bold = line.bold || (titleRuns.length > 0 && titleRuns.every((r) => r.bold));
  if (!(bold || capitals || line.size >= bodySize + HEADING_SIZE_STEP)) return undefined;
  const depth =
    /^[IVXLC]+\.$/.test(number) || /^[A-Z]\.?$/.test(number) ? 1 : number.replace(/\.$/, '').split('.').length;
  return Math.min(depth + 1, 6);
}

/** Body size, heading levels and line spacing, measured over the whole document. */
export function analyseStyle(pages: readonly (readonly Line[])[]): DocumentStyle {
  const charsBySize = new Map<number, number>();
  for (const line of pages.flat())
    charsBySize.set(roundSize(line.size), (charsBySize.get(roundSize(line.size)) ?? 0) + line.text.length);
  const bodySize = [...charsBySize].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0] ?? 10;

  const metrics = { bodySize, lineSteps: measureLineSteps(pages) };
  const headingKeys = new Map<string, { size: number; bold: boolean }>();
  for (const lines of pages) {
    const placed = lines.map((line) => ({ page: 0, line }));
    for (let i = 0; i < placed.length; ) {
      const group = styleGroup(placed, i);
      if (isHeading(placed, i, group, metrics))
        headingKeys.set(styleKey(group[0]!), { size: roundSize(group[0]!.size), bold: group[0]!.bold });
      i += group.length;
    }
  }
  const ranked = [...headingKeys].sort(([, a], [, b]) => b.size - a.size || Number(b.bold) - Number(a.bold));
  const headingLevels = new Map(ranked.map(([key], index) => [key, Math.min(index + 1, 6)]));
  return { ...metrics, headingLevels };
}

function measureLineSteps(pages: readonly (readonly Line[])[]): Map<number, number> {
  const counts = new Map<number, Map<number, number>>();
  for (const lines of pages) {
    lines.forEach((line, i) => {
      const next = lines[i + 1];
      if (!next || roundSize(next.size) !== roundSize(line.size)) return;
      const step = roundSize(next.baseline - line.baseline);
      if (step < 0.9 * line.size || step > 2.5 * line.size) return;
      const bySize = counts.get(roundSize(line.size)) ?? new Map<number, number>();
      bySize.set(step, (bySize.get(step) ?? 0) + 1);
      counts.set(roundSize(line.size), bySize);
    });
  }
  const steps = new Map<number, number>();
  for (const [size, bySize] of counts) steps.set(size, [...bySize].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]![0]);
  return steps;
}

function lineStep(style: LineMetrics, line: Line): number {
  return style.lineSteps.get(roundSize(line.size)) ?? 1.2 * line.size;
}

export interface PageFlow {
  page: number;
  items: readonly FlowItem[];
}

/**
 * Blocks of the whole document in reading order. Paragraphs and lists may continue across a page
 * break; their parts remember their page so the Markdown can still mark where each page starts.
 * A table that ends a page and one that starts the next with the same header or column grid are
 * one table (a repeated header row is dropped).
 */
export function documentBlocks(pages: readonly PageFlow[], style: DocumentStyle): Block[] {
  const blocks: Block[] = [];
  let textLines: PlacedLine[] = [];
  const flush = () => {
    blocks.push(...textBlocks(textLines, style));
    textLines = [];
  };
  let lastTable: { block: Block & { kind: 'table' }; table: Table; page: number } | undefined;
  for (const { page, items } of pages) {
    // Lines opening the page may be the rows, or a row's rest, of the table that ended the page before.
    const continued = lastTable?.page === page - 1 ? continuedRows(lastTable.table, leadingLines(items)) : undefined;
    if (continued && lastTable) {
      const rows = lastTable.block.rows;
      rows[rows.length - 1] = joinRow(rows[rows.length - 1]!, continued.lastRow);
      rows.push(...continued.rows);
      if (continued.used === items.length) lastTable = { ...lastTable, page };
    }
    const start = continued?.used ?? 0;
    items.forEach((item, index) => {
      if (index < start) return;
      if (!('table' in item)) {
        textLines.push({ page, line: item.line, columnBreak: item.columnBreak });
        lastTable = undefined;
        return;
      }
      flush();
      const continued =
        lastTable && index === start && lastTable.page === page - 1
          ? continuesTable(lastTable.table, item.table)
          : undefined;
      if (continued && lastTable) {
        const rows = lastTable.block.rows;
        if (continued.lastRow) rows[rows.length - 1] = joinRow(rows[rows.length - 1]!, continued.lastRow);
        rows.push(...continued.rows);
        lastTable = index === items.length - 1 ? { ...lastTable, table: item.table, page } : undefined;
        return;
      }
      const { table } = item;
      const block: Block & { kind: 'table' } = {
        kind: 'table',
        page,
        box: { x0: table.left, y0: table.top, x1: table.right, y1: table.bottom },
        rows: table.rows.map((row) => [...row]),
      };
      blocks.push(block);
      lastTable = index === items.length - 1 ? { block, table: item.table, page } : undefined;
    });
    if (lastTable && lastTable.page !== page) lastTable = undefined;
  }
  flush();
  return blocks;
}

/** A row the page break cut, its cells with the rest of each after them. */
const joinRow = (row: readonly string[], rest: readonly string[]) =>
  row.map((cell, c) => joinText(cell, rest[c] ?? ''));

/** The lines a page opens with, before its first table or column break. */
function leadingLines(items: readonly FlowItem[]): Line[] {
  const lines: Line[] = [];
  for (const [i, item] of items.entries()) {
    if (!('line' in item) || (i > 0 && item.columnBreak)) break;
    lines.push(item.line);
  }
  return lines;
}

/** One nesting level of an open list, x measured from the column's left edge. */
interface ListLevel {
  markerX: number;
  /** Where its items' text starts: their further lines go on at this x. */
  textX: number;
  /** textX was placed inside a run holding marker and text (by its share of characters). */
  estimated?: boolean;
  /** The marker of its last item, as printed. */
  marker?: string;
  kind: MarkerKind;
  number?: number;
}

interface OpenList {
  block: Block & { kind: 'list' };
  levels: ListLevel[];
  last: PlacedLine;
}

interface OpenParagraph {
  block: Block & { kind: 'paragraph' };
  last: PlacedLine;
}

/** Headings, lists and paragraphs from a run of text lines with no table between them. */
function textBlocks(lines: readonly PlacedLine[], style: DocumentStyle): Block[] {
  const blocks: Block[] = [];
  let list: OpenList | undefined;
  let paragraph: OpenParagraph | undefined;
  const lefts = columnLefts(lines);

  for (let i = 0; i < lines.length; ) {
    const index = i;
    const placed = lines[i]!;
    const { page, line } = placed;
    const named = style.outline?.get(line);
    if (named) {
      list = paragraph = undefined;
      const titleLines = lines.slice(i, i + named.lines).map((l) => l.line);
      if (named.runIn !== undefined) {
        // A run-in title shares its line with the paragraph: the line's box is split at the title's share of it.
        const box = lineBox(line);
        const split = box.x0 + ((box.x1 - box.x0) * named.runIn) / Math.max(1, line.text.length);
        blocks.push({
          kind: 'heading',
          page,
          box: { ...box, x1: split },
          level: named.level,
          text: unspaceLetters(line.text.slice(0, named.runIn).replace(/[.:]$/, '')),
        });
        paragraph = {
          block: {
            kind: 'paragraph',
            page,
            box: { ...box, x0: split },
            parts: [{ page, text: line.text.slice(named.runIn).replace(/^\s*[.:—–]?\s*/, '') }],
          },
          last: placed,
        };
        blocks.push(paragraph.block);
      } else
        blocks.push({
          kind: 'heading',
          page,
          box: linesBox(lines.slice(i, i + named.lines).flatMap((l) => (l.page === page ? [l.line] : []))),
          level: named.level,
          text: unspaceLetters(titleLines.reduce((text, l) => joinText(text, l.text), '')),
        });
      i += titleLines.length;
      continue;
    }
    const group = styleGroup(lines, i);
    const numbered = style.outline ? undefined : numberedHeadingLevel([line], style.bodySize);
    if (numbered !== undefined && !continuesOpenText(list, paragraph, placed)) {
      list = paragraph = undefined;
      blocks.push({ kind: 'heading', page, box: lineBox(line), level: numbered, text: line.text });
      i++;
      continue;
    }
    const level = style.outline ? undefined : style.headingLevels.get(styleKey(line));
    if (level !== undefined && isHeading(lines, index, group, style)) {
      list = paragraph = undefined;
      const text = group.reduce((joined, l) => joinText(joined, l.text), '');
      blocks.push({ kind: 'heading', page, box: linesBox(group), level, text });
      i += group.length;
      continue;
    }
    i++;
    const lone = loneMarker(lines, index, style);
    const found = lone ?? parseListMarker(line.text);
    const marker = found?.needsSibling && !hasSibling(list, lines, index, lefts, found.marker) ? undefined : found;
    if (lone && marker) i++;
    const textLine = lone ? lines[index + 1]!.line : line;
    if (marker) {
      paragraph = undefined;
      if (!list) {
        list = { block: { kind: 'list', page, items: [] }, levels: [], last: placed };
        blocks.push(list.block);
      }
      const { levels } = list;
      // Items of one level share their text indent (markers may differ in width: "9." and "10.").
      const start = lone ? { x: textLine.x0, estimated: false } : itemTextX(line, marker.marker);
      const textX = start.x - lefts[index]!;
      const markerX = line.x0 - lefts[index]!;
      // A level is deeper when both its marker and its text sit further right; items of one level
      // share their text indent ("9." and "10." right-aligned) or their marker's x (a new list after one).
      const deeper = (a: { markerX: number; textX: number }, b: { markerX: number; textX: number }) =>
        a.markerX > b.markerX + INDENT_TOLERANCE && a.textX > b.textX + INDENT_TOLERANCE;
      while (levels.length && deeper(levels[levels.length - 1]!, { markerX, textX })) levels.pop();
      let previous: ListLevel | undefined = levels[levels.length - 1];
      if (!previous || deeper({ markerX, textX }, previous)) {
        previous = undefined;
        levels.push({ markerX, textX, kind: 'bullet' });
      }
      const read = markerNumber(marker, previous);
      levels[levels.length - 1] = { markerX, textX, estimated: start.estimated, marker: marker.marker, ...read };
      const itemLines = lone ? [line, textLine] : [line];
      list.block.items.push({
        page,
        box: linesBox(itemLines),
        ordered: marker.kind !== 'bullet',
        number: read.number,
        level: levels.length - 1,
        parts: [{ page, text: marker.text }],
      });
      for (const itemLine of itemLines) extend(list.block, page, itemLine);
      list.last = lone ? lines[index + 1]! : placed;
      continue;
    }
    if (list && continuesListItem(list, lines, index, lefts, style)) {
      learnTextIndent(list, line.x0 - lefts[index]!);
      const item = list.block.items[list.block.items.length - 1]!;
      appendText(item.parts, page, line.text);
      extend(item, page, line);
      extend(list.block, page, line);
      list.last = placed;
      continue;
    }
    list = undefined;
    if (paragraph && continuesParagraph(paragraph, placed, style)) {
      appendText(paragraph.block.parts, page, line.text);
      extend(paragraph.block, page, line);
      paragraph.last = placed;
      continue;
    }
    paragraph = {
      block: { kind: 'paragraph', page, box: lineBox(line), parts: [{ page, text: line.text }] },
      last: placed,
    };
    blocks.push(paragraph.block);
  }
  return blocks;
}

/** How many lines ahead a sibling item with the same marker is looked for. */
const SIBLING_REACH = 12;

/** The open list's last item or an item a few lines on, at the same x, has the same marker. */
function hasSibling(
  list: OpenList | undefined,
  lines: readonly PlacedLine[],
  index: number,
  lefts: readonly number[],
  marker: string,
): boolean {
  const x = lines[index]!.line.x0 - lefts[index]!;
  const same = (level: ListLevel | undefined) =>
    level?.marker === marker && Math.abs(level.markerX - x) <= INDENT_TOLERANCE;
  if (list?.levels.some(same)) return true;
  for (let j = index + 1; j < Math.min(lines.length, index + SIBLING_REACH); j++) {
    const other = lines[j]!;
    const candidate =
      parseListMarker(other.line.text) ?? parseListMarker(`${other.line.text} ${lines[j + 1]?.line.text ?? ''}`);
    if (candidate?.marker === marker && Math.abs(other.line.x0 - lefts[j]! - x) <= INDENT_TOLERANCE) return true;
  }
  return false;
}

/**
 * A marker set alone on its line, its text starting on the next line at the indent (groff's .IP
 * with a tag wider than the indent): the two lines are one item's marker line.
 */
function loneMarker(lines: readonly PlacedLine[], index: number, style: DocumentStyle): ListMarker | undefined {
  const { line } = lines[index]!;
  const next = lines[index + 1];
  if (!next || next.columnBreak || next.page !== lines[index]!.page || next.line.x0 < line.x1 - 1) return undefined;
  const marker = parseListMarker(`${line.text} ${next.line.text}`);
  if (!marker || marker.marker !== line.text.trim()) return undefined;
  return followsClosely(lines[index]!, next, LIST_CONTINUATION, style) ? marker : undefined;
}

/** Letter-spaced display type ("F U N D A M E N T A L S") read as the word it spells. */
function unspaceLetters(text: string): string {
  return text.replace(/(?<![\p{L}\p{N}])\p{L}(?: \p{L}){3,}(?![\p{L}\p{N}])/gu, (letters) =>
    letters.replaceAll(' ', ''),
  );
}

/** The line reads on from the open paragraph's last words (they stop mid-sentence on the line just above). */
function continuesOpenText(
  list: OpenList | undefined,
  paragraph: OpenParagraph | undefined,
  next: PlacedLine,
): boolean {
  const open = paragraph ?? list;
  if (!open || open.last.page !== next.page || next.columnBreak) return false;
  const parts = paragraph ? paragraph.block.parts : list!.block.items[list!.block.items.length - 1]!.parts;
  const gap = next.line.baseline - open.last.line.baseline;
  return (
    !SENTENCE_END.test(parts[parts.length - 1]!.text) &&
    gap > 0 &&
    gap <= 1.3 * next.line.size &&
    Math.abs(next.line.size - open.last.line.size) < 0.5 &&
    !next.line.bold
  );
}

/** A line joined to text that may run over pages: each page's share stays a part of its own. */
function appendText(parts: TextPart[], page: number, text: string): void {
  const last = parts[parts.length - 1]!;
  if (last.page === page) last.text = joinText(last.text, text);
  else parts.push({ page, text });
}

/** Within a column, judged by spacing; across a page or column break, by style alone. */
function followsClosely(previous: PlacedLine, next: PlacedLine, maxSteps: number, style: DocumentStyle): boolean {
  if (Math.abs(next.line.size - previous.line.size) >= 1) return false;
  if (next.page !== previous.page || next.columnBreak) return true;
  const gap = next.line.baseline - previous.line.baseline;
  return gap > 0 && gap <= maxSteps * lineStep(style, next.line) + 0.5;
}

/**
 * A line goes on with the open item when it starts at the item's text indent (between its marker
 * and its text, allowing for where the text of a shared run was placed), in this column or at the
 * top of the next: the hanging indent is the item's, whatever the break. A line that opens a
 * paragraph at that indent and whose next line goes back to the margin is a body paragraph with a
 * first-line indent, not the item's second paragraph.
 */
function continuesListItem(
  list: OpenList,
  lines: readonly PlacedLine[],
  index: number,
  lefts: readonly number[],
  style: DocumentStyle,
): boolean {
  const next = lines[index]!;
  const level = list.levels[list.levels.length - 1]!;
  const x = next.line.x0 - lefts[index]!;
  // A text start estimated inside a shared run may fall short of the real one (a kern after the marker).
  const reach = level.estimated ? 1.5 * next.line.size : Math.max(INDENT_TOLERANCE, 0.5 * next.line.size);
  const atTextIndent = x > level.markerX + INDENT_TOLERANCE && x <= level.textX + reach;
  const broken = next.columnBreak || next.page !== list.last.page;
  if (broken) {
    const parts = list.block.items[list.block.items.length - 1]!.parts;
    // Without the indent, only a lower-case run-on continues the item.
    const runsOn = !SENTENCE_END.test(parts[parts.length - 1]!.text) && /\p{Ll}/u.test(next.line.text[0] ?? '');
    if (!(atTextIndent || runsOn) || !followsClosely(list.last, next, LIST_CONTINUATION, style)) return false;
    return runsOn || !opensIndentedParagraph(lines, index, lefts, level.textX, style);
  }
  // The item's second paragraph sits at its text indent after a paragraph gap.
  if (!atTextIndent || !followsClosely(list.last, next, ITEM_PARAGRAPH_GAP, style)) return false;
  return !opensIndentedParagraph(lines, index, lefts, level.textX, style);
}

/** Once an item's wrapped line shows where its text starts, the level keeps that x instead of an estimate. */
function learnTextIndent(list: OpenList, x: number): void {
  const level = list.levels[list.levels.length - 1]!;
  if (level.estimated) Object.assign(level, { textX: x, estimated: false });
}

/** The line's paragraph goes on at the column's margin, left of the item's text: a first-line indent. */
function opensIndentedParagraph(
  lines: readonly PlacedLine[],
  index: number,
  lefts: readonly number[],
  textX: number,
  style: DocumentStyle,
): boolean {
  const after = lines[index + 1];
  if (!after || after.columnBreak || after.page !== lines[index]!.page) return false;
  // The line runs on into the next (no sentence ends there), which starts back at the margin.
  return (
    !SENTENCE_END.test(lines[index]!.line.text) &&
    after.line.x0 - lefts[index + 1]! < textX - INDENT_TOLERANCE &&
    !parseListMarker(after.line.text) &&
    followsClosely(lines[index]!, after, PARAGRAPH_BREAK, style)
  );
}

/**
 * A title with a page number set apart at its end (or leader dots): an entry of a table of contents, which may be set
 * in its heading's style but is not the heading.
 */
function endsWithPageNumber(line: Line): boolean {
  const last = line.segments[line.segments.length - 1]!.text.trim();
  return isContentsLine(line) || (line.segments.length >= 2 && /^(?:\d{1,4}|[ivxlc]{1,7})$/.test(last));
}

/** A line of a table of contents: leader dots, or a title and a page number apart. Each stays a line of its own. */
function isContentsLine(line: Line): boolean {
  const last = line.segments[line.segments.length - 1]!.text;
  return (
    (LEADERS.test(line.text) && /\d\s*$/.test(line.text)) ||
    (line.segments.length === 2 && /^\d{1,4}$/.test(last) && /^\d+(?:\.\d+)*\.?\s+\p{L}/u.test(line.segments[0]!.text))
  );
}

function continuesParagraph(paragraph: OpenParagraph, next: PlacedLine, style: DocumentStyle): boolean {
  const text = paragraph.block.parts[paragraph.block.parts.length - 1]!.text;
  if (FOOTNOTE.test(next.line.text) || isContentsLine(next.line) || isContentsLine(paragraph.last.line)) return false;
  // A paragraph only runs on to the next page or column mid-sentence.
  if ((next.page !== paragraph.last.page || next.columnBreak) && SENTENCE_END.test(text)) return false;
  return followsClosely(paragraph.last, next, PARAGRAPH_BREAK, style);
}
