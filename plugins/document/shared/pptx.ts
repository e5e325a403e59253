/**
 * PPTX -> document model, from the presentation's own XML (PresentationML + DrawingML): one
 * section per slide in the presentation's order, with its title, text frames (bulleted
 * paragraphs as lists, levels as nesting), tables (spans kept), pictures (their alt text) and
 * speaker notes; boxes from each shape's offset and extent, in points.
 */
import type { BoundingBox, ListItem, TableCell } from '../../../schema/index.js';
import { cleanText, finishDocument, type DraftBlock } from '../../../core/contract/document/index.js';
import { PluginError } from '../../../core/contract/index.js';
import { MAX_SLIDES } from './family.js';
import { openPackage, relationships, type DocumentPackage } from './package.js';
import { child, descendants, elements, textOf, type XmlElement } from './xml.js';

const EMU_PER_POINT = 12_700;
const TITLE_PLACEHOLDERS = new Set(['title', 'ctrTitle']);

interface Paragraph {
  text: string;
  level: number;
  bullet: 'none' | 'bullet' | 'number' | 'inherit';
}

function paragraphsOf(txBody: XmlElement | undefined): Paragraph[] {
  if (!txBody) return [];
  return elements(txBody, 'a:p').map((p) => {
    const pPr = child(p, 'a:pPr');
    // Line breaks inside a paragraph read as spaces; fields (slide numbers, dates) as their shown text.
    const text = cleanText(
      elements(p)
        .map((run) =>
          run.name === 'a:br' ? ' ' : run.name === 'a:r' || run.name === 'a:fld' ? textOf(run, 'a:t') : '',
        )
        .join(''),
    );
    const bullet = !pPr
      ? 'inherit'
      : child(pPr, 'a:buNone')
        ? 'none'
        : child(pPr, 'a:buAutoNum')
          ? 'number'
          : child(pPr, 'a:buChar') || child(pPr, 'a:buBlip')
            ? 'bullet'
            : 'inherit';
    return { text, level: Number(pPr?.attrs.lvl ?? 0) || 0, bullet };
  });
}

function boxOf(spPr: XmlElement | undefined): BoundingBox | undefined {
  const xfrm = child(spPr, 'a:xfrm') ?? child(spPr, 'p:xfrm');
  const off = child(xfrm, 'a:off');
  const ext = child(xfrm, 'a:ext');
  if (!off || !ext) return undefined;
  const x = Number(off.attrs.x) / EMU_PER_POINT;
  const y = Number(off.attrs.y) / EMU_PER_POINT;
  const w = Number(ext.attrs.cx) / EMU_PER_POINT;
  const h = Number(ext.attrs.cy) / EMU_PER_POINT;
  if (![x, y, w, h].every(Number.isFinite)) return undefined;
  const round = (n: number) => Math.round(n * 100) / 100;
  return { x0: round(x), y0: round(y), x1: round(x + w), y1: round(y + h) };
}

/** Paragraphs as blocks: bulleted runs become (nested) lists, the rest paragraphs. */
function textBlocks(paragraphs: Paragraph[], bodyPlaceholder: boolean, page: number, box?: BoundingBox): DraftBlock[] {
  const blocks: DraftBlock[] = [];
  const located = { page, ...(box ? { box } : {}) };
  let list: { ordered: boolean; stack: { level: number; items: ListItem[] }[] } | null = null;
  for (const p of paragraphs) {
    if (!p.text) continue;
    // A body placeholder's paragraphs are bullets unless they say otherwise (the master's default).
    const bulleted = p.bullet === 'bullet' || p.bullet === 'number' || (p.bullet === 'inherit' && bodyPlaceholder);
    if (!bulleted) {
      list = null;
      blocks.push({ type: 'paragraph', ...located, text: p.text });
      continue;
    }
    const item = { id: '', text: p.text, page } as ListItem;
    if (!list) {
      const items: ListItem[] = [];
      list = { ordered: p.bullet === 'number', stack: [{ level: p.level, items }] };
      blocks.push({ type: 'list', ...located, ordered: list.ordered, items } as DraftBlock);
    }
    while (list.stack.length > 1 && p.level < list.stack[list.stack.length - 1]!.level) list.stack.pop();
    const top = list.stack[list.stack.length - 1]!;
    if (p.level > top.level && top.items.length) {
      const parent = top.items[top.items.length - 1]!;
      const items: ListItem[] = [item];
      parent.children = [
        ...(parent.children ?? []),
        { type: 'list', id: '', page, ordered: p.bullet === 'number', items },
      ];
      list.stack.push({ level: p.level, items });
    } else top.items.push(item);
  }
  return blocks;
}

function tableBlock(tbl: XmlElement, page: number, box?: BoundingBox): DraftBlock {
  const rows: TableCell[][] = [];
  for (const tr of elements(tbl, 'a:tr')) {
    const cells: TableCell[] = [];
    for (const tc of elements(tr, 'a:tc')) {
      // Places covered by a merged cell carry hMerge/vMerge: the cell is listed once, where it starts.
      if (tc.attrs.hMerge === '1' || tc.attrs.vMerge === '1') continue;
      const text = cleanText(
        paragraphsOf(child(tc, 'a:txBody'))
          .map((p) => p.text)
          .join(' '),
      );
      const rowSpan = Number(tc.attrs.rowSpan ?? 1);
      const colSpan = Number(tc.attrs.gridSpan ?? 1);
      cells.push({ text, ...(rowSpan > 1 ? { rowSpan } : {}), ...(colSpan > 1 ? { colSpan } : {}) });
    }
    rows.push(cells);
  }
  const firstRow = child(tbl, 'a:tblPr')?.attrs.firstRow === '1';
  return { type: 'table', page, ...(box ? { box } : {}), rows, headerRows: firstRow && rows.length > 1 ? 1 : 0 };
}

