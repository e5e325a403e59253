/**
 * Beyond the spec: webhook endpoints (`/api/v1/webhooks`), thin operations over WebhookService,
 * and the events Transmute POSTs to receivers (the document's `webhooks`).
 */
import { z } from 'zod';
import {
  FEATURE_MIN_PLAN,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_LOG_SIZE,
  webhookAttemptSchema,
  webhookEndpointCreateSchema,
  webhookEndpointCreatedSchema,
  webhookEndpointSchema,
  webhookEndpointUpdateSchema,
  webhookSecretSchema,
  webhookTestResultSchema,
} from '../../../schema/index.js';
import type { JsonSchema } from '../json-schema.js';
import { BEYOND } from './fields.js';
import { NO_INPUT, defineOperation, type AnyOperation } from './operation.js';

const ABOUT =
  'Beyond the spec; Pro and up. Events are signed per Standard Webhooks (webhook-id, webhook-timestamp, ' +
  'webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">); verify with ' +
  'verifyWebhook(secret, headers, body) from transmute/webhooks.';

export const webhookEndpointListSchema = z.object({ endpoints: z.array(webhookEndpointSchema) });
export const webhookRotatedSchema = z.object({ secret: z.string(), endpoint: webhookEndpointSchema });
export const webhookAttemptsSchema = z.object({ attempts: z.array(webhookAttemptSchema) });
const byId = z.object({ id: z.string().min(1).meta({ description: 'The endpoint id.' }) });
const attemptsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(WEBHOOK_LOG_SIZE).default(WEBHOOK_LOG_SIZE),
});

const ENDPOINT_ID = 'The endpoint id (WebhookEndpoint.id).';
/** An endpoint on tRPC (its procedures' input, without REST's description). */
const byTrpcId = z.object({ id: z.string().min(1) });

/** What every webhook operation shares. */
const common = { tag: 'Webhooks', beyondSpec: true, plan: FEATURE_MIN_PLAN.webhooks, files: 'none' } as const;

/* JSON operations with a transport-neutral `run`: REST and tRPC (trpc/router.ts) both serve them. */
export const createWebhookEndpointOperation = defineOperation({
  ...common,
  name: 'createWebhookEndpoint',
  method: 'POST',
  path: '/api/v1/webhooks',
  summary: 'Register a webhook endpoint',
  description:
    `${ABOUT} The URL must be https and resolve to public addresses only (checked now and before every ` +
    'attempt). The answer holds the secret (whsec_ + base64 of 32 random bytes): shown this once. At most 20 ' +
    'endpoints.',
  body: webhookEndpointCreateSchema,
  bodyComponent: 'WebhookEndpointCreate',
  output: {
    status: 201,
    description: 'Registered.',
    schema: webhookEndpointCreatedSchema,
    component: 'WebhookEndpointCreated',
  },
  errors: ['400', '401', '403', '429'],
  graphql: {
    root: 'mutation',
    type: 'WebhookEndpointWithSecret',
    description: 'Registers an https endpoint (Pro and up); the answer holds its secret, shown once.',
    args: {
      url: { description: 'The https URL to POST events to.' },
      events: { type: 'WebhookEventType', list: true, description: 'The events to send; omitted or null: all.' },
      description: { description: 'A name for it.' },
    },
    decode: true,
  },
  run: (services, principal, request) => services.webhooks.create(principal, request),
  trpc: { path: 'webhooks.create' },
});

export const rotateDefaultWebhookSecretOperation = defineOperation({
  ...common,
  name: 'rotateDefaultWebhookSecret',
  method: 'POST',
  path: '/api/v1/webhooks/default-secret',
  summary: 'Create or rotate the account default webhook secret',
  description:
    'It signs the events sent to a per-request `webhookUrl`; shown once. After a rotation the previous secret ' +
    'keeps signing for 24 h.',
  output: { status: 200, description: 'The new secret.', schema: webhookSecretSchema, component: 'WebhookSecret' },
  errors: ['401', '403', '429'],
  graphql: {
    root: 'mutation',
    type: 'String',
    description:
      'Creates or rotates the account default secret, which signs events sent to a webhookUrl argument; shown once.',
    answer: ({ secret }: { secret: string }) => secret,
  },
  run: (services, principal) => services.webhooks.rotateDefaultSecret(principal),
  trpc: { path: 'webhooks.rotateDefaultSecret' },
});

