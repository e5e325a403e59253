/**
 * Chunks for retrieval, cut from the document model (after Docling's hybrid chunker): text is
 * kept under its heading path, small neighbours under the same path are merged (mergePeers), and
 * what is too long is cut at sentence ends, table rows and list items before anything else. Each
 * chunk's text to embed starts with its heading path (Docling's `contextualize`), and that path
 * counts against maxTokens: no chunk's text is ever longer than maxTokens.
 */
import type { Block, Chunk, Document, List, Table } from '../../../schema/index.js';
import { tableGrid } from './render.js';
import type { Tokenizer } from './tokenizers.js';

export interface ChunkOptions {
  maxTokens: number;
  /** Tokens of the previous chunk's end repeated at the start of the next one under the same headings. */
  overlap: number;
  mergePeers: boolean;
  tokenizer: Tokenizer;
}

/** The smallest part the chunker keeps whole when it can: a sentence, a table row, a list item, a code line. */
interface Piece {
  text: string;
  /** What joins it to the piece before it in the same unit. */
  join: ' ' | '\n';
  /** A table's header rows themselves (never repeated in front of themselves). */
  header?: boolean;
}

/** One node's content under one heading path. */
interface Unit {
  headings: string[];
  nodes: string[];
  pages: number[];
  pieces: Piece[];
  /** A table's header rows, repeated at the top of each chunk its rows continue in. */
  header?: string;
}

const sentenceSegmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

function sentences(text: string): Piece[] {
  const out: Piece[] = [];
  for (const { segment } of sentenceSegmenter.segment(text)) {
    const trimmed = segment.trim();
    if (trimmed) out.push({ text: trimmed, join: ' ' });
  }
  return out;
}

const tableRow = (cells: string[]) => `| ${cells.map((c) => c.replace(/\s+/g, ' ').trim()).join(' | ')} |`;

function tableUnit(table: Table, headings: string[]): Unit {
  const rows = tableGrid(table).map((row) => tableRow(row.map((place) => (place.origin ? place.cell.text : ''))));
  const headerCount = Math.min(table.headerRows, rows.length);
  const header = rows.slice(0, headerCount).join('\n');
  const body = rows.slice(headerCount).map((text) => ({ text, join: '\n' as const }));
  const pieces: Piece[] = [
    ...(table.caption ? [{ text: table.caption, join: '\n' as const }] : []),
    ...(header ? [{ text: header, join: '\n' as const, header: true }] : []),
    ...body,
  ];
  return {
    headings,
    nodes: [table.id],
    pages: table.page ? [table.page] : [],
    pieces,
    ...(header && body.length ? { header } : {}),
  };
}

function listPieces(list: List, indent: string): { pieces: Piece[]; nodes: string[]; pages: number[] } {
  const pieces: Piece[] = [];
  const nodes = [list.id];
  const pages: number[] = list.page ? [list.page] : [];
  list.items.forEach((item, i) => {
    const marker = list.ordered ? `${(list.start ?? 1) + i}.` : '-';
    const [first, ...rest] = sentences(item.text);
    pieces.push({ text: `${indent}${marker} ${first?.text ?? ''}`, join: '\n' });
    pieces.push(...rest);
    nodes.push(item.id);
    if (item.page) pages.push(item.page);
    for (const child of item.children ?? []) {
      if (child.type === 'list') {
        const inner = listPieces(child, `${indent}  `);
        pieces.push(...inner.pieces);
        nodes.push(...inner.nodes);
        pages.push(...inner.pages);
      } else {
        const text = blockText(child);
        if (text) pieces.push({ text: `${indent}  ${text}`, join: '\n' });
        nodes.push(child.id);
      }
    }
  });
  return { pieces, nodes, pages };
}

function blockText(block: Block): string {
  switch (block.type) {
    case 'heading':
    case 'paragraph':
    case 'code':
    case 'formula':
      return block.text;
    case 'footnote':
      return block.label ? `[${block.label}] ${block.text}` : block.text;
    case 'figure':
      return block.caption ?? '';
    case 'table':
      return tableGrid(block)
        .map((row) => tableRow(row.map((p) => (p.origin ? p.cell.text : ''))))
        .join('\n');
    case 'list':
      return listPieces(block, '')
        .pieces.map((p) => p.text)
        .join('\n');
    case 'section':
      return block.title ?? '';
  }
}

