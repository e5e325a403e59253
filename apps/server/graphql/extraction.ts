/**
 * Extraction tools (POST /api/<tool>, GET /api/<tool>/{id}): one mutation per tool answering a
 * BatchAccepted, and `extraction(tool, id)` for the rows. The plan gate (or the free try) is
 * checked before a file is read; the tool's arguments are validated by its plugin.
 */
import type { FileUpload } from 'graphql-upload-ts';
import { EXTRACTION_TOOLS, type ExtractionPoll, type ExtractionTool } from '../../../schema/index.js';
import { badRequest } from '../../../core/services/errors.js';
import { isExtractionTool } from '../../../core/services/extractions.js';
import type { BatchAccepted, addBatch } from './batch.js';
import type { Builder, GraphQLContext } from './builder.js';
import { stageUploads } from './uploads.js';

type ExtractionRow = ExtractionPoll['rows'][number];

const ROW_STATES = ['queued', 'processing', 'completed', 'failed'] as const;

const TRIAL = 'Free plan: one free call with one file per tool (a second call is FORBIDDEN with `extensions.reason` "trial_used", several files "trial_single_file").';

/** The tool's own fields of a row: everything but filename and status. */
function rowData({ filename: _filename, status: _status, ...data }: ExtractionRow): Record<string, unknown> {
  return data;
}

/** Arguments the client sent; the plugin's defaults apply to the others. */
function sent(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([, value]) => value != null));
}

async function submit(
  { services, principal }: GraphQLContext, tool: ExtractionTool, files: Array<Promise<FileUpload>>, fields: Record<string, unknown>,
): Promise<BatchAccepted> {
  const maxFiles = services.extractions.admit(principal, tool);
  const uploads = await stageUploads(services, principal, files, maxFiles, () => services.extractions.tooManyFiles(principal, tool));
  const { statusUrl: _statusUrl, ...accepted } = await services.extractions.accept(principal, tool, { uploads, fields: sent(fields), fieldsAreStrings: false, viaApi: true });
  return accepted;
}

const limits = (tool: ExtractionTool) => `at most ${EXTRACTION_TOOLS[tool].maxFiles} files, charged per file`;

