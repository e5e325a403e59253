/**
 * The operation table: every fixed operation of the API, declared once. The REST routes
 * and the OpenAPI document are generated from it (routes.ts, openapi.ts); extraction tools join it
 * from the registry (extraction.ts), webhook endpoints from webhooks.ts.
 */
import { z } from 'zod';
import {
  FEATURE_MIN_PLAN,
  MAX_PIPELINE_STEPS,
  acceptedJobSchema,
  batchAcceptedSchema,
  batchStatusSchema,
  creditsSchema,
  formatsSchema,
  historyQuerySchema,
  historySchema,
  jobStatusSchema,
  type JobStatus,
  type pipelineRequestSchema,
  signedUrlRequestSchema,
  signedUrlSchema,
} from '../../../schema/index.js';
import type { CapabilityService } from '../../../core/services/capabilities.js';
import type { Principal, Services } from '../../../core/services/index.js';
import { principalOf } from '../auth.js';
import { PREFER_WAIT, WEBHOOK_URL_DESCRIPTION, WEBHOOK_URL_FIELD, batchForm, convertForm } from './fields.js';
import { checkExport, contentDisposition } from './forms.js';
import { BATCH_ID_INPUT, defineOperation, type AnyOperation, type Submission } from './operation.js';
import { NO_OPTIONS, pipelineFromInput } from './options.js';
import { readinessSchema } from './readiness.js';
import { extractionOperations } from './extraction.js';
import { webhookOperations } from './webhooks.js';

const jobIdParams = z.object({ jobId: z.string().min(1).meta({ description: 'jobId of the accepted answer.' }) });
const batchIdParams = z.object({ id: z.string().meta({ description: 'batchId of the accepted answer.' }) });
const SUBMIT_ERRORS = ['400', '401', '402', '403', '413', '429'];
const BATCH_ID = 'batchId of the batchConvert answer.';

/** A JSON pipeline on tRPC, as `pipelineRequestSchema` takes it: any object here, checked by the pipeline service. */
const pipelineJsonInput = z.custom<z.input<typeof pipelineRequestSchema>>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof FormData),
);

/** A job's status as GraphQL's Job shows it: with its id. */
const withJobId = (status: JobStatus, { jobId }: Record<string, unknown>) => ({ jobId, ...status });

const PIPELINE_CURL = `curl -X POST "$BASE/api/v1/pipelines" -H "Authorization: Bearer $KEY" \
-H 'Content-Type: application/json' -H 'Prefer: wait=30' -d '{
  "input": { "url": "https://example.com/report.docx" },
  "steps": [ { "to": "pdf" }, { "op": "compress-pdf" }, { "extract": "pdf-to-markdown", "pageBreaks": "false" } ]
}'
# then: curl "$BASE/api/v1/jobs/<jobId>" -H "Authorization: Bearer $KEY"   (steps, then result.markdown)`;

/*
 * JSON operations with a transport-neutral `run`: REST and tRPC (trpc/router.ts) both serve them.
 */
export const getJobOperation = defineOperation({
  name: 'getJob',
  method: 'GET',
  path: '/api/v1/jobs/{jobId}',
  tag: 'Jobs',
  summary: 'Job status',
  description: 'Poll every 1 to 2 seconds until done or failed.',
  files: 'none',
  params: jobIdParams,
  output: { status: 200, description: 'The job.', schema: jobStatusSchema, component: 'JobStatus' },
  errors: ['401', '404', '429'],
  graphql: {
    root: 'query',
    field: 'job',
    type: 'Job',
    description: "A job of the caller (NOT_FOUND for an unknown job or another key holder's job).",
    args: { id: { type: 'ID', field: 'jobId', description: 'jobId of the convert answer.' } },
    answer: withJobId,
  },
  run: (services, principal, { jobId }) => services.jobs.status(principal, jobId),
  trpc: { path: 'jobs.get' },
});

export const cancelJobOperation = defineOperation({
  name: 'cancelJob',
  method: 'DELETE',
  path: '/api/v1/jobs/{jobId}',
  tag: 'Jobs',
  beyondSpec: true,
  summary: 'Cancel a job',
  description:
    'A waiting or active job ends failed with error "Cancelled" and its credits back; its run is killed with ' +
    'its engines. Idempotent. A job that finished otherwise: 409.',
  files: 'none',
  params: jobIdParams,
  output: { status: 200, description: 'The cancelled job.', schema: jobStatusSchema, component: 'JobStatus' },
  errors: ['401', '404', '409', '429'],
  graphql: {
    root: 'mutation',
    type: 'Job',
    description:
      'Cancel a waiting or active job (as DELETE /api/v1/jobs/{id}): it ends failed "Cancelled" with its credits ' +
      'back. Idempotent; CONFLICT for a job that finished otherwise.',
    args: {
      id: { type: 'ID', field: 'jobId', description: 'jobId of the convert or createPipeline answer.' },
    },
    answer: withJobId,
  },
  run: (services, principal, { jobId }) => services.jobs.cancel(principal, jobId),
  trpc: { path: 'jobs.cancel' },
});

