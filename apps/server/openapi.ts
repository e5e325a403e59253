/**
 * OpenAPI 3.1 for the REST surface, generated: bodies from the zod schemas in schema/
 * (z.toJSONSchema), the convert form's `to`, `op` and option fields from the registry. Served at
 * /api/openapi.json, and as a readable page at /docs (rendered here; no scripts, no CDN).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  EXTRACTION_RESULT_SECONDS,
  PLANS,
  acceptedJobSchema,
  batchAcceptedSchema,
  batchStatusSchema,
  creditsSchema,
  errorBodySchema,
  extractionPollSchema,
  extractionPollSchemaOf,
  extractionRowSchemas,
  formatsSchema,
  historyQuerySchema,
  historySchema,
  jobStatusSchema,
  signedUrlRequestSchema,
  signedUrlSchema,
} from '../../schema/index.js';
import type { Registry } from '../../core/registry/index.js';
import type { CapabilityService } from '../../core/services/capabilities.js';
import type { Services } from '../../core/services/index.js';
import { MERGE_OP } from '../../core/services/jobs.js';
import { renderDocsPage } from './docs-page.js';
import { camelCase } from './graphql/option-inputs.js';
import type { JsonSchema } from './json-schema.js';
import type { OpenApiDocument, Operation } from './openapi-types.js';
import { WEBHOOK_URL_FIELD, webhookEvents, webhookPaths, webhookSchemas } from './openapi-webhooks.js';
import {
  BATCH_EXPORT_FIELD,
  EXPORT_FIELD,
  PREFER_WAIT,
  URL_FIELD,
  cancelBatchOperation,
  cancelJobOperation,
  pipelinePaths,
  pipelineSchemas,
} from './openapi-pipelines.js';

function jsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, target: 'draft-2020-12' }) as JsonSchema;
  return rest;
}

const readinessSchema = z.object({
  status: z.enum(['ready', 'not ready']),
  checks: z.record(z.string(), z.string()).describe('store and queue: ok, or the error.'),
  unavailable: z
    .array(z.object({ plugin: z.string(), missing: z.array(z.string()) }))
    .describe('Plugins whose engines are missing.'),
  confinement: z
    .object({
      mode: z
        .enum(['bwrap', 'off'])
        .describe(
          "bwrap: engines run in jails without network, seeing only their job's files; off: ENGINE_SANDBOX=off.",
        ),
      working: z
        .boolean()
        .optional()
        .describe(
          'mode bwrap: whether a jail could be made at the last check (re-checked at most once a minute); false makes the server not ready.',
        ),
      reason: z.string().optional(),
    })
    .describe(
      'How engines (LibreOffice, ffmpeg, ImageMagick, Ghostscript...) are confined (README, "Security model").',
    ),
  sandbox: z
    .object({
      size: z.number().int(),
      processes: z.number().int(),
      busy: z.number().int(),
      waiting: z.number().int(),
      killed: z.number().int(),
      recycled: z.number().int(),
    })
    .describe('The pool of processes plugin runs execute in (informative: they start on demand).'),
  office: z
    .object({
      mode: z
        .enum(['pool', 'cold', 'disabled'])
        .describe(
          'pool: warm LibreOffice listeners; cold: fallen back to a cold soffice per file (fallbackReason); disabled: OFFICE_POOL_SIZE=0.',
        ),
      size: z.number().int(),
      listeners: z.array(
        z.object({
          state: z.string(),
          pid: z.number().int().optional(),
          conversions: z.number().int(),
          rssMb: z.number(),
        }),
      ),
      conversions: z.number().int(),
      restarts: z.number().int(),
      recycled: z.number().int(),
      retried: z.number().int(),
      coldFallbacks: z.number().int(),
      fallbackReason: z.string().optional(),
    })
    .describe('The warm LibreOffice pool (informative: a cold fallback still converts).'),
  transcription: z
    .object({
      engine: z.enum(['pocketsphinx', 'whisper.cpp']),
      model: z.string(),
      sha256: z.string().optional(),
      listed: z
        .boolean()
        .optional()
        .describe('Whether the model is among the known official ones (else WHISPER_MODEL_SHA256 vouched for it).'),
      languages: z.union([z.array(z.string()), z.string()]),
      whisper: z.string().optional(),
    })
    .describe('The speech engine in use and its model.'),
});

const ERROR_RESPONSES: Record<string, string> = {
  '400': 'Missing or invalid parameters (unsupported format, content not matching its declared type, invalid option).',
  '401': 'Missing or invalid API key.',
  '402': 'Monthly credits exhausted and overage not enabled: "Insufficient API credits".',
  '403': 'Not allowed on this plan (paid-only op, Business-and-up feature): `code` is `plan_required`.',
  '404': 'Not found, expired, or not owned by the key.',
  '409': 'Conflict: the job already finished (cancel).',
  '410': 'The file behind a signed URL has been deleted.',
  '413': "File over the plan's size limit.",
  '429': 'Per-minute rate limit exceeded; retry after Retry-After seconds.',
  '500': 'Unexpected server error; the details are logged, not sent. Try again.',
};

/** The operations by tag, in the order the document and /docs list them. */
const TAGS: OpenApiDocument['tags'] = [
  { name: 'Jobs', description: 'Convert a file, run a tool op or merge PDFs, then poll the job until done or failed.' },
  { name: 'Batches', description: 'Convert many files with one `to` (Pro and up) and download them as one ZIP.' },
  { name: 'Extraction', description: 'Tools that answer JSON rows, one per file: submit, then poll the batch.' },
  {
    name: 'Downloads',
    description: 'Outputs by their download links (the token is the credential), and long-lived signed URLs.',
  },
  { name: 'Account', description: "The key's credit balance and conversion history." },
  { name: 'Capabilities', description: 'What this server converts and runs, from its plugin registry.' },
  {
    name: 'Webhooks',
    description: 'Beyond the spec: signed push notifications of finished jobs, batches and extractions.',
  },
  { name: 'Health', description: 'Liveness and readiness probes.' },
  { name: 'Reference', description: 'This document, as JSON and as a page.' },
];

