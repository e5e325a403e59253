/**
 * Helpers for readers that produce the document model (schema/document.ts): readers build nodes
 * without ids and `finishDocument` numbers every node in reading order, so the same input always
 * gets the same ids, whichever reader made it.
 */
import {
  DOCUMENT_SCHEMA_VERSION,
  documentSchema,
  type Block,
  type Document,
  type Furniture,
  type ListItem,
} from '../../../schema/index.js';

/** A node as a reader builds it: everything but its id. */
export type Draft<T> = T extends { id: string } ? Omit<T, 'id'> & { id?: string } : T;
export type DraftBlock = Draft<Block>;

export interface DraftDocument {
  source: Document['source'];
  title?: string;
  pages?: Document['pages'];
  body: DraftBlock[] | Block[];
  furniture?: (Omit<Furniture, 'id'> & { id?: string })[];
}

/** Whitespace runs as one space, trimmed: what every reader does to the text of a node. */
export function cleanText(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Numbers every node (`n1`, `n2`... in reading order; furniture `f1`...), stamps the version, checks the shape. */
export function finishDocument(draft: DraftDocument): Document {
  let next = 0;
  const id = () => `n${++next}`;
  const number = (block: Block): Block => {
    block.id = id();
    if (block.type === 'list') for (const item of block.items) numberItem(item);
    if (block.type === 'section') {
      for (const child of block.children) number(child);
      for (const note of block.notes ?? []) number(note);
    }
    return block;
  };
  const numberItem = (item: ListItem) => {
    item.id = id();
    for (const child of item.children ?? []) number(child);
  };
  const body = (draft.body as Block[]).map(number);
  let furnitureId = 0;
  const document: Document = {
    schemaVersion: DOCUMENT_SCHEMA_VERSION,
    source: draft.source,
    ...(draft.title ? { title: draft.title } : {}),
    ...(draft.pages?.length ? { pages: draft.pages } : {}),
    body,
    furniture: (draft.furniture ?? []).map((f) => ({ ...f, id: `f${++furnitureId}` })),
  };
  // Readers are plugin code: what leaves them is checked against the published schema.
  return documentSchema.parse(document);
}

/** Every block in reading order, depth first (list items' children and sections' children included). */
export function* walkBlocks(blocks: readonly Block[]): Generator<Block> {
  for (const block of blocks) {
    yield block;
    if (block.type === 'list') for (const item of block.items) yield* walkBlocks(item.children ?? []);
    if (block.type === 'section') yield* walkBlocks(block.children);
  }
}

/** The plain text of a table's cell grid, for counting and search. */
export function tableText(rows: readonly { text: string }[][]): string {
  return rows.map((row) => row.map((cell) => cell.text).join(' | ')).join('\n');
}
