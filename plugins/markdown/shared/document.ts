/**
 * The PDF engine's structure -> the document model: headings (level by size rank or the outline),
 * paragraphs, lists (nesting from the items' levels), tables (the engine's first row is its header
 * row), each with the page it starts on and its box there; the running heads and feet the engine
 * set apart become pageHeader / pageFooter furniture with their boxes. pdfToMarkdown renders the
 * same blocks. Boxes are clipped to the page (a line's estimated ascent may reach past its edge).
 */
import { cleanText, finishDocument, type DraftBlock } from '../../../core/contract/document/index.js';
import type { BoundingBox, Document, ListItem } from '../../../schema/index.js';
import { joinText } from './engine/lines.js';
import type { PdfStructure } from './engine/index.js';
import type { Block, Box, ListItem as EngineItem, TextPart } from './engine/types.js';

type Placer = (page: number, box: Box | undefined) => { box?: BoundingBox };

const round = (n: number) => Math.round(n * 100) / 100;

/** A box rounded to hundredths of a point and clipped to its page. */
function placer(pages: PdfStructure['pages']): Placer {
  const sizes = new Map(pages.map((page) => [page.number, page]));
  return (page, box) => {
    const size = sizes.get(page);
    if (!box || !size) return {};
    const clip = (n: number, max: number) => round(Math.min(max, Math.max(0, n)));
    const [x0, x1] = [clip(box.x0, size.width), clip(box.x1, size.width)];
    const [y0, y1] = [clip(box.y0, size.height), clip(box.y1, size.height)];
    return { box: { x0, y0, x1: Math.max(x0, x1), y1: Math.max(y0, y1) } };
  };
}

const partsText = (parts: readonly TextPart[]) =>
  cleanText(parts.reduce((text, part) => joinText(text, part.text), ''));

/** Items with levels -> nested lists (a deeper item nests under the item before it). */
function nestedList(items: readonly EngineItem[], page: number, box: Box | undefined, place: Placer): DraftBlock {
  const root = { ordered: items[0]?.ordered ?? false, start: items[0]?.number, items: [] as ListItem[] };
  const stack: { level: number; items: ListItem[] }[] = [{ level: items[0]?.level ?? 0, items: root.items }];
  for (const item of items) {
    const node: ListItem = { id: '', text: partsText(item.parts), page: item.page, ...place(item.page, item.box) };
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
  const list = { type: 'list', page, ...place(page, box), ordered: root.ordered, ...start, items: root.items };
  for (const item of root.items) boxNestedLists(item);
  return list as DraftBlock;
}

/** A nested list's box: its items' boxes on the page it starts on. */
function boxNestedLists(item: ListItem): void {
  for (const child of item.children ?? []) {
    if (child.type !== 'list') continue;
    for (const nested of child.items) boxNestedLists(nested);
    const boxes = child.items.flatMap((i) => (i.page === child.page && i.box ? [i.box] : []));
    if (boxes.length)
      child.box = boxes.reduce((a, b) => ({
        x0: Math.min(a.x0, b.x0),
        y0: Math.min(a.y0, b.y0),
        x1: Math.max(a.x1, b.x1),
        y1: Math.max(a.y1, b.y1),
      }));
  }
}

function blockOf(block: Block, place: Placer): DraftBlock | undefined {
  const at = { page: block.page, ...place(block.page, block.box) };
  switch (block.kind) {
    case 'heading':
      return {
        type: 'heading',
        ...at,
        level: Math.min(6, Math.max(1, block.level)),
        text: cleanText(block.text),
      };
    case 'paragraph': {
      const text = partsText(block.parts);
      return text ? { type: 'paragraph', ...at, text } : undefined;
    }
    case 'list':
      return block.items.length ? nestedList(block.items, block.page, block.box, place) : undefined;
    case 'table':
      return {
        type: 'table',
        ...at,
        rows: block.rows.map((row) => row.map((text) => ({ text: cleanText(text) }))),
        headerRows: block.rows.length > 1 ? 1 : 0,
      };
  }
}

export function pdfDocument(structure: PdfStructure, filename: string): Document {
  const place = placer(structure.pages);
  const furniture = structure.running.flatMap(({ page, height, lines }) =>
    lines.map((line) => ({
      type: line.baseline < height / 2 ? ('pageHeader' as const) : ('pageFooter' as const),
      page,
      text: cleanText(line.text),
      ...place(page, { x0: line.x0, y0: line.baseline - line.size, x1: line.x1, y1: line.baseline }),
    })),
  );
  return finishDocument({
    source: { format: 'pdf', filename },
    pages: structure.pages,
    body: structure.blocks.flatMap((block) => blockOf(block, place) ?? []),
    furniture,
  });
}
