/**
 * Lays a corpus document out by hand and writes it as PostScript, for exact control over what
 * the engine has to cope with: drawing order, one show per word, fonts, sizes, rules, running lines.
 * Layout runs here (widths from AFM metrics), so the generator also knows what lands on each page.
 */
import { glyphWidths, standardEncoding, type FontName } from './afm.js';
import { isOrderedMarker, type Block, type ListItem, type NumberStyle } from './model.js';

export interface TextStyle {
  font: FontName;
  size: number;
}

export interface PostScriptLayout {
  paper: 'a4' | 'letter';
  body: TextStyle;
  /** Font of table header cells. */
  boldFont: FontName;
  headings: readonly [TextStyle, TextStyle, TextStyle];
  /** Templates drawn in the margins; `{page}` and `{pages}` are substituted. */
  header?: string;
  footer?: string;
  /** 'shuffled' draws each page's text and rules in a seeded random order. */
  drawOrder: 'natural' | 'shuffled';
  showPerWord: boolean;
  /** Break long words at line ends with a hyphen (the truth keeps them whole). */
  hyphenate: boolean;
  /** Table rules as stroked lines or as thin filled rectangles (both occur in real PDFs). */
  ruleDrawing: 'stroke' | 'fill';
  seed: number;
}

export interface PostScriptResult {
  postscript: string;
  pages: number;
  /** The first words of each page's content, in reading order. */
  pageStarts: string[];
  /** Each distinct running line with its digits replaced by '#'. */
  runningLines: string[];
}

export const PAPER = { a4: { width: 595, height: 842 }, letter: { width: 612, height: 792 } };
export const MARGIN = 72;
const RUNNING_OFFSET = 40;
export const LINE_HEIGHT = 1.3;
const PAGE_START_WORDS = 4;

/** Unicode character -> [encoding code, glyph name] beyond printable ASCII. */
const EXTRA_GLYPHS: Record<string, [number, string]> = {
  '•': [128, 'bullet'],
  '–': [129, 'endash'],
  '—': [130, 'emdash'],
  '·': [131, 'periodcentered'],
  '▪': [132, 'H18543'],
  '’': [133, 'quoteright'],
  '“': [134, 'quotedblleft'],
  '”': [135, 'quotedblright'],
  é: [136, 'eacute'],
};

/** Glyph names of printable ASCII (the AFMs use StandardEncoding, which differs at 39 and 96). */
const ASCII_GLYPHS: readonly string[] = (() => {
  const names = [...standardEncoding('Helvetica')];
  names[39] = 'quotesingle';
  names[96] = 'grave';
  return names;
})();

function glyphOf(char: string): [number, string] {
  const extra = EXTRA_GLYPHS[char];
  if (extra) return extra;
  const code = char.charCodeAt(0);
  const name = ASCII_GLYPHS[code];
  if (!name || name === '.notdef') throw new Error(`corpus text uses an unencoded character: ${JSON.stringify(char)}`);
  return [code, name];
}

export function textWidth(text: string, style: TextStyle): number {
  const widths = glyphWidths(style.font);
  let total = 0;
  for (const char of text) total += widths.get(glyphOf(char)[1]) ?? 500;
  return (total * style.size) / 1000;
}

function psString(text: string): string {
  let out = '(';
  for (const char of text) {
    const [code] = glyphOf(char);
    if (char === '(' || char === ')' || char === '\\') out += `\\${char}`;
    else if (code >= 128) out += `\\${code.toString(8)}`;
    else out += char;
  }
  return out + ')';
}

export type DrawOp =
  | { kind: 'text'; style: TextStyle; x: number; y: number; text: string }
  | { kind: 'rule'; x1: number; y1: number; x2: number; y2: number };

interface Page {
  ops: DrawOp[];
  startWords: string[];
}

