import { z } from 'zod';
import { exportStatusSchema } from './exports.js';
import { planIdSchema } from './plans.js';

/** Shapes of the HTTP contract (the spec), shared by every surface. */

/**
 * Strings with a JSON Schema `format` (documentation only: the values are made by the server).
 * `uri-reference` for the relative paths (`statusUrl`, a batch's `downloadUrl`).
 */
export const dateTimeString = () => z.string().meta({ format: 'date-time' });
export const uriString = () => z.string().meta({ format: 'uri' });
export const uriReferenceString = () => z.string().meta({ format: 'uri-reference' });

export const errorBodySchema = z.object({ error: z.string(), code: z.string().optional() });

export const jobStateSchema = z.enum(['waiting', 'active', 'done', 'failed']);
export type JobState = z.infer<typeof jobStateSchema>;

export const acceptedJobSchema = z.object({
  jobId: z.string().meta({ description: 'The job.' }),
  status: z.literal('queued').meta({ description: 'Accepted.' }),
  creditCost: z.number().int().meta({ description: 'Credits charged.' }),
  creditsRemaining: z.number().int().meta({ description: 'Credits left this month after this job.' }),
  statusUrl: uriReferenceString().meta({ description: 'Where to poll the job.' }),
});
export type AcceptedJob = z.infer<typeof acceptedJobSchema>;

export const toolReportSchema = z.object({
  op: z.string().meta({ description: 'The op that ran.' }),
  detected: z.number().int().meta({ description: 'What it found and changed (faces, matches, watermarks).' }),
});
export type ToolReport = z.infer<typeof toolReportSchema>;

/** A pipeline step in the job status: what it does, where it stands. */
export const pipelineStepStatusSchema = z.object({
  index: z.number().int(),
  to: z.string().optional(),
  op: z.string().optional(),
  extract: z.string().optional(),
  status: jobStateSchema,
  progress: z.number().int().min(0).max(100),
});
export type PipelineStepStatus = z.infer<typeof pipelineStepStatusSchema>;

export const jobStatusSchema = z.object({
  status: jobStateSchema.meta({ description: 'Where the job is.' }),
  progress: z.number().int().min(0).max(100).optional().meta({ description: '0-100 while waiting or active.' }),
  downloadUrl: uriString().optional().meta({ description: 'When done: the output, for 15 minutes from completion.' }),
  expiresIn: z.number().int().optional().meta({ description: 'When done: lifetime of downloadUrl in seconds (900).' }),
  toolReport: toolReportSchema.optional().meta({ description: 'When done, for a detecting op: what it found.' }),
  error: z.string().optional().meta({ description: 'When failed: why.' }),
  /** Pipelines only: each step's state. */
  steps: z
    .array(pipelineStepStatusSchema)
    .optional()
    .meta({ description: 'Pipelines: each step as [{index, to|op|extract, status, progress}].' }),
  /** Pipelines ending in an extraction step: the tool's JSON row. */
  result: z
    .record(z.string(), z.unknown())
    .optional()
    .meta({ description: "Pipelines ending in an extraction step, when done: the tool's row." }),
  /** Jobs sent with `export`: the upload's state. */
  export: exportStatusSchema
    .optional()
    .meta({ description: 'Jobs sent with an export: {status, location, etag, error}.' }),
});
export type JobStatus = z.infer<typeof jobStatusSchema>;

export const creditsSchema = z.object({
  plan: z.string().meta({ description: 'The plan\'s name, e.g. "Pro".' }),
  creditsIncluded: z.number().int().meta({ description: 'Monthly allowance.' }),
  creditsUsed: z.number().int().meta({ description: 'Used this month.' }),
  creditsRemaining: z.number().int().meta({ description: 'Left this month.' }),
  resetDate: dateTimeString().meta({ description: 'Next reset: the 1st of the next month, UTC.' }),
  overageEnabled: z.boolean().meta({ description: 'Pay-as-you-go on or off.' }),
  /** Absent where the plan has no pay-as-you-go (Enterprise). */
  overageRatePer1000: z.number().optional().meta({
    description: 'EUR per 1,000 credits past the allowance; null where the plan has no pay-as-you-go (Enterprise).',
  }),
  overageCredits: z.number().int().meta({ description: 'Credits metered past the allowance.' }),
});
export type Credits = z.infer<typeof creditsSchema>;

