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

export type Block =
  | { kind: 'heading'; level: 1 | 2 | 3; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'list'; marker: BulletGlyph | NumberStyle; items: ListItem[] }
  | { kind: 'table'; rows: string[][]; rules: 'grid' | 'horizontal' | 'none' };

export interface CorpusDocument {
  name: string;
  blocks: Block[];
}

export function isOrderedMarker(marker: BulletGlyph | NumberStyle): marker is NumberStyle {
  return /[1a]/.test(marker);
}

/** The truth Markdown, in the normalised form the engine is asked to produce. */
export function toMarkdown(blocks: readonly Block[]): string {
  return blocks.map(blockToMarkdown).join('\n\n') + '\n';
}

function blockToMarkdown(block: Block): string {
  switch (block.kind) {
    case 'heading':
      return `${'#'.repeat(block.level)} ${block.text}`;
    case 'paragraph':
      return block.text;
    case 'list':
      return listToMarkdown(block.items, isOrderedMarker(block.marker));
    case 'table':
      return tableToMarkdown(block.rows);
  }
}

function listToMarkdown(items: readonly ListItem[], ordered: boolean): string {
  const counters: number[] = [];
  return items
    .map((item) => {
      counters.length = item.level + 1;
      counters[item.level] = (counters[item.level] ?? 0) + 1;
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
