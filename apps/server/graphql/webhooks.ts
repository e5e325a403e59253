/** Webhooks (beyond the spec; REST /api/v1/webhooks): endpoints, secrets, the attempt log. */
import {
  WEBHOOK_EVENT_TYPES,
  webhookAttemptSchema,
  webhookEndpointCreatedSchema,
  webhookEndpointSchema,
  webhookTestResultSchema,
} from '../../../schema/index.js';
import type { Builder } from './builder.js';
import { addZodObject } from './zod-objects.js';

export { WEBHOOK_URL_DESCRIPTION } from '../operations/fields.js';

/** GraphQL enum values cannot hold dots: job.done is JOB_DONE (its internal value stays job.done). */
const enumName = (type: string) => type.replace('.', '_').toUpperCase();

export function addWebhooks(builder: Builder) {
  builder.enumType('WebhookEventType', {
    description: 'The events an endpoint can receive (the value is the event `type`).',
    values: Object.fromEntries(WEBHOOK_EVENT_TYPES.map((type) => [enumName(type), { value: type, description: type }])),
  });

  addZodObject(builder, 'WebhookEndpoint', webhookEndpointSchema, {
    description:
      'Where signed events are pushed (Standard Webhooks). The secret is shown only when created or rotated.',
    types: { id: 'ID', events: 'WebhookEventType' },
  });
  addZodObject(builder, 'WebhookEndpointWithSecret', webhookEndpointCreatedSchema, {
    description: 'An endpoint with its signing secret: the answer to creating it or rotating its secret.',
    types: { endpoint: 'WebhookEndpoint' },
    descriptions: { endpoint: 'The endpoint.' },
  });
  addZodObject(builder, 'WebhookAttempt', webhookAttemptSchema, {
    description: 'One delivery attempt to an endpoint.',
  });
  addZodObject(builder, 'WebhookTestResult', webhookTestResultSchema, {
    description: 'How a webhook.test event went.',
    types: { attempt: 'WebhookAttempt' },
    descriptions: { attempt: 'The attempt made.' },
  });
}
