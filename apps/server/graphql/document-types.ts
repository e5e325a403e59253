/**
 * The document model (schema/document.ts) and chunks as GraphQL types, so a client walks op=structure's
 * result with inline fragments (`body { ... on DocumentHeading { level text } }`) instead of parsing a
 * JSON scalar: `Job.document` when the job's result is a model, `Job.chunks` when it is op=chunk's.
 * Each type is read from the model's zod (zod-objects.ts), so GraphQL and the published JSON Schema
 * cannot drift; the recursive parts (lists, items, slides and sheets) are declared here by hand.
 */
import { z } from 'zod';
import {
  boundingBoxSchema,
  chunkSchema,
  codeSchema,
  documentSchema,
  figureSchema,
  footnoteSchema,
  formulaSchema,
  furnitureSchema,
  headingSchema,
  pageSchema,
  paragraphSchema,
  tableCellSchema,
  tableSchema,
  type Block,
  type Chunk,
  type Document,
  type Furniture,
  type ListItem,
} from '../../../schema/index.js';
import type { Builder } from './builder.js';
import type { JobView } from './types.js';
import { addZodEnum, addZodInterface, addZodObject } from './zod-objects.js';

/** The fields every node has: its id, and its page and box where the source has pages. */
const nodeSchema = headingSchema.pick({ id: true, page: true, box: true });
const NODE_FIELDS = ['type', 'id', 'page', 'box'];

const TEXT = { text: 'The text, as one string (inline formatting dropped).' };

/** Each block type's GraphQL name, by the model's `type`. */
const BLOCK_TYPES = {
  heading: 'DocumentHeading',
  paragraph: 'DocumentParagraph',
  list: 'DocumentList',
  table: 'DocumentTable',
  figure: 'DocumentFigure',
  code: 'DocumentCode',
  formula: 'DocumentFormula',
  footnote: 'DocumentFootnote',
  section: 'DocumentSection',
} as const satisfies Record<Block['type'], string>;
const FURNITURE_TYPES = {
  pageHeader: 'DocumentPageHeader',
  pageFooter: 'DocumentPageFooter',
} as const satisfies Record<Furniture['type'], string>;

/** A job's result when it is a document model (op=structure, to=json from a document). */
function documentOf(job: JobView): Document | null {
  const result = 'result' in job ? (job.result as Record<string, unknown> | undefined) : undefined;
  return result && typeof result.schemaVersion === 'string' && Array.isArray(result.body)
    ? (result as unknown as Document)
    : null;
}

/** A job's result when it is op=chunk's `{chunks}`. */
function chunksOf(job: JobView): Chunk[] | null {
  const result = 'result' in job ? (job.result as Record<string, unknown> | undefined) : undefined;
  return result && Array.isArray(result.chunks) && !('schemaVersion' in result) ? (result.chunks as Chunk[]) : null;
}