export const historyRecordSchema = z.object({
  time: dateTimeString().meta({ description: 'When the job was accepted.' }),
  conv: z.string().meta({ description: 'The conversion, e.g. "PNG to WEBP" or "compress (JPG)".' }),
  jobId: z.string().meta({ description: 'The job (`job(id)` while it is kept).' }),
  viaApi: z.boolean().meta({ description: 'Sent with an API key (false: from the web app).' }),
});
export const historySchema = z.object({
  total: z.number().int().meta({ description: 'Jobs in the whole history.' }),
  limit: z.number().int().meta({ description: 'The page size asked for.' }),
  offset: z.number().int().meta({ description: 'Jobs skipped before this page.' }),
  hasMore: z.boolean().meta({ description: 'More pages follow.' }),
  history: z.array(historyRecordSchema).meta({ description: 'The jobs of this page.' }),
});
export type History = z.infer<typeof historySchema>;
export const historyQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

export const signedUrlRequestSchema = z.object({
  jobId: z.string().min(1),
  expirySeconds: z.number().int().min(60).optional(),
  reusable: z.boolean().default(true),
});
export const signedUrlSchema = z.object({
  url: uriString().meta({ description: 'The link.' }),
  expiresIn: z.number().int().meta({ description: 'Seconds.' }),
  expiresAt: dateTimeString().meta({ description: 'When the link stops working.' }),
  reusable: z.boolean().meta({ description: 'False: the link works once.' }),
});
export type SignedUrl = z.infer<typeof signedUrlSchema>;

export const fileRejectionSchema = z.object({
  filename: z.string().meta({ description: 'The file as uploaded.' }),
  error: z.string().meta({ description: 'Why it was not accepted.' }),
});
export const batchAcceptedSchema = z.object({
  batchId: z.string().meta({ description: 'The batch, to poll.' }),
  total: z.number().int().meta({ description: 'Files accepted (one job each, each charged).' }),
  statusUrl: uriReferenceString().meta({ description: 'Where to poll the batch.' }),
  errors: z.array(fileRejectionSchema).meta({ description: 'The files not accepted (not charged).' }),
});
export const batchStatusSchema = z.object({
  total: z.number().int().meta({ description: 'Files in the batch.' }),
  completed: z.number().int().meta({ description: 'Jobs done or failed.' }),
  done: z.boolean().meta({ description: 'Every job done or failed.' }),
  downloadUrl: uriReferenceString()
    .nullable()
    .meta({ description: 'When done: the ZIP of the outputs (GET it with the API key).' }),
  /** Batches sent with `export`: the upload of the ZIP. */
  export: exportStatusSchema.optional().meta({
    description: 'Batches sent with an export: the upload of the ZIP, {status, location, etag, error}.',
  }),
});

/** The capability index (GET /api/v1/formats, tRPC formats.list), as the registry reports it. */
export const operationInfoSchema = z.object({
  pluginId: z.string().describe('The plugin id.'),
  kind: z.enum(['convert', 'tool', 'extract']).describe('One of convert, tool or extract.'),
  op: z.string().optional().describe('The `op` value of a tool.'),
  title: z.string().describe('What it does, for people.'),
  inputs: z.array(z.string()).describe('The input formats it reads.'),
  outputs: z.array(z.string()).describe('Empty for an in-place op (output = input format).'),
  plan: planIdSchema.describe('Lowest plan allowed.'),
  options: z.record(z.string(), z.unknown()).describe("JSON Schema of the operation's option fields."),
  available: z.boolean().describe('False when an engine it needs is not installed.'),
  missingEngines: z.array(z.string()).describe('The engines it needs that are not installed.'),
  licenses: z.array(z.string()).describe('SPDX licences of the libraries it links and the engines it runs.'),
});
export const formatsSchema = z.object({
  conversions: z
    .record(z.string(), z.array(z.string()))
    .describe('For each input format, the `to` values it converts to.'),
  operations: z.array(operationInfoSchema).describe('Every plugin, available or not.'),
});
export type Formats = z.infer<typeof formatsSchema>;

