/**
 * Lays out the layouts corpus by hand: one or two columns (balanced, with wide blocks splitting
 * the page into bands), tables that continue across pages (header repeated or not), merged
 * cells in ruled grids, numbered lists that start anywhere, superscript footnote marks with the
 * notes at the page bottom, and running lines in mixed sizes. Output is PostScript (the ops of
 * ../corpus/postscript.ts), so the generator knows exactly what lands on each page.
 */
import type { FontName } from '../corpus/afm.js';
import { isOrderedMarker, type Block, type CellSpan, type ListItem } from '../corpus/model.js';
import {
  LINE_HEIGHT,
  MARGIN,
  PAPER,
  textWidth,
  writePostScript,
  type DrawOp,
  type TextStyle,
} from '../corpus/postscript.js';

export interface FlowLayout {
  paper: 'a4' | 'letter';
  body: TextStyle;
  boldFont: FontName;
  headings: readonly [TextStyle, TextStyle, TextStyle];
  columns: 1 | 2;
  gutter: number;
  /** `{page}` and `{pages}` are substituted; in the footer they are drawn bold and larger. */
  header?: string;
  footer?: string;
  seed: number;
}

export interface FlowResult {
  postscript: string;
  pages: number;
  pageStarts: string[];
  runningLines: string[];
}

const PAGE_START_WORDS = 4;
const RUNNING_OFFSET = 40;
const MARK = /\[\^(\d+)\]/g;
const SUPERSCRIPT = 0.62;
const RAISE = 0.36;

/** A vertical slice that is placed whole: one line of text, one table row, one small table. */
interface Unit {
  height: number;
  /** Space above it, dropped at the top of a column or page. */
  before: number;
  words: string;
  draw(x: number, top: number): DrawOp[];
  /** Stays in the same column as the unit after it (headings). */
  keep?: boolean;
  /** Drawn first whenever this unit opens a page (a repeated table header). */
  repeat?: Unit;
  /**
   * A row of a table begun earlier: a page it opens starts where the table ends (Markdown cannot mark a page inside a
   * table).
   */
  continuation?: boolean;
}

interface Page {
  ops: DrawOp[];
  startWords: string[];
  footnoteTop: number;
}

function plain(text: string): string {
  return text.replace(MARK, '');
}

/** Width of text whose footnote marks are drawn as small raised digits. */
function markedWidth(text: string, style: TextStyle): number {
  let width = 0;
  let last = 0;
  for (const match of text.matchAll(MARK)) {
    width +=
      textWidth(text.slice(last, match.index), style) +
      textWidth(match[1]!, { ...style, size: style.size * SUPERSCRIPT });
    last = match.index! + match[0].length;
  }
  return width + textWidth(text.slice(last), style);
}

/** Text ops for one line; a mark becomes a smaller run raised above the baseline, glued to its word. */
function markedText(text: string, style: TextStyle, x: number, baseline: number): DrawOp[] {
  const ops: DrawOp[] = [];
  let left = x;
  let last = 0;
  const push = (piece: string, pieceStyle: TextStyle, y: number) => {
    if (piece.trim()) ops.push({ kind: 'text', style: pieceStyle, x: left, y, text: piece });
    left += textWidth(piece, pieceStyle);
  };
  for (const match of text.matchAll(MARK)) {
    push(text.slice(last, match.index), style, baseline);
    push(match[1]!, { ...style, size: style.size * SUPERSCRIPT }, baseline + style.size * RAISE);
    last = match.index! + match[0].length;
  }
  push(text.slice(last), style, baseline);
  return ops;
}

function wrapText(text: string, width: number, measure: (t: string) => number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const candidate = line ? `${line} ${word}` : word;
    if (line && measure(candidate) > width) {
      lines.push(line);
      line = word;
    } else line = candidate;
  }
  if (line) lines.push(line);
  return lines;
}

class FlowComposer {
  readonly pages: Page[] = [];
  private cursor = MARGIN;
  private readonly paper: { width: number; height: number };
  private readonly contentWidth: number;
  private readonly columnWidth: number;

