/** Prints blocks as Markdown: ATX headings, `-` / `1.` lists, pipe tables with a header row. */
import type { Block, ListItem } from './types.js';

export function blockToMarkdown(block: Block): string {
  switch (block.kind) {
    case 'heading':
      return `${'#'.repeat(block.level)} ${block.text}`;
    case 'paragraph':
      return escapeParagraph(block.text);
    case 'list':
      return listToMarkdown(block.items);
    case 'table':
      return tableToMarkdown(block.rows);
  }
}

/** A paragraph that starts like Markdown syntax must not turn into a heading or list. */
function escapeParagraph(text: string): string {
  return text.replace(/^(\d{1,9})([.)]\s)/, '$1\\$2').replace(/^([-+*]\s|#{1,6}\s|>)/, '\\$1');
}

function listToMarkdown(items: readonly ListItem[]): string {
  const counters: number[] = [];
  const indents: string[] = [];
  return items
    .map((item) => {
      counters.length = item.level + 1;
      counters[item.level] = (counters[item.level] ?? 0) + 1;
      const marker = item.ordered ? `${counters[item.level]}.` : '-';
      indents.length = item.level + 1;
      // Nested items indent to the parent's text, which depends on the parent's marker width.
      indents[item.level + 1] = (indents[item.level] ?? '') + ' '.repeat(marker.length + 1);
      return `${indents[item.level] ?? ''}${marker} ${item.text}`;
    })
    .join('\n');
}

function tableToMarkdown(rows: readonly (readonly string[])[]): string {
  const width = Math.max(...rows.map((row) => row.length));
  const line = (cells: readonly string[]) =>
    `| ${Array.from({ length: width }, (_, i) => (cells[i] ?? '').replaceAll('|', '\\|')).join(' | ')} |`;
  const [header = [], ...body] = rows;
  return [line(header), line(Array.from({ length: width }, () => '---')), ...body.map(line)].join('\n');
}