export const getCreditsOperation = defineOperation({
  name: 'getCredits',
  method: 'GET',
  path: '/api/v1/credits',
  tag: 'Account',
  summary: 'Credit balance',
  files: 'none',
  output: { status: 200, description: 'This month.', schema: creditsSchema, component: 'Credits' },
  errors: ['401', '429'],
  graphql: {
    root: 'query',
    field: 'credits',
    type: 'Credits',
    description: "The caller's credit balance (same as GET /api/v1/credits).",
  },
  run: (services, principal) => services.credits.balance(principal.account),
  trpc: { path: 'credits.get' },
});

export const getHistoryOperation = defineOperation({
  name: 'getHistory',
  method: 'GET',
  path: '/api/v1/history',
  tag: 'Account',
  summary: 'Conversion history, newest first',
  files: 'none',
  query: historyQuerySchema,
  output: { status: 200, description: 'One page.', schema: historySchema, component: 'History' },
  errors: ['400', '401', '429'],
  graphql: {
    root: 'query',
    field: 'history',
    type: 'History',
    description: "The caller's conversions, newest first (same as GET /api/v1/history).",
    args: {
      limit: { description: '1 to 100, default 50.' },
      offset: { description: 'Default 0.' },
    },
    decode: true,
  },
  run: (services, principal, { limit, offset }) => services.jobs.history(principal, limit, offset),
  trpc: { path: 'history.list' },
});

export const createSignedUrlOperation = defineOperation({
  name: 'createSignedUrl',
  method: 'POST',
  path: '/api/v1/signed-url',
  tag: 'Downloads',
  plan: FEATURE_MIN_PLAN['signed-urls'],
  summary: 'Mint a signed download URL (Business and up)',
  description: 'Keeps the output of a done job until the URL expires.',
  files: 'none',
  body: signedUrlRequestSchema,
  bodyComponent: 'SignedUrlRequest',
  output: { status: 200, description: 'The signed URL.', schema: signedUrlSchema, component: 'SignedUrl' },
  errors: ['400', '401', '403', '404', '429'],
  graphql: {
    root: 'mutation',
    type: 'SignedUrl',
    description: 'Keeps the output of a done job until the URL expires.',
    args: {
      jobId: { type: 'ID', description: 'A done job of the caller.' },
      expirySeconds: { description: 'At least 60; capped by the plan.' },
      reusable: { description: 'Default true.' },
    },
    decode: true,
  },
  run: (services, principal, request) => services.downloads.createSignedUrl(principal, request),
  trpc: { path: 'signedUrl.create' },
});

export const getBatchOperation = defineOperation({
  name: 'getBatch',
  method: 'GET',
  path: '/api/batch/{id}',
  tag: 'Batches',
  summary: 'Batch status',
  files: 'none',
  params: batchIdParams,
  output: { status: 200, description: 'The batch.', schema: batchStatusSchema, component: 'BatchStatus' },
  errors: ['401', '403', '404', '429'],
  graphql: {
    root: 'query',
    field: 'batch',
    type: 'BatchStatus',
    description: "A batch of the caller (NOT_FOUND when unknown, FORBIDDEN for another key holder's batch, as REST).",
    args: { id: { type: 'ID', description: BATCH_ID } },
  },
  run: (services, principal, { id }) => services.batches.status(principal, id),
  trpc: {
    path: 'batch.get',
    input: BATCH_ID_INPUT,
    toInput: ({ batchId }) => ({ id: batchId }),
    output: batchStatusSchema,
    answer: (status) => status,
  },
});