/** The document's content as units in reading order, each under its heading path. */
function collectUnits(document: Document): Unit[] {
  const units: Unit[] = [];
  type Open = { level: number; text: string; covered: boolean; id: string };
  let stack: Open[] = [];
  const path = () => stack.map((h) => h.text);
  const emit = (unit: Omit<Unit, 'headings'>) => {
    if (!unit.pieces.length) return;
    for (const heading of stack) heading.covered = true;
    units.push({ ...unit, headings: path() });
  };
  // A heading nothing was written under still reaches a chunk: its path alone.
  const close = (keep: (h: Open) => boolean) => {
    while (stack.length && !keep(stack[stack.length - 1]!)) {
      const top = stack[stack.length - 1]!;
      if (!top.covered) units.push({ headings: path(), nodes: [top.id], pages: [], pieces: [] });
      for (const heading of stack) heading.covered = true;
      stack.pop();
    }
  };
  const visit = (block: Block) => {
    const pages = block.page ? [block.page] : [];
    switch (block.type) {
      case 'heading':
        close((h) => h.level < block.level);
        stack.push({ level: block.level, text: block.text, covered: false, id: block.id });
        return;
      case 'paragraph':
      case 'footnote':
        emit({ nodes: [block.id], pages, pieces: sentences(blockText(block)) });
        return;
      case 'figure':
        if (block.caption) emit({ nodes: [block.id], pages, pieces: sentences(block.caption) });
        return;
      case 'code':
      case 'formula':
        emit({
          nodes: [block.id],
          pages,
          pieces: block.text
            .split('\n')
            .filter((line) => line.trim())
            .map((text) => ({ text, join: '\n' as const })),
        });
        return;
      case 'list': {
        const { pieces, nodes, pages: itemPages } = listPieces(block, '');
        emit({ nodes, pages: [...pages, ...itemPages], pieces });
        return;
      }
      case 'table': {
        const unit = tableUnit(block, []);
        emit({
          nodes: unit.nodes,
          pages: unit.pages,
          pieces: unit.pieces,
          ...(unit.header ? { header: unit.header } : {}),
        });
        return;
      }
      case 'section': {
        const outer = stack;
        // A slide's or sheet's title heads what it holds, under the headings around it.
        stack = [
          ...outer.map((h) => ({ ...h })),
          { level: 0, text: block.title ?? `${block.kind} ${block.number}`, covered: false, id: block.id },
        ];
        const base = stack.length;
        for (const child of block.children) visit(child);
        if (block.notes?.length) {
          close(() => stack.length <= base);
          for (const note of block.notes) visit(note);
        }
        close(() => false);
        for (const heading of outer) heading.covered = true;
        stack = outer;
        return;
      }
    }
  };
  for (const block of document.body) visit(block);
  close(() => false);
  return units;
}

interface Draft {
  headings: string[];
  parts: { text: string; join: string }[];
  nodes: Set<string>;
  pages: number[];
}

