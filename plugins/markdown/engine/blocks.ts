/**
 * Turns a page's lines (in reading order) and tables into blocks: headings by font-size rank or
 * weight, normalised list items, and paragraphs joined across line breaks.
 */
import { joinText, roundSize } from './lines.js';
import type { Table } from './tables.js';
import type { Block, Line, ListItem } from './types.js';

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
/** Markers closer than this (points) in x are at the same nesting level. */
const INDENT_TOLERANCE = 3;

const BULLET = /^[•·–—\-▪■□◦‣○●*►➢✓\uf0b7\uf0a7\uf076\uf0d8\uf0fc]\s+(\S.*)$/u;
const NUMBERED = /^(?:\((?:\d{1,3}|[a-z]|[ivx]{1,5})\)|(?:\d{1,3}|[a-z]|[ivx]{1,5})[.)])\s+(\S.*)$/i;

export interface DocumentStyle {
  bodySize: number;
  /** Heading style key -> level (1 = largest). */
  headingLevels: Map<string, number>;
  /** Rounded font size -> usual distance between baselines of consecutive lines. */
  lineSteps: Map<number, number>;
}

function styleKey(line: Line): string {
  return `${roundSize(line.size)}|${line.bold ? 'bold' : 'regular'}`;
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

function parseListMarker(text: string): { ordered: boolean; text: string } | undefined {
  const bullet = BULLET.exec(text);
  if (bullet) return { ordered: false, text: bullet[1]! };
  const numbered = NUMBERED.exec(text);
  return numbered ? { ordered: true, text: numbered[1]! } : undefined;
}

/** Consecutive lines of one style, close together: a heading that wraps stays one heading. */
function styleGroup(lines: readonly Line[], start: number): Line[] {
  const group = [lines[start]!];
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!;
    const previous = group[group.length - 1]!;
    if (styleKey(line) !== styleKey(previous) || line.baseline - previous.baseline > 1.6 * line.size) break;
    group.push(line);
  }
  return group;
}

function isHeading(group: readonly Line[], bodySize: number): boolean {
  const first = group[0]!;
  const text = group.map((l) => l.text).join(' ');
  if (parseListMarker(first.text) || !/\p{L}/u.test(text)) return false;
  if (first.size >= bodySize + HEADING_SIZE_STEP) return group.length <= MAX_HEADING_LINES && wordCount(text) <= MAX_HEADING_WORDS;
  const bodySized = Math.abs(first.size - bodySize) < HEADING_SIZE_STEP;
  return bodySized && first.bold && group.length <= MAX_BOLD_HEADING_LINES && wordCount(text) <= MAX_BOLD_HEADING_WORDS && !/[.,;]$/.test(text);
}

/** Body size, heading levels and line spacing, measured over the whole document. */
export function analyseStyle(pages: readonly (readonly Line[])[]): DocumentStyle {
  const charsBySize = new Map<number, number>();
  for (const line of pages.flat()) charsBySize.set(roundSize(line.size), (charsBySize.get(roundSize(line.size)) ?? 0) + line.text.length);
  const bodySize = [...charsBySize].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0] ?? 10;

  const headingKeys = new Map<string, { size: number; bold: boolean }>();
  for (const lines of pages) {
    for (let i = 0; i < lines.length; ) {
      const group = styleGroup(lines, i);
      if (isHeading(group, bodySize)) headingKeys.set(styleKey(group[0]!), { size: roundSize(group[0]!.size), bold: group[0]!.bold });
      i += group.length;
    }
  }
  const ranked = [...headingKeys].sort(([, a], [, b]) => b.size - a.size || Number(b.bold) - Number(a.bold));
  const headingLevels = new Map(ranked.map(([key], index) => [key, Math.min(index + 1, 6)]));
  return { bodySize, headingLevels, lineSteps: measureLineSteps(pages) };
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