  constructor(private readonly layout: FlowLayout) {
    this.paper = PAPER[layout.paper];
    this.contentWidth = this.paper.width - 2 * MARGIN;
    this.columnWidth = layout.columns === 2 ? (this.contentWidth - layout.gutter) / 2 : this.contentWidth;
    this.newPage();
  }

  private get page(): Page {
    return this.pages[this.pages.length - 1]!;
  }

  private get bottom(): number {
    return this.page.footnoteTop;
  }

  private newPage(): void {
    this.pages.push({ ops: [], startWords: [], footnoteTop: this.paper.height - MARGIN });
    this.cursor = MARGIN;
  }

  private baseline(top: number, size: number): number {
    return this.paper.height - top - size;
  }

  private place(unit: Unit, x: number, top: number): void {
    const words = this.page.startWords;
    if (words.length < PAGE_START_WORDS && !unit.continuation)
      words.push(
        ...plain(unit.words)
          .split(/\s+/)
          .filter(Boolean)
          .slice(0, PAGE_START_WORDS - words.length),
      );
    this.page.ops.push(...unit.draw(x, top));
  }

  /** Height of units stacked in one column (the first one's space above dropped). */
  private stack(units: readonly Unit[]): number {
    return units.reduce((h, unit, i) => h + unit.height + (i === 0 ? 0 : unit.before), 0);
  }

  /** Units one after another across the full width, breaking pages as needed. */
  private placeSingle(units: readonly Unit[]): void {
    units.forEach((unit, i) => {
      const next = unit.keep ? units[i + 1] : undefined;
      const need = unit.before + unit.height + (next ? next.before + next.height : 0);
      let top = this.cursor === MARGIN ? this.cursor : this.cursor + unit.before;
      if (top - unit.before + need > this.bottom && this.cursor > MARGIN) {
        this.newPage();
        top = this.cursor;
        if (unit.repeat) {
          this.place(unit.repeat, MARGIN, top);
          top += unit.repeat.height;
        }
      }
      this.place(unit, MARGIN, top);
      this.cursor = top + unit.height;
    });
  }

  /** How many units fit in one column of height `room`, not ending on a unit kept with the next. */
  private fill(units: readonly Unit[], room: number): number {
    let count = 0;
    while (count < units.length && this.stack(units.slice(0, count + 1)) <= room) count++;
    while (count > 1 && count < units.length && units[count - 1]!.keep) count--;
    return count;
  }

  /** Units in two columns: balanced when they fit on the page, else column 1 then 2 to the bottom. */
  private placeColumns(all: readonly Unit[]): void {
    let units = [...all];
    const right = MARGIN + this.columnWidth + this.layout.gutter;
    while (units.length) {
      const start = this.cursor === MARGIN ? this.cursor : this.cursor + units[0]!.before;
      const room = this.bottom - start;
      let split: number | undefined;
      let best = Infinity;
      for (let k = 1; k <= units.length; k++) {
        if (units[k - 1]!.keep && k < units.length) continue;
        const [left, rest] = [this.stack(units.slice(0, k)), this.stack(units.slice(k))];
        if (left <= room && rest <= room && Math.max(left, rest) < best - 0.01 && left >= rest) {
          best = Math.max(left, rest);
          split = k;
        }
      }
      const k1 = split ?? this.fill(units, room);
      const k2 = split !== undefined ? units.length : k1 + this.fill(units.slice(k1), room);
      let height = 0;
      for (const [from, to, x] of [
        [0, k1, MARGIN],
        [k1, k2, right],
      ] as const) {
        let top = start;
        units.slice(from, to).forEach((unit, i) => {
          if (i > 0) top += unit.before;
          this.place(unit, x, top);
          top += unit.height;
        });
        height = Math.max(height, top - start);
      }
      units = units.slice(k2);
      if (units.length) this.newPage();
      else this.cursor = start + height;
    }
  }

  private width(wide: boolean | undefined): number {
    return wide ? this.contentWidth : this.columnWidth;
  }