/** Chunks of `document` under `options`; every chunk's `tokens` (of its `text`) is at most maxTokens. */
export function chunkDocument(document: Document, options: ChunkOptions): Chunk[] {
  const { maxTokens, tokenizer, mergePeers } = options;
  const out: Chunk[] = [];
  const count = (text: string) => tokenizer.count(text);

  /** The heading path that fits: the innermost headings within half the budget. */
  const fittingPath = (headings: string[]) => {
    let kept = headings;
    while (kept.length && count(kept.join('\n')) > Math.floor(maxTokens / 2)) kept = kept.slice(1);
    return kept;
  };
  const compose = (headings: string[], content: string) =>
    headings.length ? (content ? `${headings.join('\n')}\n${content}` : headings.join('\n')) : content;
  const contentOf = (draft: Draft) =>
    draft.parts.map((part, i) => (i === 0 ? part.text : part.join + part.text)).join('');

  let current: Draft | null = null;
  const flush = () => {
    if (!current) return;
    const content = contentOf(current);
    const text = compose(current.headings, content);
    if (content || current.headings.length) {
      const pages = current.pages.length
        ? { pages: { first: Math.min(...current.pages), last: Math.max(...current.pages) } }
        : {};
      out.push({
        index: out.length,
        text,
        content,
        tokens: count(text),
        headings: current.headings,
        ...pages,
        nodes: [...current.nodes],
      });
    }
    current = null;
  };
  const fits = (draft: Draft, join: string, text: string) =>
    count(compose(draft.headings, contentOf(draft) + (draft.parts.length ? join : '') + text)) <= maxTokens;
  const start = (unit: Unit, headings: string[], previous: Draft | null, header?: string) => {
    const draft: Draft = { headings, parts: [], nodes: new Set(unit.nodes), pages: [...unit.pages] };
    if (header && fits(draft, '\n', header) && count(header) <= Math.floor(maxTokens / 4))
      draft.parts.push({ text: header, join: '' });
    if (previous && options.overlap > 0) {
      const tail = tokenizer.tail(contentOf(previous), Math.min(options.overlap, Math.floor(maxTokens / 4)));
      if (tail && fits(draft, '\n', tail)) draft.parts.unshift({ text: tail, join: '' });
    }
    return draft;
  };

  for (const unit of collectUnits(document)) {
    const headings = fittingPath(unit.headings);
    const samePath = (draft: Draft | null) =>
      draft !== null && draft.headings.length === headings.length && draft.headings.every((h, i) => h === headings[i]);
    if (!unit.pieces.length) {
      // A heading with nothing under it: its own chunk, unless a peer chunk can hold it.
      flush();
      current = { headings, parts: [], nodes: new Set(unit.nodes), pages: [...unit.pages] };
      flush();
      continue;
    }
    if (!(mergePeers && samePath(current))) flush();
    let first = true;
    for (const piece of unit.pieces) {
      const join = first ? '\n\n' : piece.join;
      first = false;
      current ??= start(unit, headings, null);
      if (fits(current, join, piece.text)) {
        current.parts.push({ text: piece.text, join });
        for (const node of unit.nodes) current.nodes.add(node);
        current.pages.push(...unit.pages);
        continue;
      }
      // The piece does not fit here: a new chunk under the same path, with the overlap and a table's header.
      const previous: Draft | null = current.parts.length ? current : null;
      if (previous) flush();
      let fresh = start(unit, headings, previous, piece.header ? undefined : unit.header);
      if (fits(fresh, '\n', piece.text)) {
        fresh.parts.push({ text: piece.text, join: '\n' });
        current = fresh;
        continue;
      }
      // Too long even alone (a sentence past the limit): cut at token boundaries.
      const budget = Math.max(1, maxTokens - count(compose(headings, '')) - 1);
      for (const slice of tokenizer.split(piece.text, budget)) {
        if (!fits(fresh, ' ', slice)) {
          if (fresh.parts.length) {
            current = fresh;
            flush();
          }
          fresh = start(unit, headings, null);
        }
        fresh.parts.push({ text: slice, join: ' ' });
      }
      current = fresh;
    }
  }
  flush();
  return out
    .flatMap((chunk) => (chunk.tokens <= maxTokens ? chunk : cutDown(chunk, options)))
    .map((chunk, index) => ({ ...chunk, index }));
}

/** A chunk that came out over the limit (a tokenizer whose counts do not add up): its content cut hard. */
function cutDown(chunk: Chunk, { maxTokens, tokenizer }: ChunkOptions): Chunk[] {
  const prefix = chunk.headings.join('\n');
  const budget = Math.max(1, maxTokens - tokenizer.count(prefix) - 2);
  const pieces: Chunk[] = [];
  let size = budget;
  for (;;) {
    pieces.length = 0;
    for (const content of tokenizer.split(chunk.content, size)) {
      const text = prefix ? `${prefix}\n${content}` : content;
      pieces.push({ ...chunk, text, content, tokens: tokenizer.count(text) });
    }
    if (pieces.every((piece) => piece.tokens <= maxTokens) || size === 1) return pieces;
    size = Math.max(1, Math.floor(size * 0.8));
  }
}
