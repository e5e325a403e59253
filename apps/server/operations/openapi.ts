/**
 * The OpenAPI 3.1 document, generated from the operation table by zod-openapi: each operation's
 * parameters, body and answers from its zod (the multipart forms from the registry), the components
 * from the schemas the table names. Served at /api/openapi.json and as a page at /docs.
 */
import { z } from 'zod';
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodObjectInput,
  type oas31,
} from 'zod-openapi';
import {
  chunkListSchema,
  documentSchema,
  errorBodySchema,
  extractionPollSchema,
  pipelineRequestSchema,
  s3ExportSchema,
} from '../../../schema/index.js';
import type { JsonSchema } from '../json-schema.js';
import { extractionPollSchemas } from './extraction.js';
import { BEYOND } from './fields.js';
import type { AnyOperation } from './operation.js';
import { WEBHOOK_EVENT_SCHEMA, webhookEvents } from './webhooks.js';

/** The document as /docs reads it. */
export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string; required?: boolean; description?: string; schema: JsonSchema }>;
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<
    string,
    { description: string; content?: Record<string, { schema: JsonSchema }> } | { $ref: string }
  >;
}
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description: string };
  servers: Array<{ url: string }>;
  tags: Array<{ name: string; description: string }>;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, { description: string; content?: Record<string, { schema: JsonSchema }> }>;
  };
}

const ERROR_RESPONSES: Record<string, string> = {
  '400': 'Missing or invalid parameters (unsupported format, content not matching its declared type, invalid option).',
  '401': 'Missing or invalid API key.',
  '402': 'Monthly credits exhausted and overage not enabled: "Insufficient API credits".',
  '403': 'Not allowed on this plan (paid-only op, Business-and-up feature): `code` is `plan_required`.',
  '404': 'Not found, expired, or not owned by the key.',
  '409': 'Conflict: the job already finished (cancel).',
  '410': 'The file behind a signed URL has been deleted.',
  '408':
    'The request body stopped arriving for UPLOAD_IDLE_S (60 s by default), or was not whole within UPLOAD_MAX_S ' +
    '(45 minutes by default): nothing of it was kept and the connection is closed. Send it again, or large files ' +
    'by URL.',
  '413': "File over the plan's size limit.",
  '429': 'Per-minute rate limit exceeded; retry after Retry-After seconds.',
  '500': 'Unexpected server error; the details are logged, not sent. Try again.',
  '503':
    "A backing service (the service's database or file store) did not answer, e.g. while it restarts; retry after " +
    'Retry-After seconds.',
  '507':
    "The server's disk is full (an operator must free space); nothing of the request was kept. `code` is " +
    '`insufficient_storage`. Try again later.',
};