  headingUnits(level: 1 | 2 | 3, text: string, width: number): Unit[] {
    const style = this.layout.headings[level - 1]!;
    const lines = wrapText(text, width, (t) => textWidth(t, style));
    return lines.map((line, i) => ({
      height: style.size * LINE_HEIGHT + (i === lines.length - 1 ? style.size * 0.3 : 0),
      before: i === 0 ? style.size * 0.9 : 0,
      words: line,
      keep: true,
      draw: (x, top) => [{ kind: 'text', style, x, y: this.baseline(top, style.size), text: line }],
    }));
  }

  paragraphUnits(text: string, width: number, style = this.layout.body): Unit[] {
    return wrapText(text, width, (t) => markedWidth(t, style)).map((line, i) => ({
      height: style.size * LINE_HEIGHT,
      before: i === 0 ? style.size * 0.7 : 0,
      words: line,
      draw: (x, top) => markedText(line, style, x, this.baseline(top, style.size)),
    }));
  }

  listUnits(block: Block & { kind: 'list' }, width: number): Unit[] {
    const style = this.layout.body;
    const counters: number[] = [];
    return block.items.flatMap((item, index) => {
      counters.length = item.level + 1;
      counters[item.level] = (counters[item.level] ?? (item.level === 0 ? (block.start ?? 1) - 1 : 0)) + 1;
      const marker = listMarker(block.marker, item, counters[item.level]!);
      const markerX = 12 + item.level * 24;
      const textX = markerX + Math.max(16, textWidth(marker, style) + 6);
      return wrapText(item.text, width - textX, (t) => textWidth(t, style)).map(
        (line, i): Unit => ({
          height: style.size * LINE_HEIGHT,
          before: i > 0 ? 0 : index === 0 ? style.size * 0.7 : style.size * 0.2,
          words: i === 0 ? item.text : line,
          draw: (x, top) => {
            const y = this.baseline(top, style.size);
            const ops: DrawOp[] = [{ kind: 'text', style, x: x + textX, y, text: line }];
            if (i === 0) ops.unshift({ kind: 'text', style, x: x + markerX, y, text: marker });
            return ops;
          },
        }),
      );
    });
  }

