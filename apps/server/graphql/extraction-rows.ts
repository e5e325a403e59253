/**
 * Extraction rows, typed by tool: the interface `ExtractionRow` (filename, status, error, and the
 * tool's fields as `data`, the fallback for third-party tools) and one type per tool of the spec
 * (schema/wire.ts, extractionRowSchemas) with every field of its row. REST's snake_case fields
 * (years_exp, running_lines_stripped) are camelCase here. A tool's fields are null until the row
 * is completed.
 */
import type { z } from 'zod';
import type {
  ExtractionPoll,
  fileSearchMatchSchema,
  fileSearchRowSchema,
  markdownStatsSchema,
  parseCvRowSchema,
  pdfToMarkdownRowSchema,
  transcribeRowSchema,
  transcriptSegmentSchema,
} from '../../../schema/index.js';
import type { Builder } from './builder.js';

type ExtractionRow = ExtractionPoll['rows'][number];
/** A row with the tool whose poll it is in. */
export interface ToolRow {
  tool: string;
  row: ExtractionRow;
}

const ROW_STATES = {
  queued: 'Waiting for a worker.',
  processing: 'Being read.',
  completed: "Done: the tool's fields are set.",
  failed: 'Not read: `error` says why.',
} as const;

/** The GraphQL type of each tool's rows; other tools' rows are GenericExtractionRow. */
const ROW_TYPES: Record<string, string> = {
  'parse-cv': 'ParseCvRow',
  transcribe: 'TranscribeRow',
  'file-search': 'FileSearchRow',
  'pdf-to-markdown': 'PdfToMarkdownRow',
};
const GENERIC_ROW = 'GenericExtractionRow';

/** The tool's own fields of a row: everything but filename and status. */
function rowData({ filename: _filename, status: _status, ...data }: ExtractionRow): Record<string, unknown> {
  return data;
}

/** The row's fields as the tool's row schema types them, once completed (null before). */
function completed<S extends z.ZodType>(_schema: S) {
  return ({ row }: ToolRow): Partial<z.infer<S>> | null =>
    row.status === 'completed' ? (row as unknown as Partial<z.infer<S>>) : null;
}
const cvFields = completed({} as typeof parseCvRowSchema);
const transcriptFields = completed({} as typeof transcribeRowSchema);
const searchFields = completed({} as typeof fileSearchRowSchema);
const markdownFields = completed({} as typeof pdfToMarkdownRowSchema);