export const getWebhookEndpointOperation = defineOperation({
  ...common,
  name: 'getWebhookEndpoint',
  method: 'GET',
  path: '/api/v1/webhooks/{id}',
  summary: 'A webhook endpoint',
  params: byId,
  output: {
    status: 200,
    description: 'The endpoint; `enabled: false` with `disabledReason` after 5 days of failures.',
    schema: webhookEndpointSchema,
    component: 'WebhookEndpoint',
  },
  errors: ['401', '403', '404', '429'],
  graphql: {
    root: 'query',
    field: 'webhookEndpoint',
    type: 'WebhookEndpoint',
    description: 'One webhook endpoint of the caller.',
    args: { id: { type: 'ID', description: ENDPOINT_ID } },
  },
  run: (services, principal, { id }) => services.webhooks.get(principal, id),
  trpc: { path: 'webhooks.get' },
});

export const rotateWebhookSecretOperation = defineOperation({
  ...common,
  name: 'rotateWebhookSecret',
  method: 'POST',
  path: '/api/v1/webhooks/{id}/rotate-secret',
  summary: 'Rotate the secret of a webhook endpoint',
  description: 'A new secret, shown once; for 24 h both sign (two v1 signatures in webhook-signature).',
  params: byId,
  output: {
    status: 200,
    description: 'The new secret.',
    schema: webhookRotatedSchema,
    component: 'WebhookRotated',
  },
  errors: ['401', '403', '404', '429'],
  graphql: {
    root: 'mutation',
    type: 'WebhookEndpointWithSecret',
    description: 'A new secret, shown once; the old one keeps signing beside it for 24 h.',
    args: { id: { type: 'ID', description: ENDPOINT_ID } },
  },
  run: (services, principal, { id }) => services.webhooks.rotate(principal, id),
  trpc: { path: 'webhooks.rotateSecret' },
});

export const sendTestWebhookOperation = defineOperation({
  ...common,
  name: 'sendTestWebhook',
  method: 'POST',
  path: '/api/v1/webhooks/{id}/test',
  summary: 'Send a test event',
  description: 'Sends `{type: "webhook.test", timestamp, data: {endpointId}}` now (no retry) and answers how it went.',
  params: byId,
  output: {
    status: 200,
    description: 'The attempt.',
    schema: webhookTestResultSchema,
    component: 'WebhookTestResult',
  },
  errors: ['401', '403', '404', '429'],
  graphql: {
    root: 'mutation',
    type: 'WebhookTestResult',
    description: 'Sends a webhook.test event now and answers how it went.',
    args: { id: { type: 'ID', description: ENDPOINT_ID } },
  },
  run: (services, principal, { id }) => services.webhooks.sendTest(principal, id),
  trpc: { path: 'webhooks.sendTest' },
});

export const listWebhookEndpointsOperation = defineOperation({
  ...common,
  name: 'listWebhookEndpoints',
  method: 'GET',
  path: '/api/v1/webhooks',
  summary: 'Webhook endpoints',
  description: ABOUT,
  output: {
    status: 200,
    description: 'The endpoints (never their secrets).',
    schema: webhookEndpointListSchema,
    component: 'WebhookEndpointList',
  },
  errors: ['401', '403', '429'],
  graphql: {
    root: 'query',
    field: 'webhookEndpoints',
    type: ['WebhookEndpoint'],
    description: "The caller's webhook endpoints (Pro and up).",
    answer: ({ endpoints }: z.output<typeof webhookEndpointListSchema>) => endpoints,
  },
  run: async (services, principal) => ({ endpoints: await services.webhooks.list(principal) }),
  // tRPC keeps the shapes it had before the table: the list and the log as arrays, the patch under `patch`.
  trpc: {
    path: 'webhooks.list',
    input: NO_INPUT,
    output: z.array(webhookEndpointSchema),
    answer: ({ endpoints }) => endpoints,
  },
});