  tableUnits(block: Block & { kind: 'table' }, width: number): Unit[] {
    const body = this.layout.body;
    const bold: TextStyle = { font: this.layout.boldFont, size: body.size };
    const headerRows = block.headerRows ?? 1;
    const padX = block.rules === 'none' ? 9 : 6;
    const padY = 4;
    const lineHeight = body.size * LINE_HEIGHT;
    const spans = block.spans ?? [];
    const spanAt = (r: number, c: number): CellSpan =>
      spans.find((s) => s.row === r && s.col === c) ?? { row: r, col: c, rows: 1, cols: 1 };
    const covered = (r: number, c: number) =>
      spans.some(
        (s) => r >= s.row && r < s.row + s.rows && c >= s.col && c < s.col + s.cols && (r !== s.row || c !== s.col),
      );
    const styleOf = (r: number) => (r < headerRows ? bold : body);
    const columns = block.rows[0]!.length;
    const natural = Array.from(
      { length: columns },
      (_, c) =>
        Math.max(
          ...block.rows.map((row, r) =>
            covered(r, c) || spanAt(r, c).cols > 1 ? 0 : textWidth(row[c] ?? '', styleOf(r)),
          ),
        ) +
        2 * padX,
    );
    const sum = natural.reduce((a, b) => a + b, 0);
    const widths = sum <= width ? natural : natural.map((w) => (w / sum) * width);
    const lefts = widths.map((_, c) => widths.slice(0, c).reduce((a, b) => a + b, 0));
    const spanWidth = (s: CellSpan) => widths.slice(s.col, s.col + s.cols).reduce((a, b) => a + b, 0);
    const wrapped = block.rows.map((row, r) =>
      row.map((cell, c) =>
        covered(r, c) ? [] : wrapText(cell, spanWidth(spanAt(r, c)) - 2 * padX, (t) => textWidth(t, styleOf(r))),
      ),
    );
    const rowHeights = wrapped.map(
      (cells, r) =>
        Math.max(1, ...cells.map((lines, c) => (spanAt(r, c).rows > 1 ? 1 : lines.length))) * lineHeight + 2 * padY,
    );
    const rowTops = rowHeights.map((_, r) => rowHeights.slice(0, r).reduce((a, b) => a + b, 0));
    const total = rowHeights.reduce((a, b) => a + b, 0);
    const tableWidth = widths.reduce((a, b) => a + b, 0);

    /** Ops of rows [from, to) drawn with their top at `top`. */
    const drawRows = (from: number, to: number, x: number, top: number): DrawOp[] => {
      const ops: DrawOp[] = [];
      const yOf = (fromTop: number) => this.paper.height - (top + fromTop - rowTops[from]!);
      for (let r = from; r < to; r++) {
        block.rows[r]!.forEach((_, c) => {
          if (covered(r, c)) return;
          const span = spanAt(r, c);
          const lines = wrapped[r]![c]!;
          const spanHeight = rowHeights.slice(r, r + span.rows).reduce((a, b) => a + b, 0);
          const offsetY = span.rows > 1 ? (spanHeight - lines.length * lineHeight) / 2 - padY : 0;
          lines.forEach((line, i) => {
            const offsetX = span.cols > 1 ? (spanWidth(span) - 2 * padX - textWidth(line, styleOf(r))) / 2 : 0;
            const baseline = yOf(rowTops[r]! + padY + offsetY + i * lineHeight + body.size);
            ops.push({ kind: 'text', style: styleOf(r), x: x + lefts[c]! + padX + offsetX, y: baseline, text: line });
          });
          if (block.rules === 'grid') {
            const [x0, x1] = [x + lefts[c]!, x + lefts[c]! + spanWidth(span)];
            const [y0, y1] = [yOf(rowTops[r]!), yOf(rowTops[r]! + spanHeight)];
            ops.push(
              { kind: 'rule', x1: x0, y1: y0, x2: x1, y2: y0 },
              { kind: 'rule', x1: x0, y1: y1, x2: x1, y2: y1 },
            );
            ops.push(
              { kind: 'rule', x1: x0, y1: y0, x2: x0, y2: y1 },
              { kind: 'rule', x1: x1, y1: y0, x2: x1, y2: y1 },
            );
          }
        });
      }
      if (block.rules === 'horizontal') {
        const ys = from === 0 ? [rowTops[0]!, rowTops[headerRows]!] : [];
        if (to === block.rows.length) ys.push(total);
        for (const y of ys) ops.push({ kind: 'rule', x1: x, y1: yOf(y), x2: x + tableWidth, y2: yOf(y) });
      }
      return ops;
    };
    const after = body.size * 1.2;
    const words = (from: number, to: number) => block.rows.slice(from, to).flat().join(' ');
    if (spans.length || !block.rows.slice(headerRows).length) {
      return [
        {
          height: total + after,
          before: body.size * 0.7,
          words: words(0, block.rows.length),
          draw: (x, top) => drawRows(0, block.rows.length, x, top),
        },
      ];
    }
    const header: Unit = {
      height: rowTops[headerRows]!,
      before: body.size * 0.7,
      words: words(0, headerRows),
      keep: true,
      draw: (x, top) => drawRows(0, headerRows, x, top),
    };
    const rows = block.rows.slice(headerRows).map((_, i): Unit => {
      const r = headerRows + i;
      const last = r === block.rows.length - 1;
      return {
        height: rowHeights[r]! + (last ? after : 0),
        before: 0,
        words: words(r, r + 1),
        keep: false,
        repeat: block.repeatHeader ? { ...header, before: 0, continuation: true } : undefined,
        continuation: true,
        draw: (x, top) => drawRows(r, r + 1, x, top),
      };
    });
    return [header, ...rows];
  }