/** Declares the model's types and chunks, and adds `document` and `chunks` to the Job type. */
export function addDocumentTypes(builder: Builder, job: unknown) {
  addZodObject(builder, 'DocumentBox', boundingBoxSchema, {
    description: 'A rectangle on a page in points (1/72 in), origin at the top-left corner, y downwards.',
  });
  const nodeInterface = addZodInterface<object>(builder, 'DocumentNode', nodeSchema, {
    description: 'Any node of the document model: its stable id, and its page and box where the source has pages.',
    types: { box: 'DocumentBox' },
    resolveType: ({ type }: { type?: string }) =>
      type && type in BLOCK_TYPES
        ? BLOCK_TYPES[type as Block['type']]
        : type && type in FURNITURE_TYPES
          ? FURNITURE_TYPES[type as Furniture['type']]
          : 'DocumentListItem',
  });
  const interfaces = [nodeInterface];
  const leaf = (
    name: string,
    schema: z.ZodObject,
    description: string,
    extra: { types?: Record<string, string>; descriptions?: Record<string, string> } = {},
  ) =>
    addZodObject(builder, name, schema, {
      description,
      interfaces,
      omit: NODE_FIELDS,
      descriptions: { ...TEXT, ...extra.descriptions },
      ...(extra.types ? { types: extra.types } : {}),
    });

  leaf(BLOCK_TYPES.heading, headingSchema, 'A heading: its level (1 to 6) and text.');
  leaf(BLOCK_TYPES.paragraph, paragraphSchema, 'A paragraph of body text.');
  leaf(BLOCK_TYPES.code, codeSchema, 'A code block, line breaks kept.', {
    descriptions: { language: 'The language the source names, if any.' },
  });
  leaf(BLOCK_TYPES.formula, formulaSchema, 'A display formula.');
  leaf(BLOCK_TYPES.footnote, footnoteSchema, "A footnote or endnote's text.");
  addZodObject(builder, 'DocumentImage', figureSchema.shape.image.unwrap(), {
    description: 'An embedded image.',
    descriptions: { mime: 'Its media type (image/png...).' },
  });
  leaf(BLOCK_TYPES.figure, figureSchema, 'A figure (picture, chart): its caption and alternative text.', {
    types: { image: 'DocumentImage' },
    descriptions: { caption: 'The caption the source gives.' },
  });
  const cell = addZodObject(builder, 'DocumentTableCell', tableCellSchema, {
    description: 'One cell of a table, listed once in the row where it starts.',
    descriptions: TEXT,
  });
  const table = leaf(
    BLOCK_TYPES.table,
    tableSchema.omit({ rows: true }),
    "A table: rows of cells (HTML's model: a cell once, with its spans), header rows, caption.",
    { descriptions: { caption: 'The caption the source gives.' } },
  );
  builder.objectField(
    table as ReturnType<typeof builder.objectRef<{ rows: z.infer<typeof tableCellSchema>[][] }>>,
    'rows',
    (t) =>
      t.field({
        type: t.listRef(t.listRef(cell)),
        description: tableSchema.shape.rows.meta()?.description as string,
        resolve: (parent) => parent.rows,
      }),
  );
  for (const [type, name] of Object.entries(FURNITURE_TYPES))
    leaf(name, furnitureSchema, `A ${type === 'pageHeader' ? 'page header' : 'page footer'}: a running line.`);

  const block = builder.unionType('DocumentBlock', {
    description: 'A node of the body: select its fields with inline fragments (`... on DocumentHeading`).',
    types: Object.values(BLOCK_TYPES),
    resolveType: (node) => BLOCK_TYPES[(node as Block).type],
  });
  builder.unionType('DocumentFurniture', {
    description: 'A page header or footer, kept apart from the body.',
    types: Object.values(FURNITURE_TYPES),
    resolveType: (node) => FURNITURE_TYPES[(node as Furniture).type],
  });

  // The recursive nodes: items nest blocks, slides and sheets hold them.
  const listItem = builder.objectRef<ListItem>('DocumentListItem').implement({
    description: 'An item of a list: its text, then what nests under it (sub-lists, further paragraphs).',
    interfaces: [nodeInterface],
    fields: (t) => ({
      text: t.exposeString('text', { description: TEXT.text }),
      children: t.field({
        type: [block],
        nullable: true,
        description: 'Nested lists and further paragraphs of the item.',
        resolve: (item) => item.children,
      }),
    }),
  });
  builder.objectRef<{ ordered: boolean; start?: number; items: ListItem[] }>(BLOCK_TYPES.list).implement({
    description: 'A list, ordered or not; items nest blocks (sub-lists) under them.',
    interfaces: [nodeInterface],
    fields: (t) => ({
      ordered: t.exposeBoolean('ordered', { description: 'Numbered (true) or bulleted.' }),
      start: t.exposeInt('start', {
        nullable: true,
        description: 'The first number of an ordered list, when not 1.',
      }),
      items: t.field({
        type: [listItem],
        description: 'The items in order.',
        resolve: (list) => list.items,
      }),
    }),
  });
  addZodEnum(builder, 'DocumentSectionKind', z.enum(['slide', 'sheet']), {
    description: 'What a section is.',
    values: { slide: 'A slide of a presentation.', sheet: 'A sheet of a workbook.' },
  });
  builder
    .objectRef<{ kind: string; number: number; title?: string; children: Block[]; notes?: Block[] }>(
      BLOCK_TYPES.section,
    )
    .implement({
      description: "A slide or a sheet: its number, title, what it holds, and a slide's speaker notes.",
      interfaces: [nodeInterface],
      fields: (t) => ({
        kind: t.field({
          type: 'DocumentSectionKind',
          description: 'A slide or a sheet.',
          resolve: (s) => s.kind,
        }),
        number: t.exposeInt('number', { description: 'Slide number or sheet position, 1-based.' }),
        title: t.exposeString('title', { nullable: true, description: "The slide's title or the sheet's name." }),
        children: t.field({ type: [block], description: 'What it holds.', resolve: (s) => s.children }),
        notes: t.field({
          type: [block],
          nullable: true,
          description: "A slide's speaker notes, apart from what the slide shows.",
          resolve: (s) => s.notes,
        }),
      }),
    });

  addZodObject(builder, 'DocumentSource', documentSchema.shape.source, {
    description: 'What the document was read from.',
    descriptions: { filename: 'The uploaded file name, when known.' },
  });
  addZodObject(builder, 'DocumentPage', pageSchema, {
    description: 'A page of the source and its size in points.',
    descriptions: { number: 'Page number, 1-based.' },
  });
  const document = addZodObject(builder, 'Document', documentSchema, {
    description: 'A document as data: the typed tree of its content (docs/DOCUMENT-MODEL.md).',
    types: { source: 'DocumentSource', pages: 'DocumentPage', body: 'DocumentBlock', furniture: 'DocumentFurniture' },
    descriptions: { source: 'What it was read from.' },
  });

  addZodObject(builder, 'ChunkPages', chunkSchema.shape.pages.unwrap(), {
    description: 'The pages (or slides) a chunk spans.',
    descriptions: { first: 'The first page.', last: 'The last page.' },
  });
  const chunk = addZodObject(builder, 'Chunk', chunkSchema, {
    description: 'One chunk for retrieval: text to embed (heading path first), where it came from, its size.',
    types: { pages: 'ChunkPages' },
    descriptions: { index: 'Its position among the chunks, from 0.' },
  });

  const jobRef = job as ReturnType<typeof builder.objectRef<JobView>>;
  builder.objectField(jobRef, 'document', (t) =>
    t.field({
      type: document,
      nullable: true,
      description:
        'When done with a document model as its result (op=structure, to=json from a document): the model,' +
        ' typed. Null otherwise.',
      resolve: (view) => documentOf(view),
    }),
  );
  builder.objectField(jobRef, 'chunks', (t) =>
    t.field({
      type: [chunk],
      nullable: true,
      description: "When done, for op=chunk: the chunks, typed (the same as result's `chunks`). Null otherwise.",
      resolve: (view) => chunksOf(view),
    }),
  );
}