export const cancelBatchOperation = defineOperation({
  name: 'cancelBatch',
  method: 'DELETE',
  path: '/api/batch/{id}',
  tag: 'Batches',
  beyondSpec: true,
  summary: "Cancel a batch's unfinished jobs",
  description:
    'Every waiting or active job of the batch is cancelled and refunded; finished ones keep their outputs. ' +
    'Idempotent.',
  files: 'none',
  params: batchIdParams,
  output: { status: 200, description: 'The batch.', schema: batchStatusSchema, component: 'BatchStatus' },
  errors: ['401', '403', '404', '429'],
  graphql: {
    root: 'mutation',
    type: 'BatchStatus',
    description: "Cancel a batch's unfinished jobs (as DELETE /api/batch/{id}); finished ones keep their outputs.",
    args: { id: { type: 'ID', description: BATCH_ID } },
  },
  run: (services, principal, { id }) => services.batches.cancel(principal, id),
  trpc: {
    path: 'batch.cancel',
    input: BATCH_ID_INPUT,
    toInput: ({ batchId }) => ({ id: batchId }),
    output: batchStatusSchema,
    answer: (status) => status,
  },
});

/*
 * The file-taking operations' transport-neutral handlers (`submit`): REST's handlers and the tRPC
 * FormData procedures call them once the files are staged.
 */

/** One file: its export checked first (a 400, nothing charged), then the job, then its export started. */
export const submitConvert = async (services: Services, principal: Principal, submission: Submission) => {
  const { files, to, op, options = NO_OPTIONS, webhookUrl, viaApi } = submission;
  const target = await checkExport(services, submission.export, files);
  const accepted = await services.jobs.accept(principal, { upload: files[0]!, to, op, ...options, viaApi, webhookUrl });
  if (target) await services.exports.start(accepted.jobId, target);
  return accepted;
};

export const submitMerge = (services: Services, principal: Principal, { files, viaApi, webhookUrl }: Submission) =>
  services.jobs.acceptMerge(principal, files, viaApi, webhookUrl);

/** A pipeline: its request decoded first (a 400 naming the step; the staged input goes), then the job. */
export const submitPipeline = async (services: Services, principal: Principal, submission: Submission) => {
  const { files, pipeline, viaApi } = submission;
  let request: z.output<typeof pipelineRequestSchema>;
  try {
    request = services.pipelines.parse(pipeline ?? '{}');
  } catch (err) {
    await services.uploads.discard(...files);
    throw err;
  }
  return services.pipelines.submit(principal, request, files[0], viaApi);
};

export const submitBatch = (services: Services, principal: Principal, submission: Submission) => {
  const { files, to, op, options = NO_OPTIONS, webhookUrl, viaApi } = submission;
  return services.batches.accept(principal, {
    uploads: files,
    to,
    op,
    ...options,
    viaApi,
    webhookUrl,
    export: submission.export,
  });
};

const WEBHOOK_URL_ARG = { type: 'String', description: WEBHOOK_URL_DESCRIPTION };

/*
 * The file-taking operations without their REST form and handler (which need the registry and the
 * services): GraphQL serves them from here (graphqlOperations), REST from the table below.
 */
export const convertOperation = defineOperation({
  name: 'convert',
  method: 'POST',
  path: '/api/v1/convert',
  tag: 'Jobs',
  summary: 'Convert a file or run a tool op',
  description:
    'Credits are charged at acceptance and refunded if the job fails to start. Poll statusUrl until done or failed.',
  files: 'one file',
  formFields: ['to', 'op', 'webhookUrl', 'export'],
  headers: [PREFER_WAIT],
  output: {
    status: 200,
    description: 'Accepted.',
    schema: acceptedJobSchema,
    component: 'AcceptedJob',
    loose: true,
  },
  errors: SUBMIT_ERRORS,
  submit: submitConvert,
  graphql: {
    root: 'mutation',
    type: 'Job',
    description:
      'Convert one file, or run one tool op on it (same rules as POST /api/v1/convert). See `formats` for ops and ' +
      'their options.',
    args: {
      file: { type: 'Upload', description: 'The file; or give `url` instead.' },
      url: {
        type: 'String',
        description:
          'Instead of `file`: an https URL the server fetches the file from, as `url` on POST /api/v1/convert.',
      },
      to: {
        type: 'String',
        required: true,
        description: 'Output format (lower-case extension); for an in-place op, the input format.',
      },
      op: { type: 'String', description: 'Tool op; omit for a plain conversion.' },
      options: {
        type: 'ConvertOptions',
        description:
          'The options, under the field of the plugin that runs the conversion or op, e.g. ' +
          '{imageCompress: {quality: 60}} with op: "compress".',
      },
      webhookUrl: WEBHOOK_URL_ARG,
    },
  },
  // The options as one JSON object string in `options`.
  trpc: { path: 'convert' },
});