  /** Footnotes at the bottom of the current page, in order, under a short rule. */
  footnotes(notes: readonly { mark: number; text: string }[]): void {
    const style: TextStyle = { font: this.layout.body.font, size: this.layout.body.size - 2 };
    const step = style.size * LINE_HEIGHT;
    const wrapped = notes.map((note) =>
      wrapText(`[^${note.mark}] ${note.text}`, this.contentWidth, (t) => markedWidth(t, style)),
    );
    const height = wrapped.reduce((h, lines) => h + lines.length * step + 2, 0);
    let top = this.paper.height - MARGIN - height;
    const page = this.page;
    page.ops.push({
      kind: 'rule',
      x1: MARGIN,
      y1: this.paper.height - top + 4,
      x2: MARGIN + 72,
      y2: this.paper.height - top + 4,
    });
    for (const lines of wrapped) {
      for (const line of lines) {
        page.ops.push(...markedText(line, style, MARGIN, this.baseline(top, style.size)));
        top += step;
      }
      top += 2;
    }
    page.footnoteTop = this.paper.height - MARGIN - height - style.size;
  }

  compose(blocks: readonly Block[]): void {
    let band: Unit[] = [];
    let notes: { mark: number; text: string }[] = [];
    const flush = () => {
      if (notes.length) this.footnotes(notes);
      notes = [];
      if (this.layout.columns === 2) this.placeColumns(band);
      else this.placeSingle(band);
      band = [];
    };
    for (const block of blocks) {
      if (block.kind === 'break') {
        flush();
        this.newPage();
        continue;
      }
      if (block.kind === 'footnote') {
        notes.push(block);
        continue;
      }
      const wide = 'wide' in block && block.wide === true;
      if (wide) flush();
      const width = this.width(wide || this.layout.columns === 1);
      const units =
        block.kind === 'heading'
          ? this.headingUnits(block.level, block.text, width)
          : block.kind === 'paragraph'
            ? this.paragraphUnits(block.text, width)
            : block.kind === 'list'
              ? this.listUnits(block, width)
              : this.tableUnits(block, width);
      if (wide) this.placeSingle(units);
      else band.push(...units);
    }
    flush();
  }

  addRunningLines(): void {
    const { header, footer } = this.layout;
    const style = { font: this.layout.body.font, size: this.layout.body.size - 1 };
    const big: TextStyle = { font: this.layout.boldFont, size: this.layout.body.size + 1 };
    this.pages.forEach((page, index) => {
      const fill = (template: string) =>
        template.replaceAll('{page}', String(index + 1)).replaceAll('{pages}', String(this.pages.length));
      if (footer) {
        // Numbers bold and larger than the words around them, as many templates draw them.
        const pieces = fill(footer.replace(/\{(pages?)\}/g, '\u0000{$1}\u0000')).split('\u0000');
        const styles = pieces.map((_, i) => (i % 2 ? big : style));
        const widthOf = pieces.reduce((w, piece, i) => w + textWidth(piece, styles[i]!), 0);
        let x = (this.paper.width - widthOf) / 2;
        pieces.forEach((piece, i) => {
          if (piece.trim())
            page.ops.unshift({ kind: 'text', style: styles[i]!, x, y: RUNNING_OFFSET, text: piece.trim() });
          x += textWidth(piece, styles[i]!);
        });
      }
      if (header)
        page.ops.unshift({ kind: 'text', style, x: MARGIN, y: this.paper.height - RUNNING_OFFSET, text: fill(header) });
    });
  }
}

function listMarker(marker: string, item: ListItem, n: number): string {
  if (!isOrderedMarker(marker as never)) return item.level === 0 ? marker : '–';
  if (item.level > 0) return `${String.fromCharCode(96 + n)}.`;
  return { '1.': `${n}.`, '1)': `${n})`, '(1)': `(${n})`, 'a.': `${String.fromCharCode(96 + n)}.` }[marker]!;
}

export function renderFlow(blocks: readonly Block[], layout: FlowLayout): FlowResult {
  const composer = new FlowComposer(layout);
  composer.compose(blocks);
  composer.addRunningLines();
  const postscript = writePostScript(
    composer.pages.map((page) => page.ops),
    { paper: layout.paper, drawOrder: 'natural', seed: layout.seed, ruleDrawing: 'stroke' },
  );
  return {
    postscript,
    pages: composer.pages.length,
    pageStarts: composer.pages.map((p) => p.startWords.join(' ')),
    runningLines: [layout.header, layout.footer].flatMap((t) => (t ? [t.replace(/\{pages?\}/g, '#')] : [])),
  };
}