export const accountSchema = z.object({
  id: z.string().describe('The account id.'),
  plan: planIdSchema.describe("The plan's id: free, pro, business or enterprise."),
  email: z.string().nullable().describe('The e-mail address signed up with; null for an account made by an operator.'),
  emailVerified: z.boolean().describe('API keys can be generated once true.'),
  overageEnabled: z.boolean().describe('Pay-as-you-go on or off.'),
});

/** API keys: fixed prefix then 43 base64url characters (256 random bits). */
export const API_KEY_PREFIX = 'ck_live_';
/** Their shape, a bare pattern: every authenticated request checks it. */
export const API_KEY_PATTERN = /^ck_live_[A-Za-z0-9_-]{43}$/;
/** Download and signed-URL tokens: 256 random bits, base64url without padding. */
export const downloadTokenSchema = z.string().regex(/^[A-Za-z0-9_-]{43}$/);

/** Lifetimes from the spec. */
export const DOWNLOAD_LINK_SECONDS = 900;

/** Extraction poll rows: `completed` rows carry the tool's fields; `failed` rows carry `error`. */
export const extractionRowStatusSchema = z.enum(['queued', 'processing', 'completed', 'failed']);
const rowBase = {
  filename: z.string().describe('The file as uploaded.'),
  status: extractionRowStatusSchema.describe('Where the file is.'),
};
/** Any tool's row: the tool's fields beside these (a third-party tool's rows, which no schema describes). */
export const extractionRowSchema = z
  .object({
    ...rowBase,
    error: z
      .string()
      .nullable()
      .optional()
      .describe('When failed: why. (A completed file-search row may carry one too: the file could not be searched.)'),
  })
  .catchall(z.unknown());
const extractionPollFields = z.object({
  done: z.boolean().describe('Every file completed or failed.'),
  total: z.number().int().describe('Files accepted.'),
  completed: z.number().int().describe('Files completed.'),
  failed: z.number().int().describe('Files failed.'),
  rows: z.array(extractionRowSchema).describe('One per accepted file, in the order sent.'),
  /** file-search only: hits over every row. */
  totalHits: z.number().int().optional().describe('File-search only: the hits over every file.'),
});
/** Plus the totals a tool's manifest declares over its rows (extraction.summary), such as file-search's totalHits. */
export const extractionPollSchema = extractionPollFields.catchall(
  z.number().describe('A total the tool declares over its rows.'),
);
export type ExtractionPoll = z.infer<typeof extractionPollFields> & { [total: string]: unknown };

/**
 * The rows of the spec's four extraction tools (API.md, "Row fields by tool"). The tool's fields are
 * there when the row is completed; a failed row has `error` instead. OpenAPI, GraphQL and tRPC type
 * the polls of these tools from them; a third-party tool's rows are typed by the row zod its manifest
 * declares (`extraction.row`, GraphQL and OpenAPI), else stay extractionRowSchema.
 */
const failedRowError = z.string().optional().describe('When failed: why.');
const whenCompleted = <T extends z.ZodRawShape>(shape: T) => z.object(shape).partial().shape;