export const createPipelineOperation = defineOperation({
  name: 'createPipeline',
  method: 'POST',
  path: '/api/v1/pipelines',
  tag: 'Jobs',
  beyondSpec: true,
  summary: 'Run several steps in one job (pipeline)',
  description:
    'Each step takes the previous output: `to` (a conversion), `op` (a tool op; `to` defaults to the format it ' +
    "gets), or `extract` (an extraction tool, last step only: its row becomes the job's `result`). Other fields " +
    `of a step are its options, as on /api/v1/convert. At most ${MAX_PIPELINE_STEPS} steps; the whole chain is ` +
    'checked at submit (a 400 names the step). ' +
    "Each step is charged at acceptance by the credit table on the first input's size; when a step fails (or " +
    'the job is cancelled), the steps that did not finish are refunded. Intermediate files stay in the ' +
    "job's work dir and go when it ends. " +
    "Send JSON with input.url, or multipart with 'file' and a 'pipeline' field holding the same JSON without " +
    `input.\n\n\`\`\`sh\n${PIPELINE_CURL}\n\`\`\``,
  files: 'json or one file',
  formFields: ['pipeline'],
  // Decoded by the pipeline service (its messages name the step), for multipart and JSON alike.
  bodyComponent: 'PipelineRequest',
  form: {
    schema: {
      type: 'object',
      required: ['file', 'pipeline'],
      properties: {
        file: { type: 'string', contentMediaType: 'application/octet-stream' },
        pipeline: {
          type: 'string',
          contentMediaType: 'application/json',
          description: 'The PipelineRequest without input.',
        },
      },
    },
  },
  headers: [PREFER_WAIT],
  output: {
    status: 200,
    description: 'Accepted (with Prefer: wait=N, possibly finished: then also status, steps, downloadUrl or result).',
    schema: acceptedJobSchema,
    component: 'AcceptedJob',
    loose: true,
  },
  errors: SUBMIT_ERRORS,
  submit: submitPipeline,
  graphql: {
    root: 'mutation',
    type: 'Job',
    description:
      'Run several steps in one job, each on the previous output (same rules as POST /api/v1/pipelines): send the ' +
      'input as `file` or pipeline.input.url. Poll it with `job`: steps, then downloadUrl or result.',
    args: {
      file: { type: 'Upload', description: 'The input file (or give pipeline.input.url).' },
      pipeline: {
        type: 'PipelineInput',
        required: true,
        description: 'The pipeline as on POST /api/v1/pipelines; with `file`, without input.',
      },
    },
    input: ({ pipeline, ...rest }) => ({ ...rest, pipeline: pipelineFromInput(pipeline) }),
  },
  // Typed for clients by the pipeline's zod; decoded by the pipeline service (its messages name the step).
  trpc: { path: 'pipelines.create', json: pipelineJsonInput },
});

export const mergePdfOperation = defineOperation({
  name: 'mergePdf',
  method: 'POST',
  path: '/api/pdf/merge',
  tag: 'Jobs',
  plan: FEATURE_MIN_PLAN.merge,
  summary: 'Merge PDFs (Pro and up)',
  description: 'The PDFs are merged in the order sent; the cost is by total input size. Poll /api/v1/jobs/{jobId}.',
  files: 'many files',
  formFields: ['webhookUrl'],
  form: {
    schema: {
      type: 'object',
      required: ['files'],
      properties: {
        files: {
          type: 'array',
          minItems: 2,
          items: { type: 'string', contentMediaType: 'application/pdf' },
          description: 'Two or more PDFs: repeat the field once per file.',
        },
        webhookUrl: WEBHOOK_URL_FIELD,
      },
    },
  },
  output: { status: 200, description: 'Accepted.', schema: acceptedJobSchema, component: 'AcceptedJob' },
  errors: SUBMIT_ERRORS,
  admit: (services, principal) => services.jobs.admitMerge(principal),
  submit: submitMerge,
  graphql: {
    root: 'mutation',
    type: 'Job',
    description:
      'Merge two or more PDFs into one, in the order sent (Pro and up; same rules and limits as POST ' +
      '/api/pdf/merge). Charged by total size.',
    args: {
      files: { type: 'Upload', list: true, required: true, description: 'The PDFs, in order.' },
      webhookUrl: WEBHOOK_URL_ARG,
    },
  },
  trpc: { path: 'merge' },
});

