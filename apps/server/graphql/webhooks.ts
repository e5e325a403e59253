/** Webhooks (beyond the spec; REST /api/v1/webhooks): endpoints, secrets, the attempt log. */
import {
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_LOG_SIZE,
  type WebhookAttempt,
  type WebhookEndpoint,
  type WebhookTestResult,
} from '../../../schema/index.js';
import type { Builder } from './builder.js';
import { runOperation } from '../operations/operation.js';
import * as operations from '../operations/webhooks.js';

export const WEBHOOK_URL_DESCRIPTION =
  'Beyond the spec (Pro and up): also send the event of this request (job.done/job.failed, batch.done or extraction.done) to this https URL, signed with the account default webhook secret.';

/** GraphQL enum values cannot hold dots: job.done is JOB_DONE. */
const enumName = (type: string) => type.replace('.', '_').toUpperCase();
const fromEnum = (value: string) => WEBHOOK_EVENT_TYPES.find((type) => enumName(type) === value)!;

/** Drops the arguments the client did not send (null means "clear" only where the field allows it). */
function given(args: Record<string, unknown>, nullable: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(args).filter(([key, value]) => value !== undefined && (value !== null || nullable.includes(key))),
  );
}

const ENDPOINT_ID = 'The endpoint id (WebhookEndpoint.id).';

export function addWebhooks(builder: Builder) {
  const WebhookEventType = builder.enumType('WebhookEventType', {
    description: 'The events an endpoint can receive (the value is the event `type`).',
    values: Object.fromEntries(WEBHOOK_EVENT_TYPES.map((type) => [enumName(type), { description: type }])),
  });
  const toEnum = (events: readonly string[] | null) => (events ? events.map(enumName) : null);

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
        resolve: (e) => toEnum(e.events) as never,
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

  const WithSecret = builder
    .objectRef<{ endpoint: WebhookEndpoint; secret: string }>('WebhookEndpointWithSecret')
    .implement({
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

  const TestResult = builder.objectRef<WebhookTestResult>('WebhookTestResult').implement({
    description: 'How a webhook.test event went.',
    fields: (t) => ({
      delivered: t.exposeBoolean('delivered', { description: 'The receiver answered 2xx.' }),
      attempt: t.field({ type: Attempt, description: 'The attempt made.', resolve: (r) => r.attempt }),
    }),
  });

  builder.queryField('webhookEndpoints', (t) =>
    t.field({
      type: [Endpoint],
      nullable: true,
      description: "The caller's webhook endpoints (Pro and up).",
      resolve: async (_root, _args, ctx) =>
        (await runOperation(operations.listWebhookEndpointsOperation, ctx, {})).endpoints,
    }),
  );
  builder.queryField('webhookEndpoint', (t) =>
    t.field({
      type: Endpoint,
      nullable: true,
      description: 'One webhook endpoint of the caller.',
      args: { id: t.arg.id({ required: true, description: ENDPOINT_ID }) },
      resolve: (_root, { id }, ctx) => runOperation(operations.getWebhookEndpointOperation, ctx, { id: String(id) }),
    }),
  );
  builder.queryField('webhookAttempts', (t) =>
    t.field({
      type: [Attempt],
      nullable: true,
      description: `The endpoint's last attempts, newest first (at most ${WEBHOOK_LOG_SIZE}).`,
      args: {
        id: t.arg.id({ required: true, description: ENDPOINT_ID }),
        limit: t.arg.int({ description: `How many, newest first (default ${WEBHOOK_LOG_SIZE}).` }),
      },
      resolve: async (_root, { id, limit }, ctx) =>
        (
          await runOperation(
            operations.listWebhookAttemptsOperation,
            ctx,
            { id: String(id), limit: limit ?? undefined },
            { decode: true },
          )
        ).attempts,
    }),
  );

  builder.mutationField('createWebhookEndpoint', (t) =>
    t.field({
      type: WithSecret,
      nullable: true,
      description: 'Registers an https endpoint (Pro and up); the answer holds its secret, shown once.',
      args: {
        url: t.arg.string({ required: true, description: 'The https URL to POST events to.' }),
        events: t.arg({ type: [WebhookEventType], description: 'The events to send; omitted or null: all.' }),
        description: t.arg.string({ description: 'A name for it.' }),
      },
      resolve: (_root, args, ctx) =>
        runOperation(
          operations.createWebhookEndpointOperation,
          ctx,
          given({ ...args, events: args.events?.map((e) => fromEnum(e as string)) }, []),
          { decode: true },
        ),
    }),
  );
  builder.mutationField('updateWebhookEndpoint', (t) =>
    t.field({
      type: Endpoint,
      nullable: true,
      description:
        'Changes what is given; events: null sends every event; enabled: true enables a disabled endpoint again.',
      args: {
        id: t.arg.id({ required: true, description: ENDPOINT_ID }),
        url: t.arg.string({ description: 'A new https URL.' }),
        events: t.arg({ type: [WebhookEventType], description: 'The events to send; null: all.' }),
        description: t.arg.string({ description: 'A new name; null clears it.' }),
        enabled: t.arg.boolean({ description: 'Enable or disable it.' }),
      },
      resolve: (_root, { id, ...args }, ctx) =>
        runOperation(
          operations.updateWebhookEndpointOperation,
          ctx,
          {
            id: String(id),
            ...given(
              { ...args, events: args.events === null ? null : args.events?.map((e) => fromEnum(e as string)) },
              ['events', 'description'],
            ),
          },
          { decode: true },
        ),
    }),
  );
  builder.mutationField('rotateWebhookSecret', (t) =>
    t.field({
      type: WithSecret,
      nullable: true,
      description: 'A new secret, shown once; the old one keeps signing beside it for 24 h.',
      args: { id: t.arg.id({ required: true, description: ENDPOINT_ID }) },
      resolve: (_root, { id }, ctx) => runOperation(operations.rotateWebhookSecretOperation, ctx, { id: String(id) }),
    }),
  );
  builder.mutationField('deleteWebhookEndpoint', (t) =>
    t.boolean({
      nullable: true,
      description: 'Deletes an endpoint of the caller; true when done.',
      args: { id: t.arg.id({ required: true, description: ENDPOINT_ID }) },
      resolve: async (_root, { id }, ctx) => {
        await runOperation(operations.deleteWebhookEndpointOperation, ctx, { id: String(id) });
        return true;
      },
    }),
  );
  builder.mutationField('sendTestWebhook', (t) =>
    t.field({
      type: TestResult,
      nullable: true,
      description: 'Sends a webhook.test event now and answers how it went.',
      args: { id: t.arg.id({ required: true, description: ENDPOINT_ID }) },
      resolve: (_root, { id }, ctx) => runOperation(operations.sendTestWebhookOperation, ctx, { id: String(id) }),
    }),
  );
  builder.mutationField('rotateDefaultWebhookSecret', (t) =>
    t.string({
      nullable: true,
      description:
        'Creates or rotates the account default secret, which signs events sent to a webhookUrl argument; shown once.',
      resolve: async (_root, _args, ctx) =>
        (await runOperation(operations.rotateDefaultWebhookSecretOperation, ctx, {})).secret,
    }),
  );
}
