/**
 * Extraction rows, typed by tool and made from the row zod REST, OpenAPI and tRPC use
 * (schema/wire.ts): the interface `ExtractionRow` from any tool's row (filename, status, error, and
 * the tool's fields as `data`, the fallback for third-party tools), and one type per tool whose rows
 * the spec describes (`ParseCvRow`...) with every field of its row. REST's snake_case fields
 * (years_exp, running_lines_stripped) are camelCase here. A tool's fields are null until the row is
 * completed.
 */
import { z } from 'zod';
import {
  extractionRowSchema,
  extractionRowStatusSchema,
  extractionRowSchemas,
  fileSearchMatchSchema,
  markdownStatsSchema,
  parseCvRowSchema,
  transcriptSegmentSchema,
  type ExtractionPoll,
} from '../../../schema/index.js';
import type { Builder } from './builder.js';
import { pascalCase } from './option-inputs.js';
import { addZodEnum, addZodInterface, addZodObject, camelField, type NamedTypes } from './zod-objects.js';

type ExtractionRow = ExtractionPoll['rows'][number];
/** A row with the tool whose poll it is in. */
export interface ToolRow {
  tool: string;
  row: ExtractionRow;
}

/** The GraphQL type of a tool's rows: `ParseCvRow` for the spec's tools, GenericExtractionRow for the others. */
const rowTypeOf = (tool: string) =>
  Object.hasOwn(extractionRowSchemas, tool) ? `${pascalCase(tool)}Row` : GENERIC_ROW;
const GENERIC_ROW = 'GenericExtractionRow';

/** The GraphQL types of the objects nested in the spec's rows, by field name. */
const NESTED_TYPES: NamedTypes = {
  confidence: 'ParseCvConfidence',
  segments: 'TranscriptSegment',
  matches: 'FileSearchMatch',
  stats: 'MarkdownStats',
};

/** The tool's own fields of a row: everything but filename and status. */
function rowData({ filename: _filename, status: _status, ...data }: ExtractionRow): Record<string, unknown> {
  return data;
}

/** The row's own fields once it is completed; null before (GraphQL shows them null). */
const completedRow = ({ row }: ToolRow) => (row.status === 'completed' ? row : null);

/** The shape of a tool's row without the fields of the interface. */
function ownFields(schema: z.ZodObject): z.ZodObject {
  const common = Object.keys(extractionRowSchema.shape);
  return z.object(Object.fromEntries(Object.entries(schema.shape).filter(([field]) => !common.includes(field))));
}

/** parse-cv's confidence: one score per field of the row that it rates (every field but itself). */
function addConfidence(builder: Builder) {
  const rated = Object.keys(ownFields(parseCvRowSchema).shape).filter((field) => field !== 'confidence');
  const scores = z.object(Object.fromEntries(rated.map((field) => [field, z.number().min(0).max(1).optional()])));
  addZodObject(builder, 'ParseCvConfidence', scores, {
    description: 'How sure parse-cv is of each field, 0 to 1; below 0.8 deserves human review.',
    descriptions: Object.fromEntries(rated.map((field) => [field, `Of \`${camelField(field)}\`.`])),
  });
}

export function addRowTypes(builder: Builder) {
  addZodEnum(builder, 'ExtractionRowStatus', extractionRowStatusSchema, {
    description: 'Where one file of an extraction is.',
    values: {
      queued: 'Waiting for a worker.',
      processing: 'Being read.',
      completed: "Done: the tool's fields are set.",
      failed: 'Not read: `error` says why.',
    },
  });
  const RowRef = addZodInterface<ToolRow>(builder, 'ExtractionRow', extractionRowSchema, {
    description:
      'One file of an extraction: its state, and when completed the fields the tool extracted (typed by tool).',
    resolveType: ({ tool }) => rowTypeOf(tool),
    types: { status: 'ExtractionRowStatus' },
    from: ({ row }) => row,
    extra: (t) => ({
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

  addConfidence(builder);
  addZodObject(builder, 'TranscriptSegment', transcriptSegmentSchema, {
    description: 'A timed piece of a transcript.',
  });
  addZodObject(builder, 'FileSearchMatch', fileSearchMatchSchema, { description: 'One hit of a file search.' });
  addZodObject(builder, 'MarkdownStats', markdownStatsSchema, { description: 'Counts over the Markdown of one PDF.' });

  for (const [tool, schema] of Object.entries(extractionRowSchemas)) {
    const own = ownFields(schema);
    addZodObject<z.ZodRawShape, ToolRow>(builder, rowTypeOf(tool), own, {
      description: `${schema.description ?? `A ${tool} row.`} The tool's fields are null before the row is completed.`,
      interfaces,
      types: NESTED_TYPES,
      from: completedRow,
    });
  }

  return RowRef;
}