export const updateWebhookEndpointOperation = defineOperation({
  ...common,
  name: 'updateWebhookEndpoint',
  method: 'PATCH',
  path: '/api/v1/webhooks/{id}',
  summary: 'Update a webhook endpoint',
  description:
    'Changes what is given. `events: null` sends every event; `enabled: true` enables it again after it was ' +
    'disabled.',
  params: byId,
  body: webhookEndpointUpdateSchema,
  bodyComponent: 'WebhookEndpointUpdate',
  output: { status: 200, description: 'Updated.', schema: webhookEndpointSchema, component: 'WebhookEndpoint' },
  errors: ['400', '401', '403', '404', '429'],
  graphql: {
    root: 'mutation',
    type: 'WebhookEndpoint',
    description:
      'Changes what is given; events: null sends every event; enabled: true enables a disabled endpoint again.',
    args: {
      id: { type: 'ID', description: ENDPOINT_ID },
      url: { description: 'A new https URL.' },
      events: { type: 'WebhookEventType', list: true, clearable: true, description: 'The events to send; null: all.' },
      description: { clearable: true, description: 'A new name; null clears it.' },
      enabled: { description: 'Enable or disable it.' },
    },
    decode: true,
  },
  run: (services, principal, { id, ...patch }) => services.webhooks.update(principal, id, patch),
  trpc: {
    path: 'webhooks.update',
    input: byTrpcId.extend({ patch: webhookEndpointUpdateSchema }),
    toInput: ({ id, patch }) => ({ id, ...patch }),
    output: webhookEndpointSchema,
    answer: (endpoint) => endpoint,
  },
});

export const deleteWebhookEndpointOperation = defineOperation({
  ...common,
  name: 'deleteWebhookEndpoint',
  method: 'DELETE',
  path: '/api/v1/webhooks/{id}',
  summary: 'Delete a webhook endpoint',
  description: 'Its pending deliveries are given up.',
  params: byId,
  output: { status: 204, description: 'Deleted.' },
  errors: ['401', '403', '404', '429'],
  graphql: {
    root: 'mutation',
    type: 'Boolean',
    description: 'Deletes an endpoint of the caller; true when done.',
    args: { id: { type: 'ID', description: ENDPOINT_ID } },
    answer: () => true,
  },
  run: (services, principal, { id }) => services.webhooks.remove(principal, id),
  trpc: {
    path: 'webhooks.delete',
    input: byTrpcId,
    output: z.object({ deleted: z.literal(true) }),
    answer: () => ({ deleted: true as const }),
  },
});

export const listWebhookAttemptsOperation = defineOperation({
  ...common,
  name: 'listWebhookAttempts',
  method: 'GET',
  path: '/api/v1/webhooks/{id}/attempts',
  summary: 'Delivery log of a webhook endpoint',
  description: `The last ${WEBHOOK_LOG_SIZE} attempts, newest first: status, latency, error.`,
  params: byId,
  query: attemptsQuery,
  output: {
    status: 200,
    description: 'Newest first.',
    schema: webhookAttemptsSchema,
    component: 'WebhookAttempts',
  },
  errors: ['400', '401', '403', '404', '429'],
  graphql: {
    root: 'query',
    field: 'webhookAttempts',
    type: ['WebhookAttempt'],
    description: `The endpoint's last attempts, newest first (at most ${WEBHOOK_LOG_SIZE}).`,
    args: {
      id: { type: 'ID', description: ENDPOINT_ID },
      limit: { description: `How many, newest first (default ${WEBHOOK_LOG_SIZE}).` },
    },
    decode: true,
    answer: ({ attempts }: z.output<typeof webhookAttemptsSchema>) => attempts,
  },
  run: async (services, principal, { id, limit }) => ({
    attempts: await services.webhooks.attempts(principal, id, limit),
  }),
  trpc: {
    path: 'webhooks.attempts',
    input: byTrpcId.extend({ limit: z.number().int().min(1).max(WEBHOOK_LOG_SIZE).default(WEBHOOK_LOG_SIZE) }),
    output: z.array(webhookAttemptSchema),
    answer: ({ attempts }) => attempts,
  },
});