/**
 * The operationId of every fixed operation, by `method path`; extraction tools name theirs
 * after the tool (`parseCv`, `getParseCvResults`). Names follow the GraphQL fields where one exists.
 */
const OPERATION_IDS: Record<string, string> = {
  'post /api/v1/convert': 'convert',
  'post /api/pdf/merge': 'mergePdf',
  'post /api/batch/convert': 'batchConvert',
  'get /api/batch/{id}': 'getBatch',
  'get /api/batch/{id}/download': 'downloadBatch',
  'get /api/v1/jobs/{jobId}': 'getJob',
  'delete /api/v1/jobs/{jobId}': 'cancelJob',
  'post /api/v1/pipelines': 'createPipeline',
  'delete /api/batch/{id}': 'cancelBatch',
  'get /api/download/{token}': 'download',
  'post /api/v1/signed-url': 'createSignedUrl',
  'get /api/v1/credits': 'getCredits',
  'get /api/v1/history': 'getHistory',
  'get /api/v1/formats': 'getFormats',
  'get /api/v1/webhooks': 'listWebhookEndpoints',
  'post /api/v1/webhooks': 'createWebhookEndpoint',
  'post /api/v1/webhooks/default-secret': 'rotateDefaultWebhookSecret',
  'get /api/v1/webhooks/{id}': 'getWebhookEndpoint',
  'patch /api/v1/webhooks/{id}': 'updateWebhookEndpoint',
  'delete /api/v1/webhooks/{id}': 'deleteWebhookEndpoint',
  'post /api/v1/webhooks/{id}/rotate-secret': 'rotateWebhookSecret',
  'post /api/v1/webhooks/{id}/test': 'sendTestWebhook',
  'get /api/v1/webhooks/{id}/attempts': 'listWebhookAttempts',
  'get /healthz': 'getHealth',
  'get /readyz': 'getReadiness',
  'get /api/openapi.json': 'getOpenApiDocument',
  'get /docs': 'getDocsPage',
};

