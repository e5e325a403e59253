import { z } from 'zod';

/**
 * The document model: one typed tree that every reader produces (PDF, office, web, slides,
 * sheets, OCR) and every renderer (Markdown, HTML, text, chunks) reads. docs/DOCUMENT-MODEL.md
 * explains each node and where it differs from DoclingDocument and Unstructured's elements.
 *
 * Versioned: `schemaVersion` changes its major number when a field changes meaning or goes away;
 * new optional fields and node types bump the minor number (readers of 1.x ignore what they do not know).
 */
export const DOCUMENT_SCHEMA_VERSION = '1.0';

/** A rectangle on a page in PDF points (1/72 in), origin at the page's top-left corner, y downwards. */
export const boundingBoxSchema = z
  .object({
    x0: z.number().meta({ description: 'Left edge, points from the left of the page.' }),
    y0: z.number().meta({ description: 'Top edge, points from the top of the page.' }),
    x1: z.number().meta({ description: 'Right edge.' }),
    y1: z.number().meta({ description: 'Bottom edge.' }),
  })
  .meta({ description: 'A rectangle in points, origin top-left, y downwards.' });
export type BoundingBox = z.infer<typeof boundingBoxSchema>;

/** Every node: a stable id, and where the source has pages, the page (1-based) and the box it sits in. */
const located = {
  id: z.string().meta({
    description:
      'Stable id: the same input always yields the same ids (assigned in reading order), so a chunk can point' +
      ' back at its nodes.',
  }),
  page: z
    .number()
    .int()
    .min(1)
    .optional()
    .meta({ description: 'Page (or slide) number, 1-based, where the source has them.' }),
  box: boundingBoxSchema.optional().meta({ description: 'Where the node sits on its page, when the reader knows.' }),
};

export const headingSchema = z.object({
  type: z.literal('heading'),
  ...located,
  level: z.number().int().min(1).max(6).meta({ description: '1 for a top-level heading, up to 6.' }),
  text: z.string(),
});

export const paragraphSchema = z.object({ type: z.literal('paragraph'), ...located, text: z.string() });

export const tableCellSchema = z.object({
  text: z.string(),
  rowSpan: z.number().int().min(1).optional().meta({ description: 'Rows the cell covers (default 1).' }),
  colSpan: z.number().int().min(1).optional().meta({ description: 'Columns the cell covers (default 1).' }),
  header: z.boolean().optional().meta({ description: 'A header cell (column or row header).' }),
});
export type TableCell = z.infer<typeof tableCellSchema>;

export const tableSchema = z.object({
  type: z.literal('table'),
  ...located,
  /**
   * Rows of the cells that start in them, left to right: a cell spanning two rows appears once, in
   * its first row (as HTML's table model), so a row may hold fewer cells than the table has columns.
   */
  rows: z.array(z.array(tableCellSchema)).meta({
    description:
      "Rows of cells, each cell listed once in the row where it starts (HTML's model: spans take the places they" +
      ' cover).',
  }),
  headerRows: z.number().int().min(0).meta({ description: 'How many of the first rows are header rows.' }),
  caption: z.string().optional(),
  name: z
    .string()
    .optional()
    .meta({ description: "A sheet's or named range's name, for tables read from spreadsheets." }),
});

export const figureSchema = z.object({
  type: z.literal('figure'),
  ...located,
  caption: z.string().optional(),
  alt: z.string().optional().meta({ description: 'The alternative text the source gives.' }),
  image: z
    .object({ mime: z.string(), data: z.string().meta({ description: 'Base64.' }) })
    .optional()
    .meta({ description: 'The image itself (base64), when the reader embeds it (no standard reader does yet).' }),
});

export const codeSchema = z.object({
  type: z.literal('code'),
  ...located,
  text: z.string(),
  language: z.string().optional(),
});
export const formulaSchema = z.object({
  type: z.literal('formula'),
  ...located,
  text: z.string().meta({ description: 'The formula as the source writes it (TeX from pandoc readers).' }),
});
export const footnoteSchema = z.object({
  type: z.literal('footnote'),
  ...located,
  label: z.string().optional().meta({ description: 'Its mark in the text (1, 2, *), when the source shows one.' }),
  text: z.string(),
});

/** A list item: its own text, then what nests under it (sub-lists, further paragraphs). */
export interface ListItem {
  id: string;
  text: string;
  page?: number;
  box?: BoundingBox;
  children?: Block[];
}
export interface List {
  type: 'list';
  id: string;
  page?: number;
  box?: BoundingBox;
  ordered: boolean;
  start?: number;
  items: ListItem[];
}
export interface Section {
  type: 'section';
  id: string;
  page?: number;
  box?: BoundingBox;
  kind: 'slide' | 'sheet';
  /** Slide number or sheet position, 1-based. */
  number: number;
  title?: string;
  children: Block[];
  notes?: Block[];
}

