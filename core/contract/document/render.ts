/**
 * Renderings of the document model: GitHub Markdown, HTML and plain text. Every document input
 * reaches md, html and txt through these, so the three agree with the JSON model and each other.
 * Page headers and footers (furniture) are left out of all three, as pdf-to-markdown strips them.
 */
import type { Block, Document, List, Table, TableCell } from '../../../schema/index.js';

export interface MarkdownRendering {
  /** `<!-- page N -->` before the first node of each page, where the source has pages. Default true. */
  pageMarkers?: boolean;
}

/** A table as a full grid: each spanned place holds the cell covering it (HTML's table model). */
export function tableGrid(table: Pick<Table, 'rows'>): { cell: TableCell; origin: boolean }[][] {
  const grid: { cell: TableCell; origin: boolean }[][] = [];
  table.rows.forEach((row, r) => {
    grid[r] ??= [];
    let c = 0;
    for (const cell of row) {
      while (grid[r]![c]) c++;
      const rows = cell.rowSpan ?? 1;
      const cols = cell.colSpan ?? 1;
      for (let dr = 0; dr < rows && r + dr < table.rows.length; dr++) {
        grid[r + dr] ??= [];
        for (let dc = 0; dc < cols; dc++) grid[r + dr]![c + dc] = { cell, origin: dr === 0 && dc === 0 };
      }
      c += cols;
    }
  });
  const width = Math.max(0, ...grid.map((row) => row.length));
  const empty = { cell: { text: '' }, origin: true };
  return grid.map((row) => Array.from({ length: width }, (_, i) => row[i] ?? empty));
}

const mdCell = (text: string) =>
  text
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/\s*\n\s*/g, ' ');

function markdownTable(table: Table): string[] {
  const grid = tableGrid(table);
  if (!grid.length || !grid[0]!.length) return [];
  // A spanned place repeats nothing: its text stands once, where the cell starts.
  const rows = grid.map((row) => row.map((place) => (place.origin ? mdCell(place.cell.text) : '')));
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const out = [line(rows[0]!), line(rows[0]!.map(() => '---')), ...rows.slice(1).map(line)];
  if (table.caption) out.push('', `*${table.caption}*`);
  return out;
}

function markdownList(list: List, indent: string, options: MarkdownRendering, pages: PageTracker): string[] {
  const out: string[] = [];
  list.items.forEach((item, i) => {
    const marker = list.ordered ? `${(list.start ?? 1) + i}.` : '-';
    out.push(`${indent}${marker} ${item.text}`);
    const inner = `${indent}${' '.repeat(marker.length + 1)}`;
    for (const child of item.children ?? []) {
      const lines = markdownBlock(child, inner, options, pages);
      if (child.type !== 'list') out.push('');
      out.push(...lines);
    }
  });
  return out;
}

interface PageTracker {
  current: number;
}

function markdownBlock(block: Block, indent: string, options: MarkdownRendering, pages: PageTracker): string[] {
  const prefix = (lines: string[]) => lines.map((line) => (line ? indent + line : line));
  switch (block.type) {
    case 'heading':
      return [`${indent}${'#'.repeat(block.level)} ${block.text}`];
    case 'paragraph':
      return [`${indent}${block.text}`];
    case 'list':
      return markdownList(block, indent, options, pages);
    case 'table':
      return prefix(markdownTable(block));
    case 'figure':
      return prefix([
        block.alt ? `![${block.alt.replace(/[[\]]/g, '')}]()` : '<!-- image -->',
        ...(block.caption ? ['', `*${block.caption}*`] : []),
      ]);
    case 'code': {
      const fence = block.text.includes('```') ? '~~~~' : '```';
      return prefix([`${fence}${block.language ?? ''}`, ...block.text.split('\n'), fence]);
    }
    case 'formula':
      return prefix(['$$', block.text, '$$']);
    case 'footnote':
      return [`${indent}[^${block.label ?? block.id}]: ${block.text}`];
    case 'section': {
      const title = block.title ?? `${block.kind === 'slide' ? 'Slide' : 'Sheet'} ${block.number}`;
      const out = [`${indent}## ${title}`];
      for (const child of block.children) out.push('', ...markdownNode(child, indent, options, pages));
      if (block.notes?.length) {
        out.push('', `${indent}> **Notes**`);
        for (const note of block.notes)
          out.push(`${indent}>`, ...markdownBlock(note, '', options, pages).map((line) => `${indent}> ${line}`));
      }
      return out;
    }
  }
}

function markdownNode(block: Block, indent: string, options: MarkdownRendering, pages: PageTracker): string[] {
  const lines: string[] = [];
  if (options.pageMarkers !== false && block.page !== undefined && block.page > pages.current && !indent) {
    pages.current = block.page;
    lines.push(`<!-- page ${block.page} -->`, '');
  }
  return [...lines, ...markdownBlock(block, indent, options, pages)];
}