/** Every webhook operation, in the order the document lists them (typed: the tRPC router's type reads them). */
export const WEBHOOK_OPERATIONS = [
  listWebhookEndpointsOperation,
  createWebhookEndpointOperation,
  rotateDefaultWebhookSecretOperation,
  getWebhookEndpointOperation,
  updateWebhookEndpointOperation,
  deleteWebhookEndpointOperation,
  rotateWebhookSecretOperation,
  sendTestWebhookOperation,
  listWebhookAttemptsOperation,
];

export function webhookOperations(): AnyOperation[] {
  return [...WEBHOOK_OPERATIONS];
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The body every event has: its type, when, and its subject with the poll answer. */
export const WEBHOOK_EVENT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['type', 'timestamp', 'data'],
  properties: {
    type: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
    timestamp: {
      type: 'string',
      format: 'date-time',
      description: 'When the event happened (the same on every retry).',
    },
    data: {
      description:
        'The subject (`jobId` for job.*, `batchId` for batch.done, `batchId` and `tool` for extraction.done, on ' +
        'every attempt), then what the poll endpoint answers at the time of the attempt: JobStatus (job.*), ' +
        'BatchStatus (batch.done), ExtractionPoll (extraction.done); `{error}` once the poll would answer 404 ' +
        '(extraction results live 1 hour).',
      allOf: [
        {
          type: 'object',
          properties: {
            jobId: { type: 'string', description: 'The job (job.done, job.failed).' },
            batchId: { type: 'string', description: 'The batch (batch.done, extraction.done).' },
            tool: { type: 'string', description: 'The extraction tool (extraction.done).' },
          },
        },
        { oneOf: [ref('JobStatus'), ref('BatchStatus'), ref('ExtractionPoll'), ref('Error')] },
      ],
    },
  },
};

/** OpenAPI 3.1 `webhooks`: what Transmute POSTs to a receiver. */
export function webhookEvents(): Record<string, object> {
  const headers = {
    'webhook-id': {
      required: true,
      description: 'The same on every retry of an event: the idempotency key.',
      schema: { type: 'string' },
    },
    'webhook-timestamp': { required: true, description: 'Unix seconds of this attempt.', schema: { type: 'string' } },
    'webhook-signature': {
      required: true,
      description: 'Space-separated `v1,<base64 HMAC-SHA256>` under each signing secret.',
      schema: { type: 'string' },
    },
  };
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          // job.done → onJobDone
          operationId: `on${type
            .split('.')
            .map((word) => word[0]!.toUpperCase() + word.slice(1))
            .join('')}`,
          summary: `${type} event`,
          description:
            'Any 2xx within 10 s acknowledges it; otherwise it is retried with back-off and jitter (about 5 s, ' +
            '5 min, 30 min, 2 h, 5 h, 8 h, 8 h), then marked failed. Redirects are not followed.',
          tags: ['Webhooks'],
          ...BEYOND,
          parameters: Object.entries(headers).map(([name, h]) => ({ name, in: 'header', ...h })),
          requestBody: { required: true, content: { 'application/json': { schema: ref('WebhookEvent') } } },
          responses: { '2XX': { description: 'Delivered.' } },
        },
      },
    ]),
  );
}
