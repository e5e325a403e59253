/**
 * The PDF engine's structure -> the document model: headings (level by size rank or the outline),
 * paragraphs, lists (nesting from the items' levels), tables (the engine's first row is its header
 * row), each with the page it starts on and its box there; the running heads and feet the engine
 * set apart become pageHeader / pageFooter furniture with their boxes. pdfToMarkdown renders the
 * same blocks. Boxes are clipped to the page (a line's estimated ascent may reach past its edge).
 */
import { cleanText, finishDocument, type DraftBlock } from '../../../core/contract/document/index.js';
import type { BoundingBox, Document, List, ListItem } from '../../../schema/index.js';
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

/** An item goes on with the list before it: the same kind, and for numbered items the next number. */
function follows(previous: EngineItem, item: EngineItem): boolean {
  if (previous.ordered !== item.ordered) return false;
  return (
    !item.ordered || previous.number === undefined || item.number === undefined || item.number === previous.number + 1
  );
}

/**
 * Items with levels -> nested lists (a deeper item nests under the item before it). A numbered item that does not
 * go on from the one before at its level (a list that starts again at 1) starts a list of its own, as the engine's
 * Markdown shows it: the model has no number per item, only a list's start.
 */
function nestedLists(items: readonly EngineItem[], place: Placer): List[] {
  const roots: List[] = [];
  const listOf = (item: EngineItem): List => ({
    type: 'list',
    id: '',
    page: item.page,
    ordered: item.ordered,
    ...(item.ordered && item.number !== undefined && item.number !== 1 ? { start: item.number } : {}),
    items: [],
  });
  const stack: { level: number; list: List; last: EngineItem; parent?: ListItem }[] = [];
  for (const item of items) {
    const node: ListItem = { id: '', text: partsText(item.parts), page: item.page, ...place(item.page, item.box) };
    while (stack.length > 1 && item.level < stack[stack.length - 1]!.level) stack.pop();
    const top = stack[stack.length - 1];
    if (!top || item.level > top.level) {
      const list = listOf(item);
      const parent = top?.list.items[top.list.items.length - 1];
      if (parent) parent.children = [...(parent.children ?? []), list];
      else roots.push(list);
      stack.push({ level: item.level, list, last: item, parent });
    } else if (!follows(top.last, item)) {
      top.list = listOf(item);
      if (top.parent) top.parent.children = [...(top.parent.children ?? []), top.list];
      else roots.push(top.list);
    }
    const frame = stack[stack.length - 1]!;
    frame.list.items.push(node);
    frame.last = item;
  }
  for (const list of roots) boxList(list);
  return roots;
}

/** A list's box: its items' boxes and its nested lists' on the page it starts on. */
function boxList(list: List): BoundingBox | undefined {
  const boxes: BoundingBox[] = [];
  for (const item of list.items) {
    if (item.page === list.page && item.box) boxes.push(item.box);
    for (const child of item.children ?? []) {
      const box = child.type === 'list' ? boxList(child) : undefined;
      if (box && child.page === list.page) boxes.push(box);
    }
  }
  if (boxes.length)
    list.box = boxes.reduce((a, b) => ({
      x0: Math.min(a.x0, b.x0),
      y0: Math.min(a.y0, b.y0),
      x1: Math.max(a.x1, b.x1),
      y1: Math.max(a.y1, b.y1),
    }));
  return list.box;
}

function blocksOf(block: Block, place: Placer): DraftBlock[] {
  const at = { page: block.page, ...place(block.page, block.box) };
  switch (block.kind) {
    case 'heading':
      return [{ type: 'heading', ...at, level: Math.min(6, Math.max(1, block.level)), text: cleanText(block.text) }];
    case 'paragraph': {
      const text = partsText(block.parts);
      return text ? [{ type: 'paragraph', ...at, text }] : [];
    }
    case 'list':
      return nestedLists(block.items, place);
    case 'table':
      return [
        {
          type: 'table',
          ...at,
          rows: block.rows.map((row) => row.map((text) => ({ text: cleanText(text) }))),
          headerRows: block.rows.length > 1 ? 1 : 0,
        },
      ];
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
    body: structure.blocks.flatMap((block) => blocksOf(block, place)),
    furniture,
  });
}