/** GitHub Markdown: `#` headings by level, pipe tables, nested lists, fenced code, `$$` formulas. */
export function renderMarkdown(document: Document, options: MarkdownRendering = {}): string {
  const pages: PageTracker = { current: 0 };
  const out: string[] = [];
  for (const block of document.body) {
    if (out.length) out.push('');
    out.push(...markdownNode(block, '', options, pages));
  }
  return `${out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function htmlBlock(block: Block): string {
  switch (block.type) {
    case 'heading':
      return `<h${block.level}>${escapeHtml(block.text)}</h${block.level}>`;
    case 'paragraph':
      return `<p>${escapeHtml(block.text)}</p>`;
    case 'list': {
      const tag = block.ordered ? 'ol' : 'ul';
      const start = block.ordered && block.start !== undefined && block.start !== 1 ? ` start="${block.start}"` : '';
      const items = block.items.map(
        (item) => `<li>${escapeHtml(item.text)}${(item.children ?? []).map(htmlBlock).join('')}</li>`,
      );
      return `<${tag}${start}>\n${items.join('\n')}\n</${tag}>`;
    }
    case 'table': {
      const rows = block.rows.map((row, r) => {
        const cells = row.map((cell) => {
          const tag = r < block.headerRows || cell.header ? 'th' : 'td';
          const spans =
            (cell.rowSpan && cell.rowSpan > 1 ? ` rowspan="${cell.rowSpan}"` : '') +
            (cell.colSpan && cell.colSpan > 1 ? ` colspan="${cell.colSpan}"` : '');
          return `<${tag}${spans}>${escapeHtml(cell.text)}</${tag}>`;
        });
        return `<tr>${cells.join('')}</tr>`;
      });
      const caption = block.caption ? `<caption>${escapeHtml(block.caption)}</caption>\n` : '';
      return `<table>\n${caption}${rows.join('\n')}\n</table>`;
    }
    case 'figure': {
      const image = block.image
        ? `<img src="data:${escapeHtml(block.image.mime)};base64,${block.image.data}"` +
          ` alt="${escapeHtml(block.alt ?? '')}">`
        : '';
      const caption = block.caption ? `<figcaption>${escapeHtml(block.caption)}</figcaption>` : '';
      return `<figure>${image}${caption}</figure>`;
    }
    case 'code':
      return `<pre><code>${escapeHtml(block.text)}</code></pre>`;
    case 'formula':
      return `<p class="formula">${escapeHtml(block.text)}</p>`;
    case 'footnote': {
      const label = block.label ? `<sup>${escapeHtml(block.label)}</sup> ` : '';
      return `<aside class="footnote">${label}${escapeHtml(block.text)}</aside>`;
    }
    case 'section': {
      const title = block.title ? `<h2>${escapeHtml(block.title)}</h2>\n` : '';
      const notes = block.notes?.length
        ? `\n<aside class="notes">${block.notes.map(htmlBlock).join('\n')}</aside>`
        : '';
      return `<section class="${block.kind}">\n${title}${block.children.map(htmlBlock).join('\n')}${notes}\n</section>`;
    }
  }
}

/** A standalone HTML5 page of the body. */
export function renderHtml(document: Document): string {
  const title = escapeHtml(document.title ?? document.source.filename ?? 'Document');
  return (
    `<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n<title>${title}</title>\n</head>\n<body>\n` +
    `${document.body.map(htmlBlock).join('\n')}\n</body>\n</html>\n`
  );
}

function textBlock(block: Block, indent: string): string[] {
  switch (block.type) {
    case 'heading':
    case 'paragraph':
    case 'formula':
      return [indent + block.text];
    case 'code':
      return block.text.split('\n').map((line) => indent + line);
    case 'footnote':
      return [`${indent}${block.label ? `[${block.label}] ` : ''}${block.text}`];
    case 'figure':
      return block.caption ? [indent + block.caption] : [];
    case 'list':
      return block.items.flatMap((item, i) => [
        `${indent}${block.ordered ? `${(block.start ?? 1) + i}.` : '-'} ${item.text}`,
        ...(item.children ?? []).flatMap((child) => textBlock(child, `${indent}  `)),
      ]);
    case 'table':
      return [
        ...tableGrid(block).map((row) => indent + row.map((place) => (place.origin ? place.cell.text : '')).join('\t')),
        ...(block.caption ? [indent + block.caption] : []),
      ];
    case 'section':
      return [
        ...(block.title ? [indent + block.title, ''] : []),
        ...block.children.flatMap((child) => [...textBlock(child, indent), '']),
        ...(block.notes ?? []).flatMap((note) => [...textBlock(note, indent), '']),
      ];
  }
}

/** Plain text: one paragraph per node, blank lines between, tables tab-separated. */
export function renderText(document: Document): string {
  return `${document.body
    .map((block) => textBlock(block, '').join('\n'))
    .filter(Boolean)
    .join('\n\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}
