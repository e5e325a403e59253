/**
 * Extraction tools (POST /api/<tool>, GET /api/<tool>/{id}): the poll's type. Their fields come from
 * the operation table (operations/extraction.ts: one mutation per tool, the tool's name in camelCase,
 * its arguments beside `files` the fields of the plugin's `<Plugin>Options` type; and
 * `extraction(tool, id)`, served by the tool's own poll).
 */
import type { ExtractionPoll } from '../../../schema/index.js';
import type { Builder } from './builder.js';
import { addRowTypes } from './extraction-rows.js';

/** A poll with the tool it was asked for: the tool decides the rows' types. */
interface ToolPoll {
  tool: string;
  poll: ExtractionPoll;
}

/** The extraction poll's object type; the fields are the table's (operations/extraction.ts). */
export function addExtraction(builder: Builder) {
  const RowRef = addRowTypes(builder);

  builder.objectRef<ToolPoll>('ExtractionPoll').implement({
    description: 'An extraction batch now: poll until done (results are kept for 1 hour).',
    fields: (t) => ({
      done: t.boolean({ description: 'Every file completed or failed.', resolve: ({ poll }) => poll.done }),
      total: t.int({ description: 'Files accepted.', resolve: ({ poll }) => poll.total }),
      completed: t.int({ description: 'Files completed.', resolve: ({ poll }) => poll.completed }),
      failed: t.int({ description: 'Files failed.', resolve: ({ poll }) => poll.failed }),
      rows: t.field({
        type: [RowRef],
        description:
          'One per accepted file, in the order sent; typed by tool (`... on PdfToMarkdownRow { markdown }`).',
        resolve: ({ tool, poll }) => poll.rows.map((row) => ({ tool, row })),
      }),
      totalHits: t.int({
        nullable: true,
        description: 'File-search only: the hits over every file.',
        resolve: ({ poll }) => poll.totalHits ?? null,
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
