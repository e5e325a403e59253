/**
 * OpenAPI for webhooks (beyond the spec): the /api/v1/webhooks paths, the `webhookUrl` form
 * field of the submits, the event bodies as OpenAPI 3.1 `webhooks`, and their schemas. Every
 * piece is marked `x-beyond-spec: true`.
 */
import { z } from 'zod';
import {
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_LOG_SIZE,
  webhookAttemptSchema,
  webhookEndpointCreateSchema,
  webhookEndpointCreatedSchema,
  webhookEndpointSchema,
  webhookEndpointUpdateSchema,
  webhookSecretSchema,
  webhookTestResultSchema,
} from '../../schema/index.js';
import type { JsonSchema } from './json-schema.js';

const BEYOND = { 'x-beyond-spec': true } as const;
const TAG = ['Webhooks'];
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The submits' extra form field. */
export const WEBHOOK_URL_FIELD: JsonSchema = {
  type: 'string',
  format: 'uri',
  description:
    "Beyond the spec (Pro and up): also send this request's event (job.done or job.failed; batch.done; extraction.done) to this https URL, " +
    'signed with the account default webhook secret (POST /api/v1/webhooks/default-secret). Checked like a registered endpoint.',
  ...BEYOND,
};

type Json = (schemaName: string, description: string) => object;
type Errors = (...statuses: string[]) => object;

export function webhookSchemas(
  toJson: (schema: z.ZodType, io?: 'input' | 'output') => JsonSchema,
): Record<string, JsonSchema> {
  return {
    WebhookEndpoint: toJson(webhookEndpointSchema),
    WebhookEndpointCreate: toJson(webhookEndpointCreateSchema, 'input'),
    WebhookEndpointUpdate: toJson(webhookEndpointUpdateSchema, 'input'),
    WebhookEndpointCreated: toJson(webhookEndpointCreatedSchema),
    WebhookEndpointList: toJson(z.object({ endpoints: z.array(webhookEndpointSchema) })),
    WebhookSecret: toJson(webhookSecretSchema),
    WebhookRotated: toJson(z.object({ secret: z.string(), endpoint: webhookEndpointSchema })),
    WebhookAttempts: toJson(z.object({ attempts: z.array(webhookAttemptSchema) })),
    WebhookTestResult: toJson(webhookTestResultSchema),
    WebhookEvent: {
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
            'The subject (`jobId` for job.*, `batchId` for batch.done, `batchId` and `tool` for extraction.done, on every attempt), then what the poll endpoint answers at the time of the attempt: JobStatus (job.*), BatchStatus (batch.done), ExtractionPoll (extraction.done); `{error}` once the poll would answer 404 (extraction results live 1 hour).',
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
    },
  };
}

export function webhookPaths(json: Json, errors: Errors): Record<string, object> {
  const id = [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }];
  const about =
    'Beyond the spec; Pro and up. Events are signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">); ' +
    'verify with verifyWebhook(secret, headers, body) from transmute/webhooks.';
  return {
    '/api/v1/webhooks': {
      get: {
        summary: 'Webhook endpoints',
        description: about,
        tags: TAG,
        ...BEYOND,
        responses: {
          '200': json('WebhookEndpointList', 'The endpoints (never their secrets).'),
          ...errors('401', '403', '429'),
        },
      },
      post: {
        summary: 'Register a webhook endpoint',
        description: `${about} The URL must be https and resolve to public addresses only (checked now and before every attempt). The answer holds the secret (whsec_ + base64 of 32 random bytes): shown this once. At most 20 endpoints.`,
        tags: TAG,
        ...BEYOND,
        requestBody: { required: true, content: { 'application/json': { schema: ref('WebhookEndpointCreate') } } },
        responses: { '201': json('WebhookEndpointCreated', 'Registered.'), ...errors('400', '401', '403', '429') },
      },
    },
    '/api/v1/webhooks/default-secret': {
      post: {
        summary: 'Create or rotate the account default webhook secret',
        description:
          'It signs the events sent to a per-request `webhookUrl`; shown once. After a rotation the previous secret keeps signing for 24 h.',
        tags: TAG,
        ...BEYOND,
        responses: { '200': json('WebhookSecret', 'The new secret.'), ...errors('401', '403', '429') },
      },
    },
    '/api/v1/webhooks/{id}': {
      get: {
        summary: 'A webhook endpoint',
        tags: TAG,
        ...BEYOND,
        parameters: id,
        responses: {
          '200': json(
            'WebhookEndpoint',
            'The endpoint; `enabled: false` with `disabledReason` after 5 days of failures.',
          ),
          ...errors('401', '403', '404', '429'),
        },
      },
      patch: {
        summary: 'Update a webhook endpoint',
        description:
          'Changes what is given. `events: null` sends every event; `enabled: true` enables it again after it was disabled.',
        tags: TAG,
        ...BEYOND,
        parameters: id,
        requestBody: { required: true, content: { 'application/json': { schema: ref('WebhookEndpointUpdate') } } },
        responses: { '200': json('WebhookEndpoint', 'Updated.'), ...errors('400', '401', '403', '404', '429') },
      },
      delete: {
        summary: 'Delete a webhook endpoint',
        description: 'Its pending deliveries are given up.',
        tags: TAG,
        ...BEYOND,
        parameters: id,
        responses: { '204': { description: 'Deleted.' }, ...errors('401', '403', '404', '429') },
      },
    },
    '/api/v1/webhooks/{id}/rotate-secret': {
      post: {
        summary: 'Rotate the secret of a webhook endpoint',
        description: 'A new secret, shown once; for 24 h both sign (two v1 signatures in webhook-signature).',
        tags: TAG,
        ...BEYOND,
        parameters: id,
        responses: { '200': json('WebhookRotated', 'The new secret.'), ...errors('401', '403', '404', '429') },
      },
    },
    '/api/v1/webhooks/{id}/test': {
      post: {
        summary: 'Send a test event',
        description:
          'Sends `{type: "webhook.test", timestamp, data: {endpointId}}` now (no retry) and answers how it went.',
        tags: TAG,
        ...BEYOND,
        parameters: id,
        responses: { '200': json('WebhookTestResult', 'The attempt.'), ...errors('401', '403', '404', '429') },
      },
    },
    '/api/v1/webhooks/{id}/attempts': {
      get: {
        summary: 'Delivery log of a webhook endpoint',
        description: `The last ${WEBHOOK_LOG_SIZE} attempts, newest first: status, latency, error.`,
        tags: TAG,
        ...BEYOND,
        parameters: [
          ...id,
          {
            name: 'limit',
            in: 'query',
            required: false,
            schema: { type: 'integer', minimum: 1, maximum: WEBHOOK_LOG_SIZE, default: WEBHOOK_LOG_SIZE },
          },
        ],
        responses: { '200': json('WebhookAttempts', 'Newest first.'), ...errors('400', '401', '403', '404', '429') },
      },
    },
  };
}

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
            'Any 2xx within 10 s acknowledges it; otherwise it is retried with back-off and jitter (about 5 s, 5 min, 30 min, 2 h, 5 h, 8 h, 8 h), then marked failed. Redirects are not followed.',
          tags: TAG,
          ...BEYOND,
          parameters: Object.entries(headers).map(([name, h]) => ({ name, in: 'header', ...h })),
          requestBody: { required: true, content: { 'application/json': { schema: ref('WebhookEvent') } } },
          responses: { '2XX': { description: 'Delivered.' } },
        },
      },
    ]),
  );
}
