/**
 * Extraction tools (POST /api/<tool>, GET /api/<tool>/{id}): the poll's type. Their fields come from
 * the operation table (operations/extraction.ts: one mutation per tool, the tool's name in camelCase,
 * its arguments beside `files` the fields of the plugin's `<Plugin>Options` type; and
 * `extraction(tool, id)`, served by the tool's own poll).
 */
import type { z } from 'zod';
import { extractionPollSchema, type ExtractionPoll } from '../../../schema/index.js';
import type { CapabilityService } from '../../../core/services/capabilities.js';
import type { Builder } from './builder.js';
import { addRowTypes } from './extraction-rows.js';
import { addZodObject } from './zod-objects.js';

/** A poll with the tool it was asked for: the tool decides the rows' types. */
interface ToolPoll {
  tool: string;
  poll: ExtractionPoll;
}

/** The extraction poll's object type, from the poll's zod; the fields are the table's (operations/extraction.ts). */
export function addExtraction(builder: Builder, capabilities: CapabilityService) {
  const RowRef = addRowTypes(builder, capabilities.extractionTools());

  addZodObject<z.ZodRawShape, ToolPoll>(builder, 'ExtractionPoll', extractionPollSchema, {
    description: 'An extraction batch now: poll until done (results are kept for 1 hour).',
    from: ({ poll }) => poll,
    omit: ['rows'],
    extra: (t) => ({
      rows: t.field({
        type: [RowRef],
        description:
          'One per accepted file, in the order sent; typed by tool (`... on PdfToMarkdownRow { markdown }`).',
        resolve: ({ tool, poll }) => poll.rows.map((row) => ({ tool, row })),
      }),
      summary: t.field({
        type: 'JSON',
        nullable: true,
        description:
          'The totals the tool declares over its rows, as one object (file-search: totalHits); ' +
          'null when it declares none.',
        resolve: ({
          poll: { done: _done, total: _total, completed: _completed, failed: _failed, rows: _rows, ...totals },
        }) => (Object.keys(totals).length ? totals : null),
      }),
    }),
  });
}