export const parseCvRowSchema = z
  .object({
    ...rowBase,
    error: failedRowError,
    ...whenCompleted({
      name: z.string().nullable().describe("The candidate's name."),
      email: z.string().nullable().describe('Email address.'),
      phone: z.string().nullable().describe('Phone number.'),
      title: z.string().nullable().describe('Current job title.'),
      employer: z.string().nullable().describe('Current employer.'),
      location: z.string().nullable().describe('Where the candidate is.'),
      linkedin: z.string().nullable().describe('LinkedIn profile URL.'),
      skills: z.array(z.string()).describe('Skills listed.'),
      years_exp: z.number().nullable().describe('Years of experience.'),
      confidence: z
        .record(z.string(), z.number().min(0).max(1))
        .describe('How sure each field is: per field, 0 to 1; below 0.8 deserves human review.'),
    }),
  })
  .describe('A parse-cv row: the CV fields found (null when not found) and how sure each is.');

export const transcriptSegmentSchema = z.object({
  start: z.number().describe('Seconds from the start.'),
  end: z.number().describe('Seconds from the start.'),
  text: z.string().describe('What was said.'),
});
export const transcribeRowSchema = z
  .object({
    ...rowBase,
    error: failedRowError,
    ...whenCompleted({
      language: z.string().describe('ISO 639-1 code of the language transcribed.'),
      duration: z.number().describe('Seconds of media.'),
      text: z.string().describe('The whole transcript.'),
      segments: z.array(transcriptSegmentSchema).describe('The transcript in timed pieces.'),
    }),
  })
  .describe('A transcribe row: the transcript and its timed segments.');

export const fileSearchMatchSchema = z.object({
  location: z.string().describe('Where in the file (page, sheet and cell, line...).'),
  snippet: z.string().describe('Plain text around the hit.'),
  offset: z.number().int().describe('Where the hit starts in the snippet.'),
  length: z.number().int().describe("The hit's length in the snippet."),
});
export const fileSearchRowSchema = z
  .object({
    ...rowBase,
    ...whenCompleted({
      kind: z.string().describe('What the file was read as (pdf, docx, image...).'),
      count: z.number().int().describe('Hits in this file.'),
      truncated: z.boolean().describe('More hits than `matches` lists.'),
      matches: z.array(fileSearchMatchSchema).describe('The hits listed.'),
    }),
    error: z
      .string()
      .nullable()
      .optional()
      .describe(
        'Why the file could not be searched (then count is 0: not searched, not "no match"), or why the row failed; ' +
          'null when searched.',
      ),
  })
  .describe(
    'A file-search row: the hits in one file. A non-null `error` with count 0 means the file was not searched.',
  );

export const markdownStatsSchema = z
  .object({
    headings: z.number().int().describe('Headings written.'),
    tables: z.number().int().describe('Tables written.'),
    words: z.number().int().describe('Words written.'),
    running_lines_stripped: z.number().int().describe('Running header and footer lines removed.'),
    ocr_pages: z.number().int().optional().describe('Pages without a text layer, read by OCR.'),
  })
  .catchall(z.number().int())
  .describe('Counts over the Markdown.');
export const pdfToMarkdownRowSchema = z
  .object({
    ...rowBase,
    error: failedRowError,
    ...whenCompleted({
      pages: z.number().int().describe('Pages read.'),
      markdown: z.string().describe('The Markdown of the PDF.'),
      stats: markdownStatsSchema,
    }),
  })
  .describe('A pdf-to-markdown row: the Markdown of one PDF.');

/** The typed rows by tool name. */
export const extractionRowSchemas = {
  'parse-cv': parseCvRowSchema,
  transcribe: transcribeRowSchema,
  'file-search': fileSearchRowSchema,
  'pdf-to-markdown': pdfToMarkdownRowSchema,
} as const;

/** A poll whose rows are `row` (one of extractionRowSchemas). */
export const typedExtractionPollSchema = <Row extends z.ZodType>(row: Row) =>
  extractionPollFields
    .extend({ rows: z.array(row) })
    .catchall(z.number().describe('A total the tool declares over its rows.'));

/** The poll of one tool, with its rows typed when the spec describes them. */
export function extractionPollSchemaOf(tool: string) {
  const row = (extractionRowSchemas as Record<string, z.ZodType>)[tool];
  return row ? typedExtractionPollSchema(row) : extractionPollSchema;
}
