/**
 * The PDF engine's structure -> the document model: headings (level by size rank or the outline),
 * paragraphs, lists (nesting from the items' levels), tables (the engine's first row is its header
 * row), each with the page it starts on; the running heads and feet the engine set apart become
 * pageHeader / pageFooter furniture with their boxes. pdfToMarkdown renders the same blocks.
 */
import { cleanText, finishDocument, type DraftBlock } from '../../../core/contract/document/index.js';
import type { Document, ListItem } from '../../../schema/index.js';
import { joinText } from './engine/lines.js';
import type { PdfStructure } from './engine/index.js';
import type { Block, ListItem as EngineItem, TextPart } from './engine/types.js';

const partsText = (parts: readonly TextPart[]) =>
  cleanText(parts.reduce((text, part) => joinText(text, part.text), ''));

/** Items with levels -> nested lists (a deeper item nests under the item before it). */
function nestedList(items: readonly EngineItem[], page: number): DraftBlock {
  const root = { ordered: items[0]?.ordered ?? false, start: items[0]?.number, items: [] as ListItem[] };
  const stack: { level: number; items: ListItem[] }[] = [{ level: items[0]?.level ?? 0, items: root.items }];
  for (const item of items) {
    const node: ListItem = { id: '', text: partsText(item.parts), page: item.page };
    while (stack.length > 1 && item.level < stack[stack.length - 1]!.level) stack.pop();
    const top = stack[stack.length - 1]!;
    if (item.level > top.level && top.items.length) {
      const parent = top.items[top.items.length - 1]!;
      const items: ListItem[] = [node];
      const start = item.ordered && item.number !== undefined && item.number !== 1 ? { start: item.number } : {};
      parent.children = [
        ...(parent.children ?? []),
        { type: 'list', id: '', page: item.page, ordered: item.ordered, ...start, items },
      ];
      stack.push({ level: item.level, items });
    } else top.items.push(node);
  }
  const start = root.ordered && root.start !== undefined && root.start !== 1 ? { start: root.start } : {};
  return { type: 'list', page, ordered: root.ordered, ...start, items: root.items } as DraftBlock;
}

function blockOf(block: Block): DraftBlock | undefined {
  switch (block.kind) {
    case 'heading':
      return {
        type: 'heading',
        page: block.page,
        level: Math.min(6, Math.max(1, block.level)),
        text: cleanText(block.text),
      };
    case 'paragraph': {
      const text = partsText(block.parts);
      return text ? { type: 'paragraph', page: block.page, text } : undefined;
    }
    case 'list':
      return block.items.length ? nestedList(block.items, block.page) : undefined;
    case 'table':
      return {
        type: 'table',
        page: block.page,
        rows: block.rows.map((row) => row.map((text) => ({ text: cleanText(text) }))),
        headerRows: block.rows.length > 1 ? 1 : 0,
      };
  }
}

export function pdfDocument(structure: PdfStructure, filename: string): Document {
  const round = (n: number) => Math.round(n * 100) / 100;
  const furniture = structure.running.flatMap(({ page, height, lines }) =>
    lines.map((line) => ({
      type: line.baseline < height / 2 ? ('pageHeader' as const) : ('pageFooter' as const),
      page,
      text: cleanText(line.text),
      box: { x0: round(line.x0), y0: round(line.baseline - line.size), x1: round(line.x1), y1: round(line.baseline) },
    })),
  );
  return finishDocument({
    source: { format: 'pdf', filename },
    pages: structure.pages,
    body: structure.blocks.flatMap((block) => blockOf(block) ?? []),
    furniture,
  });
}