export function addExtraction(builder: Builder, BatchAcceptedRef: ReturnType<typeof addBatch>) {
  const RowState = builder.enumType('ExtractionRowStatus', { values: ROW_STATES });

  const RowRef = builder.objectRef<ExtractionRow>('ExtractionRow').implement({
    description: 'One file of an extraction: its state, and when completed the fields the tool extracted.',
    fields: (t) => ({
      filename: t.string({ resolve: (row) => row.filename }),
      status: t.field({ type: RowState, resolve: (row) => row.status }),
      error: t.string({
        nullable: true,
        description: 'When failed: why. (A completed file-search row may carry one too: the file could not be searched.)',
        resolve: (row) => (typeof row.error === 'string' ? row.error : null),
      }),
      data: t.field({
        type: 'JSON',
        nullable: true,
        description:
          "When completed: the tool's fields for this file as one object, i.e. the REST row without filename and status " +
          '(pdf-to-markdown: markdown, pages, stats; file-search: kind, count, truncated, error, matches; parse-cv: the parsed CV). Null otherwise.',
        resolve: (row) => (row.status === 'completed' ? rowData(row) : null),
      }),
    }),
  });

  const PollRef = builder.objectRef<ExtractionPoll>('ExtractionPoll').implement({
    description: 'An extraction batch now: poll until done (results are kept for 1 hour).',
    fields: (t) => ({
      done: t.exposeBoolean('done', { description: 'Every file completed or failed.' }),
      total: t.exposeInt('total'),
      completed: t.exposeInt('completed'),
      failed: t.exposeInt('failed'),
      rows: t.field({ type: [RowRef], description: 'One per accepted file, in the order sent.', resolve: (poll) => poll.rows }),
      totalHits: t.int({ nullable: true, description: 'file-search only: the hits over every file.', resolve: (poll) => poll.totalHits ?? null }),
    }),
  });

  builder.queryField('extraction', (t) =>
    t.field({
      type: PollRef,
      nullable: true,
      description:
        `An extraction batch of the caller (same as GET /api/<tool>/{id}): NOT_FOUND when unknown or older than an hour, FORBIDDEN for another key holder's batch.`,
      args: {
        tool: t.arg.string({ required: true, description: `The tool the batch was sent to: ${Object.keys(EXTRACTION_TOOLS).join(', ')}.` }),
        id: t.arg.id({ required: true, description: 'batchId of the mutation answer.' }),
      },
      resolve: (_root, { tool, id }, { services, principal }) => {
        if (!isExtractionTool(tool)) throw badRequest(`Unknown extraction tool '${tool}': use one of ${Object.keys(EXTRACTION_TOOLS).join(', ')}`);
        return services.extractions.poll(principal, tool, String(id));
      },
    }),
  );

  builder.mutationField('parseCv', (t) =>
    t.field({
      type: BatchAcceptedRef,
      nullable: true,
      description: `Parse CVs (PDF, DOCX, DOC) into structured fields (Pro and up; same as POST /api/parse-cv): ${limits('parse-cv')}. ${TRIAL} Follow with \`extraction(tool: "parse-cv", id)\`.`,
      args: { files: t.arg({ type: ['Upload'], required: true }) },
      resolve: (_root, { files }, context) => submit(context, 'parse-cv', files, {}),
    }),
  );

  builder.mutationField('transcribe', (t) =>
    t.field({
      type: BatchAcceptedRef,
      nullable: true,
      description: `Transcribe audio or video (Business and up; same as POST /api/transcribe): ${limits('transcribe')}. ${TRIAL} Follow with \`extraction(tool: "transcribe", id)\`.`,
      args: {
        files: t.arg({ type: ['Upload'], required: true }),
        lang: t.arg.string({ description: 'Spoken language (e.g. "en"), for engines that take one; validated by the installed transcription plugin.' }),
      },
      resolve: (_root, { files, lang }, context) => submit(context, 'transcribe', files, { lang }),
    }),
  );

  builder.mutationField('fileSearch', (t) =>
    t.field({
      type: BatchAcceptedRef,
      nullable: true,
      description: `Search files for a text (Pro and up; same as POST /api/file-search): ${limits('file-search')}. ${TRIAL} Follow with \`extraction(tool: "file-search", id)\`; its totalHits sums the files.`,
      args: {
        files: t.arg({ type: ['Upload'], required: true }),
        query: t.arg.string({ required: true, description: 'The text to find.' }),
        wholeWord: t.arg.boolean({ description: 'Match whole words only (default false).' }),
        caseSensitive: t.arg.boolean({ description: 'Match case (default false).' }),
      },
      resolve: (_root, { files, query, wholeWord, caseSensitive }, context) => submit(context, 'file-search', files, { query, wholeWord, caseSensitive }),
    }),
  );

  builder.mutationField('pdfToMarkdown', (t) =>
    t.field({
      type: BatchAcceptedRef,
      nullable: true,
      description: `Convert PDFs to Markdown (Pro and up; same as POST /api/pdf-to-markdown): ${limits('pdf-to-markdown')}. ${TRIAL} Follow with \`extraction(tool: "pdf-to-markdown", id)\`; each row's data.markdown is the text.`,
      args: {
        files: t.arg({ type: ['Upload'], required: true }),
        keepRunning: t.arg.boolean({ description: 'Keep running headers and footers (default false: stripped).' }),
        pageBreaks: t.arg.boolean({ description: 'Mark page breaks with <!-- page N --> comments (default true).' }),
      },
      resolve: (_root, { files, keepRunning, pageBreaks }, context) => submit(context, 'pdf-to-markdown', files, { keepRunning, pageBreaks }),
    }),
  );
}