/**
 * What every operation shares, set once over the finished paths: its operationId (a path
 * without one is a programming error: the build fails) and the 500 every route may answer.
 */
function finishOperations(paths: OpenApiDocument['paths']): OpenApiDocument['paths'] {
  for (const [path, methods] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(methods) as Array<[string, Operation]>) {
      const operationId = operation.operationId ?? OPERATION_IDS[`${method} ${path}`];
      if (!operationId)
        throw new Error(`OpenAPI: no operationId for ${method.toUpperCase()} ${path} (add it to OPERATION_IDS)`);
      operation.operationId = operationId;
      operation.responses['500'] ??= { $ref: '#/components/responses/500' };
    }
  }
  return paths;
}

/** Sent on every authenticated answer: the IETF draft's fields (httpapi-ratelimit-headers-11), then the legacy three. */
const RATE_HEADERS = [
  'RateLimit-Policy',
  'RateLimit',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
] as const;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const headerRefs = (...names: string[]) =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
const json = (schemaName: string, description: string) => ({
  description,
  content: { 'application/json': { schema: ref(schemaName) } },
  headers: headerRefs(...RATE_HEADERS),
});
/** Error answers sent before the request was counted (a 401) or without a key (410: downloads) carry no rate headers. */
const UNCOUNTED_ERRORS = new Set(['401', '410']);
const errors = (...statuses: string[]) =>
  Object.fromEntries(statuses.map((status) => [status, { $ref: `#/components/responses/${status}` }]));
const PUBLIC: Array<Record<string, string[]>> = [];

/**
 * An option field's schema in standard keywords: a field the plugin marks `secret` (a password:
 * never stored or logged) becomes `format: password` and `writeOnly`, which clients understand.
 */
function standardKeywords(schema: JsonSchema): JsonSchema {
  const { secret, ...rest } = schema;
  return secret === true ? { ...rest, format: 'password', writeOnly: true } : rest;
}

/**
 * The convert form: `file`, `to` and `op`, then every option field some operation takes, named
 * as on the wire. Object-valued fields travel as JSON strings.
 */
function convertForm(registry: Registry): JsonSchema {
  const operations = registry.operations().filter((operation) => operation.kind !== 'extract');
  const targets = new Set(Object.values(registry.conversionTable()).flat());
  for (const operation of operations)
    if (operation.kind === 'tool') for (const format of operation.inputs) targets.add(format);

  const fields = new Map<string, { schema: JsonSchema; usedBy: string[]; defaults: Set<string> }>();
  for (const operation of operations) {
    for (const [name, schema] of Object.entries((operation.options as JsonSchema).properties ?? {})) {
      const field = fields.get(name) ?? { schema, usedBy: [], defaults: new Set<string>() };
      field.usedBy.push(operation.op ? `op ${operation.op}` : `${operation.title}`);
      field.defaults.add(JSON.stringify(schema.default));
      fields.set(name, field);
    }
  }
  const optionFields = Object.fromEntries(
    [...fields]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, { schema, usedBy, defaults }]) => {
        const { default: defaultValue, description, ...shape } = standardKeywords(schema);
        const about = `${description ? `${description} ` : ''}Applies to: ${usedBy.join(', ')}.`;
        const sameDefault = defaults.size === 1 && defaultValue !== undefined ? { default: defaultValue } : {};
        const wire: JsonSchema =
          shape.type === 'object' || shape.type === 'array'
            ? { type: 'string', contentMediaType: 'application/json', contentSchema: shape, description: about }
            : { ...shape, ...sameDefault, description: about };
        return [name, wire];
      }),
  );
  return {
    type: 'object',
    required: ['file', 'to'],
    properties: {
      file: {
        type: 'string',
        contentMediaType: 'application/octet-stream',
        description: "The file to convert; its name's extension declares its format (checked against its content).",
      },
      to: {
        type: 'string',
        enum: [...targets].sort(),
        description: 'Output format, lower-case extension. For an in-place op, the input format.',
      },
      // merge-pdf is served by POST /api/pdf/merge only, never as a convert op.
      op: {
        type: 'string',
        enum: registry.opNames().filter((op) => op !== MERGE_OP),
        description: 'Tool operation; omit for a plain conversion.',
      },
      ...optionFields,
      webhookUrl: WEBHOOK_URL_FIELD,
      url: URL_FIELD,
      export: EXPORT_FIELD,
    },
  };
}