export const listItemSchema: z.ZodType<ListItem> = z
  .lazy(() =>
    z.object({
      ...located,
      text: z.string(),
      children: z
        .array(blockSchema)
        .optional()
        .meta({ description: 'Nested lists and further paragraphs of the item.' }),
    }),
  )
  .meta({ id: 'DocumentListItem' });

export const listSchema: z.ZodType<List> = z
  .lazy(() =>
    z.object({
      type: z.literal('list'),
      ...located,
      ordered: z.boolean(),
      start: z.number().int().optional().meta({ description: 'The first number of an ordered list, when not 1.' }),
      items: z.array(listItemSchema),
    }),
  )
  .meta({ id: 'DocumentList' });

export const sectionSchema: z.ZodType<Section> = z
  .lazy(() =>
    z.object({
      type: z.literal('section'),
      ...located,
      kind: z.enum(['slide', 'sheet']).meta({ description: 'A slide of a presentation, or a sheet of a workbook.' }),
      number: z.number().int().min(1),
      title: z.string().optional().meta({ description: "The slide's title or the sheet's name." }),
      children: z.array(blockSchema),
      notes: z
        .array(blockSchema)
        .optional()
        .meta({ description: "A slide's speaker notes, kept apart from what the slide shows." }),
    }),
  )
  .meta({ id: 'DocumentSection' });

export type Heading = z.infer<typeof headingSchema>;
export type Paragraph = z.infer<typeof paragraphSchema>;
export type Table = z.infer<typeof tableSchema>;
export type Figure = z.infer<typeof figureSchema>;
export type Code = z.infer<typeof codeSchema>;
export type Formula = z.infer<typeof formulaSchema>;
export type Footnote = z.infer<typeof footnoteSchema>;
export type Block = Heading | Paragraph | List | Table | Figure | Code | Formula | Footnote | Section;

export const blockSchema: z.ZodType<Block> = z
  .lazy(() =>
    z.union([
      headingSchema,
      paragraphSchema,
      listSchema,
      tableSchema,
      figureSchema,
      codeSchema,
      formulaSchema,
      footnoteSchema,
      sectionSchema,
    ]),
  )
  .meta({ id: 'DocumentBlock' });

/** What repeats at the top or the bottom of pages: kept out of the body, never mixed into it. */
export const furnitureSchema = z.object({
  type: z.enum(['pageHeader', 'pageFooter']),
  ...located,
  text: z.string(),
});
export type Furniture = z.infer<typeof furnitureSchema>;

export const pageSchema = z.object({
  number: z.number().int().min(1),
  width: z.number().meta({ description: 'Points.' }),
  height: z.number().meta({ description: 'Points.' }),
});

export const documentSchema = z
  .object({
    schemaVersion: z.literal(DOCUMENT_SCHEMA_VERSION).meta({ description: 'Version of this model.' }),
    source: z.object({
      format: z.string().meta({ description: 'The input format (pdf, docx, pptx, xlsx, html...).' }),
      filename: z.string().optional(),
    }),
    title: z.string().optional().meta({ description: "The document's title from its metadata." }),
    pages: z
      .array(pageSchema)
      .optional()
      .meta({ description: 'The pages, for sources that have them (PDF): their sizes in points.' }),
    body: z.array(blockSchema).meta({ description: 'The content in reading order.' }),
    furniture: z
      .array(furnitureSchema)
      .meta({ description: 'Page headers and footers (running lines), apart from the body.' }),
  })
  .meta({ description: 'A document as data: a typed tree of its content (docs/DOCUMENT-MODEL.md).' });
export type Document = z.infer<typeof documentSchema>;

/** One chunk for retrieval: text to embed with its heading path, where it came from, its size. */
export const chunkSchema = z.object({
  index: z.number().int().min(0),
  text: z.string().meta({ description: 'Text to embed: the heading path, then the content.' }),
  content: z.string().meta({ description: 'The content alone, without the heading path.' }),
  tokens: z.number().int().min(0).meta({ description: 'Tokens of `text` under the chosen tokenizer.' }),
  headings: z.array(z.string()).meta({ description: 'The heading path, outermost first.' }),
  pages: z
    .object({ first: z.number().int(), last: z.number().int() })
    .optional()
    .meta({ description: 'The pages (or slides) the chunk spans, where the source has them.' }),
  nodes: z.array(z.string()).meta({ description: 'Ids of the model nodes the chunk holds (whole or in part).' }),
});
export type Chunk = z.infer<typeof chunkSchema>;
export const chunkListSchema = z.object({ chunks: z.array(chunkSchema) });
export type ChunkList = z.infer<typeof chunkListSchema>;