/** Small seeded PRNG (mulberry32) so shuffled documents are reproducible. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Composer {
  readonly pages: Page[] = [];
  private cursor = 0; // distance from the top of the page to the next line's top
  private readonly paper: { width: number; height: number };
  private readonly contentWidth: number;

  constructor(private readonly layout: PostScriptLayout) {
    this.paper = PAPER[layout.paper];
    this.contentWidth = this.paper.width - 2 * MARGIN;
    this.newPage();
  }

  private get page(): Page {
    return this.pages[this.pages.length - 1]!;
  }

  private newPage(): void {
    this.pages.push({ ops: [], startWords: [] });
    this.cursor = MARGIN;
  }

  private ensureRoom(height: number): void {
    if (this.cursor + height > this.paper.height - MARGIN && this.cursor > MARGIN) this.newPage();
  }

  private noteWords(text: string): void {
    const words = this.page.startWords;
    if (words.length < PAGE_START_WORDS)
      words.push(
        ...text
          .split(/\s+/)
          .filter(Boolean)
          .slice(0, PAGE_START_WORDS - words.length),
      );
  }

  /** Draws one line of words with its top at the cursor, then advances the cursor. */
  private drawLine(words: readonly string[], style: TextStyle, x: number): void {
    this.ensureRoom(style.size * LINE_HEIGHT);
    const baseline = this.paper.height - this.cursor - style.size;
    this.placeWords(words, style, x, baseline);
    this.cursor += style.size * LINE_HEIGHT;
  }

  private placeWords(words: readonly string[], style: TextStyle, x: number, baseline: number): void {
    if (!this.layout.showPerWord) {
      this.page.ops.push({ kind: 'text', style, x, y: baseline, text: words.join(' ') });
      return;
    }
    const space = textWidth(' ', style);
    let left = x;
    for (const word of words) {
      this.page.ops.push({ kind: 'text', style, x: left, y: baseline, text: word });
      left += textWidth(word, style) + space;
    }
  }

  /** Splits text into lines no wider than `width`, hyphenating long words when the layout asks. */
  wrap(text: string, style: TextStyle, width: number): string[][] {
    const lines: string[][] = [];
    let line: string[] = [];
    const fits = (words: readonly string[]) => textWidth(words.join(' '), style) <= width;
    for (const word of text.split(/\s+/).filter(Boolean)) {
      if (fits([...line, word])) {
        line.push(word);
        continue;
      }
      const split = this.layout.hyphenate ? this.hyphenation(line, word, style, width) : undefined;
      if (split) {
        lines.push([...line, `${split[0]}-`]);
        line = [split[1]];
      } else {
        if (line.length) lines.push(line);
        line = [word];
      }
    }
    if (line.length) lines.push(line);
    return lines;
  }

  private hyphenation(
    line: readonly string[],
    word: string,
    style: TextStyle,
    width: number,
  ): [string, string] | undefined {
    if (!/^[a-z]{8,}$/.test(word)) return undefined;
    for (let cut = word.length - 4; cut >= 4; cut--) {
      if (textWidth([...line, `${word.slice(0, cut)}-`].join(' '), style) <= width)
        return [word.slice(0, cut), word.slice(cut)];
    }
    return undefined;
  }

  heading(level: 1 | 2 | 3, text: string): void {
    const style = this.layout.headings[level - 1]!;
    const lines = this.wrap(text, style, this.contentWidth);
    this.ensureRoom(style.size * (0.9 + LINE_HEIGHT * lines.length) + this.layout.body.size * LINE_HEIGHT * 2);
    if (this.cursor > MARGIN) this.cursor += style.size * 0.9;
    this.noteWords(text);
    for (const line of lines) this.drawLine(line, style, MARGIN);
    this.cursor += style.size * 0.3;
  }

  paragraph(text: string): void {
    const style = this.layout.body;
    let previous: string[] = [];
    for (const line of this.wrap(text, style, this.contentWidth)) {
      this.ensureRoom(style.size * LINE_HEIGHT);
      // The tail of a word hyphenated on the previous page belongs to that page's text.
      this.noteWords((previous[previous.length - 1]?.endsWith('-') ? line.slice(1) : line).join(' '));
      this.drawLine(line, style, MARGIN);
      previous = line;
    }
    this.cursor += style.size * 0.7;
  }

  list(marker: Block & { kind: 'list' }): void {
    const style = this.layout.body;
    const counters: number[] = [];
    for (const item of marker.items) {
      counters.length = item.level + 1;
      counters[item.level] = (counters[item.level] ?? 0) + 1;
      this.listItem(item, listMarker(marker.marker, counters[item.level]!), style);
    }
    this.cursor += style.size * 0.7;
  }

  private listItem(item: ListItem, marker: string, style: TextStyle): void {
    const markerX = MARGIN + 12 + item.level * 24;
    const textX = markerX + Math.max(16, textWidth(marker, style) + 6);
    const lines = this.wrap(item.text, style, MARGIN + this.contentWidth - textX);
    lines.forEach((line, index) => {
      this.ensureRoom(style.size * LINE_HEIGHT);
      // A page that opens with the rest of an item starts with those words.
      this.noteWords(index === 0 ? item.text : line.join(' '));
      if (index === 0) {
        const baseline = this.paper.height - this.cursor - style.size;
        this.placeWords([marker], style, markerX, baseline);
      }
      this.drawLine(line, style, textX);
    });
    this.cursor += style.size * 0.2;
  }

  table(rows: readonly (readonly string[])[], rules: 'grid' | 'horizontal' | 'none'): void {
    const body = this.layout.body;
    const header: TextStyle = { font: this.layout.boldFont, size: body.size };
    const padX = rules === 'none' ? 9 : 6;
    const padY = 4;
    const widths = this.columnWidths(rows, header, padX);
    const lineHeight = body.size * LINE_HEIGHT;
    const wrapped = rows.map((row, r) =>
      row.map((cell, c) => this.wrap(cell, r === 0 ? header : body, widths[c]! - 2 * padX)),
    );
    const rowHeights = wrapped.map((cells) => Math.max(...cells.map((lines) => lines.length)) * lineHeight + 2 * padY);
    const total = rowHeights.reduce((a, b) => a + b, 0);
    this.ensureRoom(total);
    const top = this.cursor;
    const lefts = widths.map((_, c) => MARGIN + widths.slice(0, c).reduce((a, b) => a + b, 0));
    const right = MARGIN + widths.reduce((a, b) => a + b, 0);
    let rowTop = top;
    wrapped.forEach((cells, r) => {
      this.noteWords(rows[r]!.join(' '));
      cells.forEach((lines, c) => {
        lines.forEach((line, i) => {
          const baseline = this.paper.height - (rowTop + padY + i * lineHeight + body.size);
          this.placeWords(line, r === 0 ? header : body, lefts[c]! + padX, baseline);
        });
      });
      rowTop += rowHeights[r]!;
    });
    const yOf = (fromTop: number) => this.paper.height - fromTop;
    const boundaries = rowHeights.reduce<number[]>((acc, h) => [...acc, acc[acc.length - 1]! + h], [top]);
    const horizontal =
      rules === 'grid'
        ? boundaries
        : rules === 'horizontal'
          ? [boundaries[0]!, boundaries[1]!, boundaries[boundaries.length - 1]!]
          : [];
    for (const y of horizontal) this.page.ops.push({ kind: 'rule', x1: MARGIN, y1: yOf(y), x2: right, y2: yOf(y) });
    if (rules === 'grid') {
      for (const x of [...lefts, right])
        this.page.ops.push({ kind: 'rule', x1: x, y1: yOf(top), x2: x, y2: yOf(top + total) });
    }
    this.cursor = top + total + body.size * 1.2;
  }

  private columnWidths(rows: readonly (readonly string[])[], header: TextStyle, padX: number): number[] {
    const columns = rows[0]!.length;
    const natural = Array.from(
      { length: columns },
      (_, c) =>
        Math.max(...rows.map((row, r) => textWidth(row[c] ?? '', r === 0 ? header : this.layout.body))) + 2 * padX,
    );
    const sum = natural.reduce((a, b) => a + b, 0);
    if (sum <= this.contentWidth) return natural;
    // Too wide: give every column an equal share, then hand the spare width of narrow ones to wide ones.
    const share = this.contentWidth / columns;
    const narrow = natural.filter((w) => w <= share);
    const spare = this.contentWidth - narrow.reduce((a, b) => a + b, 0);
    const wideTotal = natural.filter((w) => w > share).reduce((a, b) => a + b, 0);
    return natural.map((w) => (w <= share ? w : (w / wideTotal) * spare));
  }

  runningText(template: string | undefined, page: number, pages: number): string | undefined {
    return template?.replaceAll('{page}', String(page)).replaceAll('{pages}', String(pages));
  }

  addRunningLines(): void {
    const { header, footer } = this.layout;
    this.pages.forEach((page, index) => {
      const style = { font: this.layout.body.font, size: this.layout.body.size - 1 };
      const headerText = this.runningText(header, index + 1, this.pages.length);
      const footerText = this.runningText(footer, index + 1, this.pages.length);
      // Running lines go first in the content stream, as many producers draw them.
      if (footerText) {
        const x = (this.paper.width - textWidth(footerText, style)) / 2;
        page.ops.unshift({ kind: 'text', style, x, y: RUNNING_OFFSET, text: footerText });
      }
      if (headerText)
        page.ops.unshift({ kind: 'text', style, x: MARGIN, y: this.paper.height - RUNNING_OFFSET, text: headerText });
    });
  }
}