interface SlideContent {
  title?: string;
  blocks: DraftBlock[];
}

/** The shapes of a shape tree in their z-order (which is also how PowerPoint reads them out). */
function shapeBlocks(tree: XmlElement, page: number, content: SlideContent): void {
  for (const shape of elements(tree)) {
    if (shape.name === 'p:grpSp') {
      shapeBlocks(shape, page, content);
      continue;
    }
    const nv = child(shape, 'p:nvSpPr') ?? child(shape, 'p:nvGraphicFramePr') ?? child(shape, 'p:nvPicPr');
    const ph = child(child(nv, 'p:nvPr'), 'p:ph');
    if (shape.name === 'p:sp') {
      const paragraphs = paragraphsOf(child(shape, 'p:txBody'));
      const box = boxOf(child(shape, 'p:spPr'));
      if (ph && TITLE_PLACEHOLDERS.has(ph.attrs.type ?? '') && content.title === undefined) {
        content.title = cleanText(paragraphs.map((p) => p.text).join(' '));
        continue;
      }
      // Slide numbers, dates and footers repeat on every slide: furniture, not content.
      if (ph && ['sldNum', 'dt', 'ftr', 'hdr'].includes(ph.attrs.type ?? '')) continue;
      const body =
        ph !== undefined && (ph.attrs.type === undefined || ph.attrs.type === 'body' || ph.attrs.type === 'obj');
      content.blocks.push(...textBlocks(paragraphs, body, page, box));
    } else if (shape.name === 'p:graphicFrame') {
      const tbl = descendants(shape, 'a:tbl')[0];
      if (tbl) content.blocks.push(tableBlock(tbl, page, boxOf(child(shape, 'p:xfrm') ? shape : undefined)));
    } else if (shape.name === 'p:pic') {
      const cNvPr = child(nv, 'p:cNvPr');
      const alt = cleanText(cNvPr?.attrs.descr ?? '');
      const box = boxOf(child(shape, 'p:spPr'));
      content.blocks.push({ type: 'figure', page, ...(box ? { box } : {}), ...(alt ? { alt } : {}) });
    }
  }
}

function notesOf(pkg: DocumentPackage, slidePart: string, page: number): DraftBlock[] {
  const rels = relationships(pkg, slidePart);
  const notesPart = [...rels.values()].find((rel) => rel.type.endsWith('/notesSlide'))?.target;
  const notes = notesPart ? pkg.xml(notesPart) : undefined;
  const tree = notes ? child(child(notes, 'p:cSld'), 'p:spTree') : undefined;
  if (!tree) return [];
  const blocks: DraftBlock[] = [];
  for (const shape of descendants(tree, 'p:sp')) {
    const ph = child(child(child(shape, 'p:nvSpPr'), 'p:nvPr'), 'p:ph');
    if (ph?.attrs.type !== 'body') continue;
    for (const p of paragraphsOf(child(shape, 'p:txBody')))
      if (p.text) blocks.push({ type: 'paragraph', page, text: p.text });
  }
  return blocks;
}

export async function readPptx(file: string, filename: string, signal: AbortSignal) {
  const pkg = await openPackage(file, 'presentation', signal);
  const presentation = pkg.xml('ppt/presentation.xml');
  if (!presentation) throw new PluginError('The presentation could not be read: it has no ppt/presentation.xml');
  const rels = relationships(pkg, 'ppt/presentation.xml');
  const ids = descendants(presentation, 'p:sldId');
  if (ids.length > MAX_SLIDES) throw new PluginError(`The presentation has ${ids.length} slides (limit ${MAX_SLIDES})`);
  const size = child(presentation, 'p:sldSz');
  const width = Number(size?.attrs.cx) / EMU_PER_POINT;
  const height = Number(size?.attrs.cy) / EMU_PER_POINT;
  const body: DraftBlock[] = [];
  const pages = [];
  for (const [index, id] of ids.entries()) {
    signal.throwIfAborted();
    const part = rels.get(id.attrs['r:id'] ?? '')?.target;
    const slide = part ? pkg.xml(part) : undefined;
    if (!part || !slide) continue;
    const number = index + 1;
    const tree = child(child(slide, 'p:cSld'), 'p:spTree');
    const content: SlideContent = { blocks: [] };
    if (tree) shapeBlocks(tree, number, content);
    const notes = notesOf(pkg, part, number);
    if (Number.isFinite(width) && Number.isFinite(height)) pages.push({ number, width, height });
    body.push({
      type: 'section',
      kind: 'slide',
      number,
      page: number,
      ...(content.title ? { title: content.title } : {}),
      children: content.blocks,
      ...(notes.length ? { notes } : {}),
    } as DraftBlock);
  }
  const title = cleanText(textOf(pkg.xml('docProps/core.xml') ?? { name: '', attrs: {}, children: [] }, 'dc:title'));
  return finishDocument({ source: { format: 'pptx', filename }, ...(title ? { title } : {}), pages, body });
}