/**
 * One submit and one poll path per extraction tool (the REST routes are made from the same
 * list: capabilities.extractionTools). The form's fields beside `files` are the plugin's options.
 */
/** The poll schema of a tool: its own (`ParseCvPoll`...) when the spec describes its rows. */
function pollSchemaName(tool: string): string {
  return Object.hasOwn(extractionRowSchemas, tool)
    ? `${camelCase(tool).replace(/^./, (c) => c.toUpperCase())}Poll`
    : 'ExtractionPoll';
}

function extractionPaths(capabilities: CapabilityService): OpenApiDocument['paths'] {
  const paths: OpenApiDocument['paths'] = {};
  for (const {
    tool,
    title,
    pluginId,
    inputs,
    maxFiles,
    plan: lowest,
    freeTrial,
    summary,
    options: optionsSchema,
  } of capabilities.extractionTools()) {
    const options = optionsSchema as JsonSchema;
    const fields = Object.fromEntries(
      Object.entries(options.properties ?? {})
        .map(([name, field]) => [name, standardKeywords(field)] as const)
        .map(([name, schema]) => [
          name,
          schema.type === 'object' || schema.type === 'array'
            ? {
                type: 'string',
                contentMediaType: 'application/json',
                contentSchema: schema,
                ...(schema.description ? { description: schema.description } : {}),
              }
            : schema,
        ]),
    );
    const plan = PLANS[lowest].label;
    const totals = Object.entries(summary)
      .map(([name, { sum }]) => ` The poll answer's \`${name}\` sums the rows' \`${sum}\`.`)
      .join('');
    paths[`/api/${tool}`] = {
      post: {
        operationId: camelCase(tool),
        summary: `${title} (${plan} and up${freeTrial ? '; one free try on Free' : ''})`,
        description:
          `Up to ${maxFiles} files, one result row per file, charged per file. Files that cannot be taken are listed in \`errors\`. ` +
          (freeTrial
            ? 'A Free key gets one free call with one file per tool; it is given back if that job fails. '
            : '') +
          (pluginId ? `Reads: ${inputs.join(', ')}. ` : 'Answers 400 when the tool is not installed on this server. ') +
          `Poll statusUrl (\`/api/${tool}/{id}\`).${totals}`,
        tags: ['Extraction'],
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                required: ['files', ...(options.required ?? [])],
                properties: {
                  files: {
                    type: 'array',
                    minItems: 1,
                    maxItems: maxFiles,
                    items: { type: 'string', contentMediaType: 'application/octet-stream' },
                    description: 'The files: repeat the field once per file.',
                  },
                  ...fields,
                  webhookUrl: WEBHOOK_URL_FIELD,
                },
              },
            },
          },
        },
        responses: {
          '200': json('BatchAccepted', 'Accepted.'),
          ...errors('400', '401', '402'),
          '403': {
            description: `Not allowed on this plan (\`code\`: \`plan_required\`), or the free try is spent (\`code\`: \`trial_used\`) or was sent several files (\`code\`: \`trial_single_file\`).`,
            content: { 'application/json': { schema: ref('Error') } },
          },
          ...errors('413', '429'),
        },
      },
    };
    paths[`/api/${tool}/{id}`] = {
      get: {
        operationId: `get${camelCase(tool).replace(/^./, (c) => c.toUpperCase())}Results`,
        summary: `${title} results`,
        description: `One row per file: \`filename\`, \`status\`, and when completed the tool's fields (when failed, \`error\`). Kept for ${EXTRACTION_RESULT_SECONDS / 3600} hour.`,
        tags: ['Extraction'],
        parameters: [
          {
            name: 'id',
            in: 'path',
            required: true,
            description: 'batchId of the submit answer.',
            schema: { type: 'string' },
          },
        ],
        responses: { '200': json(pollSchemaName(tool), 'The rows so far.'), ...errors('401', '403', '404', '429') },
      },
    };
  }
  return paths;
}

