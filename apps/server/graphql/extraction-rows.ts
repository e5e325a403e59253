/**
 * Extraction rows, typed by tool and made from the row zod each tool's manifest declares
 * (`extraction.row`; the spec's rows are schema/wire.ts's, which OpenAPI and tRPC use too): the
 * interface `ExtractionRow` from any tool's row (filename, status, error, and the tool's fields as
 * `data`, the fallback for a tool without a row zod), and one type per tool with a row zod
 * (`ParseCvRow`...) with every field of its row. REST's snake_case fields (years_exp,
 * running_lines_stripped) are camelCase here; a nested object of a row is its named type below, or
 * one JSON value in a third-party row. A tool's fields are null until the row is completed.
 */
import { z } from 'zod';
import {
  extractionRowSchema,
  extractionRowStatusSchema,
  fileSearchMatchSchema,
  markdownStatsSchema,
  parseCvRowSchema,
  transcriptSegmentSchema,
  type ExtractionPoll,
} from '../../../schema/index.js';
import type { ExtractionToolInfo } from '../../../core/services/capabilities.js';
import type { Builder } from './builder.js';
import { pascalCase } from '../naming.js';
import { scalarOf, zodJsonSchema } from './scalars.js';
import { addZodEnum, addZodInterface, addZodObject, camelField, type NamedTypes } from './zod-objects.js';

type ExtractionRow = ExtractionPoll['rows'][number];
/** A row with the tool whose poll it is in. */
export interface ToolRow {
  tool: string;
  row: ExtractionRow;
}

const GENERIC_ROW = 'GenericExtractionRow';

/** The GraphQL types of the objects nested in the spec's rows, by their zod. */
const NESTED_TYPES = new Map<z.ZodType, string>([
  [parseCvRowSchema.shape.confidence.unwrap(), 'ParseCvConfidence'],
  [transcriptSegmentSchema, 'TranscriptSegment'],
  [fileSearchMatchSchema, 'FileSearchMatch'],
  [markdownStatsSchema, 'MarkdownStats'],
]);

/** The zod inside optional, nullable and list wrappers. */
function innermost(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable)
    return innermost(schema.unwrap() as z.ZodType);
  if (schema instanceof z.ZodArray) return innermost(schema.element as z.ZodType);
  return schema;
}

/** The named type of each field of a row that is not a scalar: a known nested object's, else JSON. */
function nestedTypes(row: z.ZodObject): NamedTypes {
  return Object.fromEntries(
    Object.entries(row.shape).flatMap(([field, schema]) => {
      const inner = innermost(schema as z.ZodType);
      if (scalarOf(zodJsonSchema(inner)).type) return [];
      return [[field, NESTED_TYPES.get(inner) ?? 'JSON']];
    }),
  );
}

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

/** One typed row per extraction tool whose manifest declares its row zod. */
export function addRowTypes(builder: Builder, tools: readonly ExtractionToolInfo[]) {
  const typed = new Map(
    tools.flatMap(({ tool, row }) => (row ? [[tool, { name: `${pascalCase(tool)}Row`, row }] as const] : [])),
  );
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
    resolveType: ({ tool }) => typed.get(tool)?.name ?? GENERIC_ROW,
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

  for (const [tool, { name, row }] of typed) {
    const own = ownFields(row);
    addZodObject<z.ZodRawShape, ToolRow>(builder, name, own, {
      description: `${row.description ?? `A ${tool} row.`} The tool's fields are null before the row is completed.`,
      interfaces,
      types: nestedTypes(own),
      from: completedRow,
    });
  }

  return RowRef;
}