/** The operations by tag, in the order the document and /docs list them. */
const TAGS = [
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
 * Sent on every authenticated answer: the IETF draft's fields (httpapi-ratelimit-headers-11), then the legacy three.
 */
const RATE_HEADERS = ['RateLimit-Policy', 'RateLimit', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];
/**
 * Error answers sent before the request was counted (a 401), without a key (410: downloads) or by the HTTP server
 * itself (a 408 at the body's deadline) carry no rate headers.
 */
const UNCOUNTED_ERRORS = new Set(['401', '408', '410']);
/** The headers of an error answer: a 503 may come before the request was counted (its key could not be read). */
const errorHeaders = (status: string) =>
  status === '503'
    ? ['Retry-After']
    : UNCOUNTED_ERRORS.has(status)
      ? []
      : [...RATE_HEADERS, ...(status === '429' ? ['Retry-After'] : [])];

const HEADERS = {
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
} as const;

const headerRefs = (names: string[]) =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** OpenAPI's path template → Fastify's (`{jobId}` → `:jobId`). */
export const fastifyPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

function documentOperation(spec: AnyOperation, components: Components): ZodOpenApiOperationObject {
  const counted = spec.auth !== 'public';
  const { output } = spec;
  const answerHeaders = [...(output.headers ?? []), ...(counted ? RATE_HEADERS : [])];
  const answerContent = output.binary
    ? { [output.binary]: { schema: { type: 'string' as const, contentMediaType: output.binary } } }
    : output.schema
      ? { 'application/json': { schema: components.of(output.schema, output.component) } }
      : undefined;
  const requestContent = {
    ...(spec.body || spec.bodyComponent
      ? {
          'application/json': {
            schema: spec.body ? components.of(spec.body, spec.bodyComponent) : schemaRef(spec.bodyComponent!),
          },
        }
      : {}),
    ...(spec.form
      ? {
          'multipart/form-data': {
            schema: spec.form.schema as oas31.SchemaObject,
            ...(spec.form.jsonFields?.length
              ? {
                  encoding: Object.fromEntries(
                    spec.form.jsonFields.map((name) => [name, { contentType: 'application/json' }]),
                  ),
                }
              : {}),
          },
        }
      : {}),
  };
  return {
    operationId: spec.name,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: [spec.tag],
    ...(spec.beyondSpec ? BEYOND : {}),
    ...(counted ? {} : { security: [] }),
    ...(spec.params || spec.query
      ? {
          requestParams: {
            ...(spec.params ? { path: spec.params as ZodObjectInput } : {}),
            ...(spec.query ? { query: spec.query as ZodObjectInput } : {}),
          },
        }
      : {}),
    ...(spec.headers
      ? {
          parameters: spec.headers.map((header) => ({
            name: header.name,
            in: 'header' as const,
            required: false,
            description: header.description,
            schema: { type: 'string' as const, example: header.example },
            ...(header.beyondSpec ? BEYOND : {}),
          })),
        }
      : {}),
    ...(Object.keys(requestContent).length ? { requestBody: { required: true, content: requestContent } } : {}),
    responses: {
      [String(output.status)]: {
        description: output.description,
        ...(answerContent ? { content: answerContent } : {}),
        ...(answerHeaders.length && output.status !== 204 ? { headers: headerRefs(answerHeaders) } : {}),
      },
      ...Object.fromEntries(
        [...spec.errors, ...Object.keys(spec.errorDescriptions ?? {})].map((status) => {
          const own = spec.errorDescriptions?.[status];
          if (!own) return [status, { $ref: `#/components/responses/${status}` }];
          // A status with its own meaning: an error body, or (readiness) the operation's own answer.
          const content = ERROR_RESPONSES[status]
            ? { 'application/json': { schema: components.name(errorBodySchema, 'Error') } }
            : answerContent;
          return [status, { description: own, ...(content ? { content } : {}) }];
        }),
      ),
      '500': { $ref: '#/components/responses/500' },
      // Every operation but the probes and this document reads the store or the file store.
      ...(spec.tag === 'Health' || spec.tag === 'Reference' ? {} : { '503': { $ref: '#/components/responses/503' } }),
      // Operations that take files read a body bounded in time, and write the files under DATA_DIR first.
      ...(spec.form
        ? { '408': { $ref: '#/components/responses/408' }, '507': { $ref: '#/components/responses/507' } }
        : {}),
    },
  };
}

/**
 * The named schemas (`JobStatus`...): each zod schema the table names is given its component id once
 * (a `.meta({ id })` copy, which zod-openapi draws as a `$ref`), so a schema nested in another stays inline.
 */
class Components {
  private readonly named = new Map<z.ZodType, z.ZodType>();
  readonly schemas: Record<string, z.ZodType | JsonSchema> = {};

  name(schema: z.ZodType, id: string): z.ZodType {
    let named = this.named.get(schema);
    if (!named) {
      named = schema.meta({ id });
      this.named.set(schema, named);
      this.schemas[id] = named;
    }
    return named;
  }

  /** An operation's schema as the document draws it: its component when it has one. */
  of(schema: z.ZodType, id: string | undefined): z.ZodType {
    return id ? this.name(schema, id) : schema;
  }
}

/** The components the webhooks and pipelines refer to by name, beside those of the table. */
function referencedComponents(components: Components): void {
  components.name(extractionPollSchema, 'ExtractionPoll');
  for (const { component, schema } of Object.values(extractionPollSchemas)) components.name(schema, component);
  components.name(errorBodySchema, 'Error');
  components.name(s3ExportSchema, 'S3Export');
  const { $schema: _dialect, ...pipeline } = z.toJSONSchema(pipelineRequestSchema, {
    io: 'input',
    target: 'draft-2020-12',
  }) as JsonSchema;
  components.schemas.PipelineRequest = {
    ...pipeline,
    properties: { ...pipeline.properties, export: schemaRef('S3Export') },
  };
  components.schemas.WebhookEvent = WEBHOOK_EVENT_SCHEMA;
  // The document model (op=structure's result and download) and the chunks (op=chunk's), published for clients.
  components.name(documentSchema, 'Document');
  components.name(chunkListSchema, 'ChunkList');
}

export function buildOpenApiDocument(table: AnyOperation[], publicUrl: string): OpenApiDocument {
  const components = new Components();
  referencedComponents(components);
  const paths: ZodOpenApiPathsObject = {};
  for (const spec of table) {
    paths[spec.path] = { ...paths[spec.path], [spec.method.toLowerCase()]: documentOperation(spec, components) };
  }
  const document = createDocument(
    {
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
      paths,
      webhooks: webhookEvents() as ZodOpenApiPathsObject,
      components: {
        schemas: components.schemas as Record<string, z.ZodType>,
        responses: Object.fromEntries(
          Object.entries(ERROR_RESPONSES).map(([status, description]) => [
            status,
            {
              description,
              content: { 'application/json': { schema: components.name(errorBodySchema, 'Error') } },
              ...(errorHeaders(status).length ? { headers: headerRefs(errorHeaders(status)) } : {}),
            },
          ]),
        ),
        headers: HEADERS,
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API key: ck_live_ followed by 43 characters.',
          },
        },
      },
    },
    { allowEmptySchema: { unknown: true, any: true } },
  );
  typeJobResult(document as unknown as OpenApiDocument);
  return document as unknown as OpenApiDocument;
}

/**
 * A job's `result` is an object whose shape depends on the job: the document model (op=structure),
 * the chunk list (op=chunk) or an extraction tool's row (pipelines): the status says which it may be.
 */
function typeJobResult(document: OpenApiDocument): void {
  const status = (document.components?.schemas as Record<string, JsonSchema> | undefined)?.JobStatus;
  const result = status?.properties?.result as JsonSchema | undefined;
  if (!status?.properties || !result) return;
  const { description: _row, ...row } = result as JsonSchema & { description?: string };
  status.properties.result = {
    description:
      "When done: op=structure's document model, op=chunk's {chunks}, or (pipelines ending in an extraction step) " +
      "the tool's row.",
    anyOf: [schemaRef('Document'), schemaRef('ChunkList'), row],
  } as JsonSchema;
}
