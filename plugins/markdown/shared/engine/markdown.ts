/**
 * Prints blocks as Markdown: ATX headings, `-` / `1.` lists, pipe tables with a header row, and
 * `<!-- page N -->` where each page starts (splitting a paragraph, list or list item that runs across it).
 */
import { joinText } from './lines.js';
import type { Block, ListItem, TextPart } from './types.js';

export function renderMarkdown(blocks: readonly Block[], pages: number, pageBreaks: boolean): string {
  const out: string[] = [];
  let page = 0;
  const reachPage = (target: number, indent = '') => {
    for (; page < target; page++) if (pageBreaks) out.push(`${indent}<!-- page ${page + 1} -->`);
  };
  const textParts = (parts: readonly TextPart[]) => (pageBreaks ? splitAtPages(parts) : [joinParts(parts)]);
  for (const block of blocks) {
    reachPage(block.page);
    if (block.kind === 'heading') out.push(`${'#'.repeat(block.level)} ${escapeTags(block.text)}`);
    else if (block.kind === 'table') out.push(tableToMarkdown(block.rows));
    else if (block.kind === 'paragraph') {
      for (const part of textParts(block.parts)) {
        reachPage(part.page);
        out.push(escapeParagraph(escapeTags(part.text)));
      }
    } else {
      // Items on one page stay one run of lines; a new page cuts the list where it starts. An
      // item running over the break goes on below the marker, indented as its own paragraph.
      let lines: string[] = [];
      const cut = () => {
        if (lines.length) out.push(lines.join('\n'));
        lines = [];
      };
      const markers = listMarkers(block.items);
      block.items.forEach((item, n) => {
        const { marker, indent } = markers[n]!;
        textParts(item.parts).forEach((part, i) => {
          const continued = i > 0;
          if (pageBreaks && part.page > page) {
            cut();
            reachPage(part.page, continued ? indent : '');
          }
          const text = escapeTags(part.text);
          lines.push(continued ? `${indent}${escapeParagraph(text)}` : `${marker} ${text}`);
        });
      });
      cut();
    }
  }
  reachPage(pages);
  return out.length ? `${out.join('\n\n')}\n` : '';
}

function joinParts(parts: readonly TextPart[]): TextPart {
  return { page: parts[0]!.page, text: parts.reduce((text, part) => joinText(text, part.text), '') };
}

/** One part per page; a word hyphenated across the break stays whole on the first page. */
function splitAtPages(parts: readonly TextPart[]): TextPart[] {
  const split = parts.map((part) => ({ ...part }));
  for (let i = 0; i + 1 < split.length; i++) {
    const [current, next] = [split[i]!, split[i + 1]!];
    const tail = /^(\p{Ll}\S*)\s*(.*)$/u.exec(next.text);
    if (/\p{Ll}-$/u.test(current.text) && tail) {
      current.text = joinText(current.text, tail[1]!);
      next.text = tail[2]!;
    }
  }
  return split.filter((part) => part.text !== '');
}

/** A paragraph that starts like Markdown syntax must not turn into a heading or list. */
function escapeParagraph(text: string): string {
  return text.replace(/^(\d{1,9})([.)]\s)/, '$1\\$2').replace(/^([-+*]\s|#{1,6}\s|>)/, '\\$1');
}

/**
 * Text that reads as an HTML tag ("<stmt>", "</name>", "<!x") is text in the PDF: a Markdown
 * reader would hide it as raw HTML. Only the scripts the engine writes itself stay tags. Text
 * that reads as a link (`\psframe[fillstyle=solid](0,2)` in a PSTricks listing) would show its
 * brackets' text only, glued to the word before, and hide the parenthesis: its bracket is escaped
 * (not the engine's own footnote reference, `x[^1](…)`).
 */
function escapeTags(text: string): string {
  return text.replace(/<(?!\/?su[bp]>)(?=[A-Za-z/!?])/g, '\\<').replace(/\[(?!\^[^\]\s]+\])(?=[^[\]]*\]\()/g, '\\[');
}

/** Each item's marker line prefix (indent and marker) and the indent of its own text below it. */
function listMarkers(items: readonly ListItem[]): { marker: string; indent: string }[] {
  const counters: number[] = [];
  const indents: string[] = [''];
  return items.map((item) => {
    counters.length = item.level + 1;
    counters[item.level] = (counters[item.level] ?? 0) + 1;
    if (item.number !== undefined) counters[item.level] = item.number;
    const marker = item.ordered ? `${counters[item.level]}.` : '-';
    const indent = indents[item.level] ?? '';
    // Nested items indent to the parent's text, which depends on the parent's marker width.
    indents.length = item.level + 1;
    indents[item.level + 1] = indent + ' '.repeat(marker.length + 1);
    return { marker: `${indent}${marker}`, indent: indents[item.level + 1]! };
  });
}

function tableToMarkdown(rows: readonly (readonly string[])[]): string {
  const width = Math.max(...rows.map((row) => row.length));
  const line = (cells: readonly string[]) =>
    `| ${Array.from({ length: width }, (_, i) => escapeTags(cells[i] ?? '').replaceAll('|', '\\|')).join(' | ')} |`;
  const [header = [], ...body] = rows;
  return [line(header), line(Array.from({ length: width }, () => '---')), ...body.map(line)].join('\n');
}
