/**
 * The ground-truth document model: every corpus PDF is rendered from one of these, and its
 * truth Markdown is printed from the same model, so structure is known exactly.
 */

export type BulletGlyph = '•' | '·' | '–' | '-' | '▪';
export type NumberStyle = '1.' | '1)' | '(1)' | 'a.';

export interface ListItem {
  text: string;
  /** 0 = top level; 1 = nested once. */
  level: number;
}

/** A merged cell: its text sits in the top-left cell (row, col); the rest of the span is empty. */
export interface CellSpan {
  row: number;
  col: number;
  rows: number;
  cols: number;
}

/**
 * `wide` places a block across both columns of a two-column layout; `footnote` is drawn at the
 * bottom of the current page (its mark appears in the text as `[^n]`); `break` ends the page.
 */
export type Block =
  | { kind: 'heading'; level: 1 | 2 | 3; text: string; wide?: boolean }
  | { kind: 'paragraph'; text: string; wide?: boolean }
  | { kind: 'list'; marker: BulletGlyph | NumberStyle; items: ListItem[]; start?: number }
  | {
      kind: 'table';
      rows: string[][];
      rules: 'grid' | 'horizontal' | 'none';
      spans?: CellSpan[];
      /** Header rows (bold); repeated at the top of each page the table continues on when `repeatHeader`. */
      headerRows?: number;
      repeatHeader?: boolean;
      wide?: boolean;
    }
  | { kind: 'footnote'; mark: number; text: string }
  | { kind: 'break' };

export interface CorpusDocument {
  name: string;
  blocks: Block[];
}

export function isOrderedMarker(marker: BulletGlyph | NumberStyle): marker is NumberStyle {
  return /[1a]/.test(marker);
}

/** The truth Markdown, in the normalised form the engine is asked to produce. */
export function toMarkdown(blocks: readonly Block[]): string {
  return blocks.flatMap((block) => (block.kind === 'break' ? [] : [blockToMarkdown(block)])).join('\n\n') + '\n';
}

function blockToMarkdown(block: Exclude<Block, { kind: 'break' }>): string {
  switch (block.kind) {
    case 'heading':
      return `${'#'.repeat(block.level)} ${block.text}`;
    case 'paragraph':
      return block.text;
    case 'list':
      return listToMarkdown(block.items, isOrderedMarker(block.marker), block.start ?? 1);
    case 'table':
      return tableToMarkdown(block.rows);
    case 'footnote':
      return `[^${block.mark}]: ${block.text}`;
  }
}

function listToMarkdown(items: readonly ListItem[], ordered: boolean, start: number): string {
  const counters: number[] = [];
  return items
    .map((item) => {
      counters.length = item.level + 1;
      counters[item.level] = (counters[item.level] ?? (item.level === 0 ? start - 1 : 0)) + 1;
      const indent = (ordered ? '   ' : '  ').repeat(item.level);
      return `${indent}${ordered ? `${counters[item.level]}.` : '-'} ${item.text}`;
    })
    .join('\n');
}

export function tableToMarkdown(rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`;
  const [header = [], ...body] = rows;
  return [line(header), line(header.map(() => '---')), ...body.map(line)].join('\n');
}