export function buildOpenApiDocument(
  registry: Registry,
  capabilities: CapabilityService,
  publicUrl: string,
): OpenApiDocument {
  const form = convertForm(registry);
  const batchForm: JsonSchema = {
    ...form,
    required: ['files', 'to'],
    properties: {
      files: {
        type: 'array',
        items: { type: 'string', contentMediaType: 'application/octet-stream' },
        description: 'The files to convert: repeat the field once per file.',
      },
      ...Object.fromEntries(Object.entries(form.properties!).filter(([name]) => name !== 'file')),
      export: BATCH_EXPORT_FIELD,
    },
  };
  const jsonFields = Object.entries(form.properties!)
    .filter(([, schema]) => schema.contentMediaType === 'application/json')
    .map(([name]) => name);
  const historyQuery = jsonSchema(historyQuerySchema, 'input');
  return {
    openapi: '3.1.0',
    info: {
      title: 'Transmute API',
      version: '1.0.0',
      description:
        'Converts files and runs tool operations asynchronously: send a file, poll the job, download the result. ' +
        'Every endpoint except downloads and health needs `Authorization: Bearer <API_KEY>`. ' +
        'The same capabilities are offered over GraphQL (/graphql) and tRPC (/trpc).',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Transmute' },
      contact: { name: 'Transmute on this server', url: publicUrl },
    },
    tags: TAGS,
    servers: [{ url: publicUrl }],
    security: [{ bearerAuth: [] }],
    paths: finishOperations({
      '/api/v1/convert': {
        post: {
          summary: 'Convert a file or run a tool op',
          description:
            'Credits are charged at acceptance and refunded if the job fails to start. Poll statusUrl until done or failed.',
          tags: ['Jobs'],
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': {
                schema: form,
                encoding: Object.fromEntries(jsonFields.map((name) => [name, { contentType: 'application/json' }])),
              },
            },
          },
          parameters: [PREFER_WAIT],
          responses: { '200': json('AcceptedJob', 'Accepted.'), ...errors('400', '401', '402', '403', '413', '429') },
        },
      },
      ...(pipelinePaths(json, errors) as OpenApiDocument['paths']),
      '/api/pdf/merge': {
        post: {
          summary: 'Merge PDFs (Pro and up)',
          description:
            'The PDFs are merged in the order sent; the cost is by total input size. Poll /api/v1/jobs/{jobId}.',
          tags: ['Jobs'],
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': {
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
            },
          },
          responses: { '200': json('AcceptedJob', 'Accepted.'), ...errors('400', '401', '402', '403', '413', '429') },
        },
      },
      '/api/batch/convert': {
        post: {
          summary: 'Convert many files into one ZIP (Pro and up)',
          description:
            'One `to` (and optionally one `op` with its fields) for every file; credits are charged per file. Files that cannot be taken are listed in `errors`.',
          tags: ['Batches'],
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': {
                schema: batchForm,
                encoding: Object.fromEntries(jsonFields.map((name) => [name, { contentType: 'application/json' }])),
              },
            },
          },
          responses: { '200': json('BatchAccepted', 'Accepted.'), ...errors('400', '401', '402', '403', '413', '429') },
        },
      },
      '/api/batch/{id}': {
        get: {
          summary: 'Batch status',
          tags: ['Batches'],
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '200': json('BatchStatus', 'The batch.'), ...errors('401', '403', '404', '429') },
        },
        delete: cancelBatchOperation(json, errors) as Operation,
      },
      '/api/batch/{id}/download': {
        get: {
          summary: 'Download a finished batch',
          tags: ['Batches'],
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': {
              description: 'A ZIP of the converted files.',
              content: { 'application/zip': { schema: { type: 'string', contentMediaType: 'application/zip' } } },
              headers: headerRefs('Content-Disposition', ...RATE_HEADERS),
            },
            ...errors('401', '403', '404', '429'),
          },
        },
      },
      ...extractionPaths(capabilities),
      '/api/v1/jobs/{jobId}': {
        get: {
          summary: 'Job status',
          description: 'Poll every 1 to 2 seconds until done or failed.',
          tags: ['Jobs'],
          parameters: [{ name: 'jobId', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '200': json('JobStatus', 'The job.'), ...errors('401', '404', '429') },
        },
        delete: cancelJobOperation(json, errors) as Operation,
      },
      '/api/download/{token}': {
        get: {
          summary: 'Download an output',
          description:
            'No key: the token is the credential. Download links live 15 minutes from completion; signed URLs until they expire.',
          tags: ['Downloads'],
          security: PUBLIC,
          parameters: [
            {
              name: 'token',
              in: 'path',
              required: true,
              description: 'From a downloadUrl or signed URL.',
              schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' },
            },
          ],
          responses: {
            '200': {
              description: 'The file, with a Content-Disposition file name.',
              content: {
                'application/octet-stream': {
                  schema: { type: 'string', contentMediaType: 'application/octet-stream' },
                },
              },
              headers: headerRefs('Content-Disposition'),
            },
            ...errors('400', '404', '410'),
          },
        },
      },
      '/api/v1/signed-url': {
        post: {
          summary: 'Mint a signed download URL (Business and up)',
          description: 'Keeps the output of a done job until the URL expires.',
          tags: ['Downloads'],
          requestBody: { required: true, content: { 'application/json': { schema: ref('SignedUrlRequest') } } },
          responses: { '200': json('SignedUrl', 'The signed URL.'), ...errors('400', '401', '403', '404', '429') },
        },
      },
      '/api/v1/credits': {
        get: {
          summary: 'Credit balance',
          tags: ['Account'],
          responses: { '200': json('Credits', 'This month.'), ...errors('401', '429') },
        },
      },
      '/api/v1/history': {
        get: {
          summary: 'Conversion history, newest first',
          tags: ['Account'],
          parameters: (['limit', 'offset'] as const).map((name) => ({
            name,
            in: 'query' as const,
            required: false,
            schema: historyQuery.properties![name]!,
          })),
          responses: { '200': json('History', 'One page.'), ...errors('400', '401', '429') },
        },
      },
      '/api/v1/formats': {
        get: {
          summary: 'Conversions and operations of this server',
          description: "Straight from the plugin registry, with the JSON Schema of each operation's option fields.",
          tags: ['Capabilities'],
          responses: { '200': json('Formats', 'The capability index.'), ...errors('401', '429') },
        },
      },
      ...(webhookPaths(json, errors) as OpenApiDocument['paths']),
      '/healthz': {
        get: {
          summary: 'Liveness',
          tags: ['Health'],
          security: PUBLIC,
          responses: {
            '200': {
              description: 'Up.',
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: { status: { type: 'string', enum: ['ok'] } },
                    required: ['status'],
                  },
                },
              },
            },
          },
        },
      },
      '/readyz': {
        get: {
          summary: 'Readiness',
          description: 'Store, queue and engines.',
          tags: ['Health'],
          security: PUBLIC,
          responses: {
            '200': { description: 'Ready.', content: { 'application/json': { schema: ref('Readiness') } } },
            '503': {
              description: 'Not ready: see checks and unavailable.',
              content: { 'application/json': { schema: ref('Readiness') } },
            },
          },
        },
      },
      '/api/openapi.json': {
        get: {
          summary: 'This document',
          tags: ['Reference'],
          security: PUBLIC,
          responses: {
            '200': { description: 'OpenAPI 3.1.', content: { 'application/json': { schema: { type: 'object' } } } },
          },
        },
      },
      '/docs': {
        get: {
          summary: 'This document as a page',
          tags: ['Reference'],
          security: PUBLIC,
          responses: { '200': { description: 'HTML.', content: { 'text/html': { schema: { type: 'string' } } } } },
        },
      },
    }),
    webhooks: webhookEvents(),
    components: {
      schemas: {
        AcceptedJob: jsonSchema(acceptedJobSchema),
        JobStatus: jsonSchema(jobStatusSchema),
        SignedUrlRequest: jsonSchema(signedUrlRequestSchema, 'input'),
        SignedUrl: jsonSchema(signedUrlSchema),
        BatchAccepted: jsonSchema(batchAcceptedSchema),
        BatchStatus: jsonSchema(batchStatusSchema),
        ExtractionPoll: jsonSchema(extractionPollSchema),
        ...Object.fromEntries(
          Object.keys(extractionRowSchemas).map((tool) => [
            pollSchemaName(tool),
            jsonSchema(extractionPollSchemaOf(tool)),
          ]),
        ),
        Credits: jsonSchema(creditsSchema),
        History: jsonSchema(historySchema),
        Formats: jsonSchema(formatsSchema),
        Readiness: jsonSchema(readinessSchema),
        Error: jsonSchema(errorBodySchema),
        ...webhookSchemas(jsonSchema),
        ...pipelineSchemas(jsonSchema),
      },
      responses: Object.fromEntries(
        Object.entries(ERROR_RESPONSES).map(([status, description]) => [
          status,
          {
            description,
            content: { 'application/json': { schema: ref('Error') } },
            ...(UNCOUNTED_ERRORS.has(status)
              ? {}
              : { headers: headerRefs(...RATE_HEADERS, ...(status === '429' ? ['Retry-After'] : [])) }),
          },
        ]),
      ),
      headers: {
        'RateLimit-Policy': {
          description: 'The quota (draft-ietf-httpapi-ratelimit-headers-11): `"default";q=<requests>;w=60`.',
          schema: { type: 'string' },
        },
        RateLimit: {
          description: 'What is left of it (same draft): `"default";r=<remaining>;t=<seconds to reset>`.',
          schema: { type: 'string' },
        },
        'RateLimit-Limit': { description: "Requests per minute of the key's plan.", schema: { type: 'integer' } },
        'RateLimit-Remaining': { description: 'Requests left in this minute.', schema: { type: 'integer' } },
        'RateLimit-Reset': { description: 'Seconds until the minute resets.', schema: { type: 'integer' } },
        'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } },
        'Content-Disposition': {
          description: '`attachment; filename="<ASCII name>"; filename*=UTF-8\'\'<percent-encoded name>` (RFC 6266).',
          schema: { type: 'string' },
        },
      },
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: ck_live_ followed by 43 characters.' },
      },
    },
  };
}

export async function openapiRoutes(
  app: FastifyInstance,
  { services, publicUrl }: { services: Services; publicUrl: string },
) {
  // The registry is fixed once the server runs: build both once.
  const document = buildOpenApiDocument(services.registry, services.capabilities, publicUrl);
  const page = renderDocsPage(document);
  app.get('/api/openapi.json', async () => document);
  app.get('/docs', async (_request, reply) => reply.type('text/html; charset=utf-8').send(page));
}