export const batchConvertOperation = defineOperation({
  name: 'batchConvert',
  method: 'POST',
  path: '/api/batch/convert',
  tag: 'Batches',
  plan: FEATURE_MIN_PLAN.batch,
  summary: 'Convert many files into one ZIP (Pro and up)',
  description:
    'One `to` (and optionally one `op` with its fields) for every file; credits are charged per file. Files ' +
    'that cannot be taken are listed in `errors`.',
  files: 'many files',
  formFields: ['to', 'op', 'webhookUrl', 'export'],
  output: { status: 200, description: 'Accepted.', schema: batchAcceptedSchema, component: 'BatchAccepted' },
  errors: SUBMIT_ERRORS,
  admit: (services, principal) => services.batches.admit(principal),
  submit: submitBatch,
  graphql: {
    root: 'mutation',
    type: 'BatchAccepted',
    description:
      "Convert many files to one format (Pro and up; same rules as POST /api/batch/convert): at most the plan's " +
      'batch size, charged per file.',
    args: {
      files: { type: 'Upload', list: true, required: true, description: 'The files, one job each.' },
      to: { type: 'String', required: true, description: 'Output format for every file (lower-case extension).' },
      op: { type: 'String', description: 'Tool op for every file; omit for a plain conversion.' },
      options: {
        type: 'ConvertOptions',
        description:
          'The options for every file, as convert takes them, e.g. {rotatePdf: {angle: 90}} with op: "rotate-pdf".',
      },
      quality: {
        type: 'Int',
        description: 'Output quality where the conversion or op takes one (or `quality` in options).',
      },
      webhookUrl: WEBHOOK_URL_ARG,
      export: {
        type: 'S3ExportInput',
        description:
          'Upload the ZIP to S3-compatible storage once every job has finished; the credentials are never stored.',
      },
    },
  },
  // `options` read like convert's, `quality` like the REST field.
  trpc: { path: 'batch.convert' },
});

export const getFormatsOperation = defineOperation({
  name: 'getFormats',
  method: 'GET',
  path: '/api/v1/formats',
  tag: 'Capabilities',
  summary: 'Conversions and operations of this server',
  description: "Straight from the plugin registry, with the JSON Schema of each operation's option fields.",
  files: 'none',
  // REST sends it serialised once at start (the registry is fixed while the server runs): `handle` below.
  output: {
    status: 200,
    description: 'The capability index.',
    schema: formatsSchema,
    component: 'Formats',
    loose: true,
  },
  errors: ['401', '429'],
  graphql: {
    root: 'query',
    field: 'formats',
    type: 'Formats',
    description: 'Conversions and operations of this server (same data as GET /api/v1/formats).',
  },
  // An operation's `options` is typed unknown by the registry; formatsSchema checks it is a JSON Schema object.
  run: async (services) => services.capabilities.formats() as z.input<typeof formatsSchema>,
  trpc: { path: 'formats.list' },
});

function jobOperations(services: Services): AnyOperation[] {
  return [
    { ...convertOperation, form: convertForm(services.registry) },
    createPipelineOperation,
    mergePdfOperation,
    getJobOperation,
    cancelJobOperation,
  ];
}

function batchOperations(services: Services): AnyOperation[] {
  return [
    { ...batchConvertOperation, form: batchForm(services.registry) },
    getBatchOperation,
    cancelBatchOperation,
    defineOperation({
      name: 'downloadBatch',
      method: 'GET',
      path: '/api/batch/{id}/download',
      tag: 'Batches',
      summary: 'Download a finished batch',
      restOnly: "A file stream: GraphQL and tRPC answer JSON, so their answers carry this route's URL (downloadUrl).",
      files: 'none',
      params: batchIdParams,
      output: {
        status: 200,
        description: 'A ZIP of the converted files.',
        binary: 'application/zip',
        headers: ['Content-Disposition'],
      },
      errors: ['401', '403', '404', '429'],
      handle: async ({ request, reply, params }) => {
        const { stream, filename } = await services.batches.zip(principalOf(request), params.id);
        return reply
          .header('Content-Type', 'application/zip')
          .header('Content-Disposition', contentDisposition(filename))
          .send(stream);
      },
    }),
  ];
}