function lineStep(style: DocumentStyle, line: Line): number {
  return style.lineSteps.get(roundSize(line.size)) ?? 1.2 * line.size;
}

type FlowItem = { top: number; line: Line } | { top: number; table: Table };

/** Blocks of one page, in reading order. */
export function pageBlocks(lines: readonly Line[], tables: readonly Table[], style: DocumentStyle): Block[] {
  const flow: FlowItem[] = [...lines.map((line) => ({ top: line.baseline - line.size, line })), ...tables.map((table) => ({ top: table.top, table }))];
  flow.sort((a, b) => a.top - b.top);
  const blocks: Block[] = [];
  let textLines: Line[] = [];
  const flush = () => {
    blocks.push(...textBlocks(textLines, style));
    textLines = [];
  };
  for (const item of flow) {
    if ('table' in item) {
      flush();
      blocks.push({ kind: 'table', rows: item.table.rows, top: item.top });
    } else textLines.push(item.line);
  }
  flush();
  return blocks;
}

/** Headings, lists and paragraphs from a run of text lines with no table between them. */
function textBlocks(lines: readonly Line[], style: DocumentStyle): Block[] {
  const blocks: Block[] = [];
  let list: { items: ListItem[]; markerXs: number[]; last: Line } | undefined;
  let paragraph: { block: Block & { kind: 'paragraph' }; last: Line } | undefined;
  const top = (line: Line) => line.baseline - line.size;

  for (let i = 0; i < lines.length; ) {
    const line = lines[i]!;
    const group = styleGroup(lines, i);
    const level = style.headingLevels.get(styleKey(line));
    if (level !== undefined && isHeading(group, style.bodySize)) {
      list = paragraph = undefined;
      blocks.push({ kind: 'heading', level, text: group.reduce((text, l) => joinText(text, l.text), ''), top: top(line) });
      i += group.length;
      continue;
    }
    i++;
    const marker = parseListMarker(line.text);
    if (marker) {
      paragraph = undefined;
      if (!list) {
        list = { items: [], markerXs: [], last: line };
        blocks.push({ kind: 'list', items: list.items, top: top(line) });
      }
      while (list.markerXs.length && list.markerXs[list.markerXs.length - 1]! > line.x0 + INDENT_TOLERANCE) list.markerXs.pop();
      if (!list.markerXs.length || line.x0 > list.markerXs[list.markerXs.length - 1]! + INDENT_TOLERANCE) list.markerXs.push(line.x0);
      list.items.push({ ordered: marker.ordered, level: list.markerXs.length - 1, text: marker.text });
      list.last = line;
      continue;
    }
    if (list && continuesListItem(list.last, list.markerXs, line, style)) {
      const item = list.items[list.items.length - 1]!;
      item.text = joinText(item.text, line.text);
      list.last = line;
      continue;
    }
    list = undefined;
    if (paragraph && continuesParagraph(paragraph.last, line, style)) {
      paragraph.block.text = joinText(paragraph.block.text, line.text);
      paragraph.last = line;
      continue;
    }
    paragraph = { block: { kind: 'paragraph', text: line.text, top: top(line) }, last: line };
    blocks.push(paragraph.block);
  }
  return blocks;
}

function continuesListItem(previous: Line, markerXs: readonly number[], line: Line, style: DocumentStyle): boolean {
  const markerX = markerXs[markerXs.length - 1]!;
  const gap = line.baseline - previous.baseline;
  return line.x0 > markerX + INDENT_TOLERANCE && gap > 0 && gap <= LIST_CONTINUATION * lineStep(style, line) && Math.abs(line.size - previous.size) < 1;
}

function continuesParagraph(previous: Line, line: Line, style: DocumentStyle): boolean {
  const gap = line.baseline - previous.baseline;
  return gap > 0 && gap <= PARAGRAPH_BREAK * lineStep(style, line) + 0.5 && Math.abs(line.size - previous.size) < 1;
}
