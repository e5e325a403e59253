/** Webhooks (beyond the spec; REST /api/v1/webhooks): endpoints, secrets, the attempt log. */
import {
  WEBHOOK_EVENT_TYPES,
  type WebhookAttempt,
  type WebhookEndpoint,
  type WebhookTestResult,
} from '../../../schema/index.js';
import type { Builder } from './builder.js';

export { WEBHOOK_URL_DESCRIPTION } from '../operations/fields.js';

/** GraphQL enum values cannot hold dots: job.done is JOB_DONE (its internal value stays job.done). */
const enumName = (type: string) => type.replace('.', '_').toUpperCase();

export function addWebhooks(builder: Builder) {
  const WebhookEventType = builder.enumType('WebhookEventType', {
    description: 'The events an endpoint can receive (the value is the event `type`).',
    values: Object.fromEntries(WEBHOOK_EVENT_TYPES.map((type) => [enumName(type), { value: type, description: type }])),
  });

  const Endpoint = builder.objectRef<WebhookEndpoint>('WebhookEndpoint').implement({
    description:
      'Where signed events are pushed (Standard Webhooks). The secret is shown only when created or rotated.',
    fields: (t) => ({
      id: t.exposeID('id', { description: 'The endpoint id.' }),
      url: t.exposeString('url', { description: 'The https URL events are POSTed to.' }),
      description: t.exposeString('description', { nullable: true, description: 'What the owner called it.' }),
      events: t.field({
        type: [WebhookEventType],
        nullable: true,
        description: 'The events sent; null = all.',
        resolve: (e) => e.events as never,
      }),
      enabled: t.exposeBoolean('enabled', { description: 'False: nothing is sent (see disabledReason).' }),
      disabledReason: t.exposeString('disabledReason', {
        nullable: true,
        description: 'By its owner, or after failing for 5 days.',
      }),
      disabledAt: t.expose('disabledAt', { type: 'DateTime', nullable: true, description: 'When it was disabled.' }),
      failingSince: t.expose('failingSince', {
        type: 'DateTime',
        nullable: true,
        description: 'Since when every attempt has failed.',
      }),
      previousSecretExpiresAt: t.expose('previousSecretExpiresAt', {
        type: 'DateTime',
        nullable: true,
        description: 'While the rotated secret still signs.',
      }),
      createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was registered.' }),
      updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed.' }),
    }),
  });

  builder.objectRef<{ endpoint: WebhookEndpoint; secret: string }>('WebhookEndpointWithSecret').implement({
    description: 'An endpoint with its signing secret: the answer to creating it or rotating its secret.',
    fields: (t) => ({
      endpoint: t.field({ type: Endpoint, description: 'The endpoint.', resolve: (r) => r.endpoint }),
      secret: t.exposeString('secret', {
        description: 'The signing secret, whsec_ + base64 of 32 random bytes: shown this once.',
      }),
    }),
  });

  const Attempt = builder.objectRef<WebhookAttempt>('WebhookAttempt').implement({
    description: 'One delivery attempt to an endpoint.',
    fields: (t) => ({
      webhookId: t.exposeString('webhookId', {
        description: 'The webhook-id header: the same on every retry of an event.',
      }),
      type: t.exposeString('type', { description: 'The event type, e.g. job.done.' }),
      at: t.expose('at', { type: 'DateTime', description: 'When it was sent.' }),
      statusCode: t.exposeInt('statusCode', {
        nullable: true,
        description: "The receiver's HTTP status; null when none came back.",
      }),
      latencyMs: t.exposeInt('latencyMs', { description: 'Milliseconds until the answer (or the failure).' }),
      error: t.exposeString('error', { nullable: true, description: 'Why it failed; null when delivered.' }),
    }),
  });

  builder.objectRef<WebhookTestResult>('WebhookTestResult').implement({
    description: 'How a webhook.test event went.',
    fields: (t) => ({
      delivered: t.exposeBoolean('delivered', { description: 'The receiver answered 2xx.' }),
      attempt: t.field({ type: Attempt, description: 'The attempt made.', resolve: (r) => r.attempt }),
    }),
  });
}