function accountOperations(services: Services): AnyOperation[] {
  return [
    defineOperation({
      name: 'download',
      restOnly: "A file stream, and its token is the credential: GraphQL and tRPC answers carry this route's URL.",
      method: 'GET',
      path: '/api/download/{token}',
      tag: 'Downloads',
      auth: 'public',
      summary: 'Download an output',
      description:
        'No key: the token is the credential. Download links live 15 minutes from completion; signed URLs until ' +
        'they expire.',
      files: 'none',
      params: z.object({
        token: z.string().meta({ description: 'From a downloadUrl or signed URL.', pattern: '^[A-Za-z0-9_-]{43}$' }),
      }),
      output: {
        status: 200,
        description: 'The file, with a Content-Disposition file name.',
        binary: 'application/octet-stream',
        headers: ['Content-Disposition'],
      },
      errors: ['400', '404', '410'],
      handle: async ({ reply, params }) => {
        const download = await services.downloads.open(params.token);
        return reply
          .header('Content-Type', 'application/octet-stream')
          .header('Content-Length', download.bytes)
          .header('Content-Disposition', contentDisposition(download.filename))
          .header('Cache-Control', 'private, no-store')
          .send(download.stream);
      },
    }),
    createSignedUrlOperation,
    getCreditsOperation,
    getHistoryOperation,
    {
      ...getFormatsOperation,
      handle: async ({ reply }) =>
        reply.type('application/json; charset=utf-8').send(services.capabilities.formatsJson()),
    },
  ];
}

/** Served by the host (app.ts, openapi.ts): documented here so the document lists every route. */
const HOST_OPERATIONS: AnyOperation[] = [
  defineOperation({
    name: 'getHealth',
    restOnly: 'A probe for load balancers and orchestrators, which speak plain HTTP.',
    method: 'GET',
    path: '/healthz',
    tag: 'Health',
    auth: 'public',
    summary: 'Liveness',
    files: 'none',
    output: { status: 200, description: 'Up.', schema: z.object({ status: z.enum(['ok']) }) },
    errors: [],
  }),
  defineOperation({
    name: 'getReadiness',
    restOnly: 'A probe for load balancers and orchestrators, which speak plain HTTP.',
    method: 'GET',
    path: '/readyz',
    tag: 'Health',
    auth: 'public',
    summary: 'Readiness',
    description: 'Store, queue and engines.',
    files: 'none',
    output: { status: 200, description: 'Ready.', schema: readinessSchema, component: 'Readiness' },
    errors: [],
    errorDescriptions: { '503': 'Not ready: see checks and unavailable.' },
  }),
  defineOperation({
    name: 'getOpenApiDocument',
    restOnly: "The REST surface's own document.",
    method: 'GET',
    path: '/api/openapi.json',
    tag: 'Reference',
    auth: 'public',
    summary: 'This document',
    files: 'none',
    output: { status: 200, description: 'OpenAPI 3.1.', schema: z.record(z.string(), z.unknown()) },
    errors: [],
  }),
  defineOperation({
    name: 'getDocsPage',
    restOnly: "The REST surface's own document, as a page.",
    method: 'GET',
    path: '/docs',
    tag: 'Reference',
    auth: 'public',
    summary: 'This document as a page',
    files: 'none',
    output: { status: 200, description: 'HTML.', binary: 'text/html' },
    errors: [],
  }),
];

/** The whole table, in the order the document and /docs list it. */
export function operationTable(services: Services): AnyOperation[] {
  let table = tables.get(services);
  if (!table) {
    table = buildTable(services);
    tables.set(services, table);
  }
  return table;
}

// The registry is fixed while a server runs: one table per Services.
const tables = new WeakMap<Services, AnyOperation[]>();

/**
 * The operations GraphQL serves (graphql/operation-fields.ts declares a field for each section):
 * the fixed ones, and the extraction tools' from the registry's capabilities.
 */
export function graphqlOperations(capabilities: CapabilityService): AnyOperation[] {
  return [...FIXED_OPERATIONS, ...extractionOperations(capabilities), ...webhookOperations()];
}

/**
 * The fixed operations of this file served on every surface, as declared (typed): GraphQL serves
 * them (graphqlOperations), and the tRPC router's type (`AppRouter`) is read from them and
 * WEBHOOK_OPERATIONS, so a procedure's input and output types are its operation's.
 */
export const FIXED_OPERATIONS = [
  convertOperation,
  createPipelineOperation,
  mergePdfOperation,
  getJobOperation,
  cancelJobOperation,
  batchConvertOperation,
  getBatchOperation,
  cancelBatchOperation,
  createSignedUrlOperation,
  getCreditsOperation,
  getHistoryOperation,
  getFormatsOperation,
];

function buildTable(services: Services): AnyOperation[] {
  return [
    ...jobOperations(services),
    ...batchOperations(services),
    ...extractionOperations(services.capabilities),
    ...accountOperations(services),
    ...webhookOperations(),
    ...HOST_OPERATIONS,
  ];
}