function listMarker(style: string, n: number): string {
  if (!isOrderedMarker(style as NumberStyle)) return style;
  const letter = String.fromCharCode(96 + n);
  return { '1.': `${n}.`, '1)': `${n})`, '(1)': `(${n})`, 'a.': `${letter}.` }[style as NumberStyle];
}

export function renderPostScript(blocks: readonly Block[], layout: PostScriptLayout): PostScriptResult {
  const composer = new Composer(layout);
  for (const block of blocks) {
    if (block.kind === 'heading') composer.heading(block.level, block.text);
    else if (block.kind === 'paragraph') composer.paragraph(block.text);
    else if (block.kind === 'list') composer.list(block);
    else if (block.kind === 'table') composer.table(block.rows, block.rules);
  }
  composer.addRunningLines();
  const postscript = writePostScript(
    composer.pages.map((page) => page.ops),
    layout,
  );
  const runningLines = [layout.header, layout.footer].flatMap((t) => (t ? [t.replace(/\{pages?\}/g, '#')] : []));
  return {
    postscript,
    pages: composer.pages.length,
    pageStarts: composer.pages.map((p) => p.startWords.join(' ')),
    runningLines,
  };
}

/** The PostScript program drawing `pages` (each a list of ops), in natural or seeded shuffled order. */
export function writePostScript(
  pages: readonly (readonly DrawOp[])[],
  layout: Pick<PostScriptLayout, 'paper' | 'drawOrder' | 'seed' | 'ruleDrawing'>,
): string {
  const random = seededRandom(layout.seed);
  const paper = PAPER[layout.paper];
  const fonts = [
    ...new Set(pages.flatMap((ops) => ops.flatMap((op) => (op.kind === 'text' ? [op.style.font] : [])))),
  ].sort();
  const out: string[] = [
    '%!PS-Adobe-3.0',
    `%%BoundingBox: 0 0 ${paper.width} ${paper.height}`,
    `%%Pages: ${pages.length}`,
    '%%EndComments',
    `<< /PageSize [${paper.width} ${paper.height}] >> setpagedevice`,
    '/CorpusEncoding 256 array def 0 1 255 { CorpusEncoding exch /.notdef put } for',
    ...ASCII_GLYPHS.flatMap((name, code) =>
      name && name !== '.notdef' ? [`CorpusEncoding ${code} /${name} put`] : [],
    ),
    ...Object.values(EXTRA_GLYPHS).map(([code, name]) => `CorpusEncoding ${code} /${name} put`),
    '/reencode { findfont dup length dict begin { 1 index /FID ne { def } { pop pop } ifelse } forall /Encoding ' +
      'CorpusEncoding def currentdict end definefont pop } def',
    ...fonts.map((font) => `/${font}-C /${font} reencode`),
    '/SF { exch findfont exch scalefont setfont } def',
  ];
  pages.forEach((pageOps, index) => {
    const ops = [...pageOps];
    if (layout.drawOrder === 'shuffled') {
      for (let i = ops.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [ops[i], ops[j]] = [ops[j]!, ops[i]!];
      }
    }
    out.push(`%%Page: ${index + 1} ${index + 1}`);
    for (const op of ops) out.push(drawCommand(op, layout.ruleDrawing));
    out.push('showpage');
  });
  out.push('%%EOF');
  return out.join('\n') + '\n';
}

function drawCommand(op: DrawOp, ruleDrawing: 'stroke' | 'fill'): string {
  const n = (v: number) => v.toFixed(2);
  if (op.kind === 'text')
    return `/${op.style.font}-C ${op.style.size} SF ${n(op.x)} ${n(op.y)} moveto ${psString(op.text)} show`;
  if (ruleDrawing === 'stroke')
    return `0.6 setlinewidth ${n(op.x1)} ${n(op.y1)} moveto ${n(op.x2)} ${n(op.y2)} lineto stroke`;
  const horizontal = op.y1 === op.y2;
  const [x, y] = [Math.min(op.x1, op.x2) - (horizontal ? 0 : 0.3), Math.min(op.y1, op.y2) - (horizontal ? 0.3 : 0)];
  const [w, h] = horizontal ? [Math.abs(op.x2 - op.x1), 0.6] : [0.6, Math.abs(op.y2 - op.y1)];
  return `${n(x)} ${n(y)} ${n(w)} ${n(h)} rectfill`;
}