export function addRowTypes(builder: Builder) {
  const RowState = builder.enumType('ExtractionRowStatus', {
    description: 'Where one file of an extraction is.',
    values: Object.fromEntries(
      Object.entries(ROW_STATES).map(([state, description]) => [state, { description }]),
    ) as Record<keyof typeof ROW_STATES, { description: string }>,
  });
  const RowRef = builder.interfaceRef<ToolRow>('ExtractionRow').implement({
    description:
      'One file of an extraction: its state, and when completed the fields the tool extracted (typed by tool).',
    resolveType: ({ tool }) => ROW_TYPES[tool] ?? GENERIC_ROW,
    fields: (t) => ({
      filename: t.string({ description: 'The file as uploaded.', resolve: ({ row }) => row.filename }),
      status: t.field({ type: RowState, description: 'Where the file is.', resolve: ({ row }) => row.status }),
      error: t.string({
        nullable: true,
        description:
          'When failed: why. (A completed file-search row may carry one too: the file could not be searched.)',
        resolve: ({ row }) => (typeof row.error === 'string' ? row.error : null),
      }),
      data: t.field({
        type: 'JSON',
        nullable: true,
        description:
          "When completed: the tool's fields for this file as one object, i.e. the REST row without filename and " +
          'status. Null otherwise.',
        resolve: ({ row }) => (row.status === 'completed' ? rowData(row) : null),
      }),
    }),
  });
  const interfaces = [RowRef];

  builder.objectRef<ToolRow>(GENERIC_ROW).implement({
    description: 'A row of a tool without a type of its own (a third-party extract plugin): its fields are in `data`.',
    interfaces,
    fields: () => ({}),
  });

  const Confidence = builder.objectRef<Record<string, number>>('ParseCvConfidence').implement({
    description: 'How sure parse-cv is of each field, 0 to 1; below 0.8 deserves human review.',
    fields: (t) => {
      const score = (field: string, description: string) =>
        t.float({ nullable: true, description, resolve: (confidence) => confidence[field] ?? null });
      return {
        name: score('name', 'Of `name`.'),
        email: score('email', 'Of `email`.'),
        phone: score('phone', 'Of `phone`.'),
        title: score('title', 'Of `title`.'),
        employer: score('employer', 'Of `employer`.'),
        location: score('location', 'Of `location`.'),
        linkedin: score('linkedin', 'Of `linkedin`.'),
        skills: score('skills', 'Of `skills`.'),
        yearsExp: score('years_exp', 'Of `yearsExp`.'),
      };
    },
  });

  builder.objectRef<ToolRow>('ParseCvRow').implement({
    description:
      'A parse-cv row: the CV fields found (null when not found, or before the row is completed) and how sure each is.',
    interfaces,
    fields: (t) => {
      const text = (
        field: 'name' | 'email' | 'phone' | 'title' | 'employer' | 'location' | 'linkedin',
        description: string,
      ) => t.string({ nullable: true, description, resolve: (row) => cvFields(row)?.[field] ?? null });
      return {
        name: text('name', "The candidate's name."),
        email: text('email', 'Email address.'),
        phone: text('phone', 'Phone number.'),
        title: text('title', 'Current job title.'),
        employer: text('employer', 'Current employer.'),
        location: text('location', 'Where the candidate is.'),
        linkedin: text('linkedin', 'LinkedIn profile URL.'),
        skills: t.stringList({
          nullable: true,
          description: 'Skills listed.',
          resolve: (row) => cvFields(row)?.skills ?? null,
        }),
        yearsExp: t.float({
          nullable: true,
          description: 'Years of experience (REST: years_exp).',
          resolve: (row) => cvFields(row)?.years_exp ?? null,
        }),
        confidence: t.field({
          type: Confidence,
          nullable: true,
          description: 'How sure each field is.',
          resolve: (row) => cvFields(row)?.confidence ?? null,
        }),
      };
    },
  });

  const Segment = builder.objectRef<z.infer<typeof transcriptSegmentSchema>>('TranscriptSegment').implement({
    description: 'A timed piece of a transcript.',
    fields: (t) => ({
      start: t.exposeFloat('start', { description: 'Seconds from the start.' }),
      end: t.exposeFloat('end', { description: 'Seconds from the start.' }),
      text: t.exposeString('text', { description: 'What was said.' }),
    }),
  });

  builder.objectRef<ToolRow>('TranscribeRow').implement({
    description: 'A transcribe row: the transcript and its timed segments (null before the row is completed).',
    interfaces,
    fields: (t) => ({
      language: t.string({
        nullable: true,
        description: 'ISO 639-1 code of the language transcribed.',
        resolve: (row) => transcriptFields(row)?.language ?? null,
      }),
      duration: t.float({
        nullable: true,
        description: 'Seconds of media.',
        resolve: (row) => transcriptFields(row)?.duration ?? null,
      }),
      text: t.string({
        nullable: true,
        description: 'The whole transcript.',
        resolve: (row) => transcriptFields(row)?.text ?? null,
      }),
      segments: t.field({
        type: [Segment],
        nullable: true,
        description: 'The transcript in timed pieces.',
        resolve: (row) => transcriptFields(row)?.segments ?? null,
      }),
    }),
  });

  const Match = builder.objectRef<z.infer<typeof fileSearchMatchSchema>>('FileSearchMatch').implement({
    description: 'One hit of a file search.',
    fields: (t) => ({
      location: t.exposeString('location', { description: 'Where in the file (page, sheet and cell, line...).' }),
      snippet: t.exposeString('snippet', { description: 'Plain text around the hit.' }),
      offset: t.exposeInt('offset', { description: 'Where the hit starts in the snippet.' }),
      length: t.exposeInt('length', { description: "The hit's length in the snippet." }),
    }),
  });

  builder.objectRef<ToolRow>('FileSearchRow').implement({
    description:
      'A file-search row: the hits in one file (null before the row is completed). A non-null `error` with count 0 ' +
      'means the file was not searched.',
    interfaces,
    fields: (t) => ({
      kind: t.string({
        nullable: true,
        description: 'What the file was read as (pdf, docx, image...).',
        resolve: (row) => searchFields(row)?.kind ?? null,
      }),
      count: t.int({
        nullable: true,
        description: 'Hits in this file.',
        resolve: (row) => searchFields(row)?.count ?? null,
      }),
      truncated: t.boolean({
        nullable: true,
        description: 'More hits than `matches` lists.',
        resolve: (row) => searchFields(row)?.truncated ?? null,
      }),
      matches: t.field({
        type: [Match],
        nullable: true,
        description: 'The hits listed.',
        resolve: (row) => searchFields(row)?.matches ?? null,
      }),
    }),
  });

  const Stats = builder.objectRef<z.infer<typeof markdownStatsSchema>>('MarkdownStats').implement({
    description: 'Counts over the Markdown of one PDF.',
    fields: (t) => ({
      headings: t.exposeInt('headings', { description: 'Headings written.' }),
      tables: t.exposeInt('tables', { description: 'Tables written.' }),
      words: t.exposeInt('words', { description: 'Words written.' }),
      runningLinesStripped: t.int({
        description: 'Running header and footer lines removed (REST: running_lines_stripped).',
        resolve: (stats) => stats.running_lines_stripped,
      }),
      ocrPages: t.int({
        nullable: true,
        description: 'Pages without a text layer, read by OCR (REST: ocr_pages).',
        resolve: (stats) => stats.ocr_pages ?? null,
      }),
    }),
  });

  builder.objectRef<ToolRow>('PdfToMarkdownRow').implement({
    description: 'A pdf-to-markdown row: the Markdown of one PDF (null before the row is completed).',
    interfaces,
    fields: (t) => ({
      pages: t.int({
        nullable: true,
        description: 'Pages read.',
        resolve: (row) => markdownFields(row)?.pages ?? null,
      }),
      markdown: t.string({
        nullable: true,
        description: 'The Markdown of the PDF.',
        resolve: (row) => markdownFields(row)?.markdown ?? null,
      }),
      stats: t.field({
        type: Stats,
        nullable: true,
        description: 'Counts over the Markdown.',
        resolve: (row) => markdownFields(row)?.stats ?? null,
      }),
    }),
  });

  return RowRef;
}
