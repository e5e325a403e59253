/** Wire shapes of webhooks (beyond the spec): endpoints, secrets, the attempt log, the events. */
import { z } from 'zod';
import { dateTimeString, uriString } from './wire.js';

export const WEBHOOK_EVENT_TYPES = ['job.done', 'job.failed', 'batch.done', 'extraction.done'] as const;
export const webhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof webhookEventTypeSchema>;

/** Endpoints one account may register. */
export const MAX_WEBHOOK_ENDPOINTS = 20;
/** Attempts kept per endpoint in its log. */
export const WEBHOOK_LOG_SIZE = 100;

export const webhookEndpointCreateSchema = z.strictObject({
  url: uriString().min(1).max(2048),
  /** The events to send; omitted or null = all of them. */
  events: z.array(webhookEventTypeSchema).min(1).nullable().optional(),
  description: z.string().max(200).nullable().optional(),
});
export type WebhookEndpointCreate = z.infer<typeof webhookEndpointCreateSchema>;

export const webhookEndpointUpdateSchema = z.strictObject({
  url: uriString().min(1).max(2048).optional(),
  events: z.array(webhookEventTypeSchema).min(1).nullable().optional(),
  description: z.string().max(200).nullable().optional(),
  /** false disables the endpoint; true enables it again (also after the service disabled it). */
  enabled: z.boolean().optional(),
});
export type WebhookEndpointUpdate = z.infer<typeof webhookEndpointUpdateSchema>;

export const webhookEndpointSchema = z.object({
  id: z.string().meta({ description: 'The endpoint id.' }),
  url: uriString().meta({ description: 'The https URL events are POSTed to.' }),
  description: z.string().nullable().meta({ description: 'What the owner called it.' }),
  events: z.array(webhookEventTypeSchema).nullable().meta({ description: 'The events sent; null = all.' }),
  enabled: z.boolean().meta({ description: 'False: nothing is sent (see disabledReason).' }),
  disabledReason: z.string().nullable().meta({ description: 'By its owner, or after failing for 5 days.' }),
  disabledAt: dateTimeString().nullable().meta({ description: 'When it was disabled.' }),
  /** Null while it is healthy. */
  failingSince: dateTimeString().nullable().meta({ description: 'Since when every attempt has failed.' }),
  /** 24 h after the rotation. */
  previousSecretExpiresAt: dateTimeString().nullable().meta({ description: 'While the rotated secret still signs.' }),
  createdAt: dateTimeString().meta({ description: 'When it was registered.' }),
  updatedAt: dateTimeString().meta({ description: 'When it last changed.' }),
});
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;

/** The signing secret: `whsec_` + base64 of 32 random bytes, shown once. */
export const webhookSecretSchema = z.object({ secret: z.string() });

export const webhookEndpointCreatedSchema = z.object({
  endpoint: webhookEndpointSchema,
  secret: z.string().meta({
    description: 'The signing secret, whsec_ + base64 of 32 random bytes: shown this once.',
  }),
});
export type WebhookEndpointCreated = z.infer<typeof webhookEndpointCreatedSchema>;

export const webhookAttemptSchema = z.object({
  webhookId: z.string().meta({ description: 'The webhook-id header: the same on every retry of an event.' }),
  type: z.string().meta({ description: 'The event type, e.g. job.done.' }),
  at: dateTimeString().meta({ description: 'When it was sent.' }),
  statusCode: z
    .number()
    .int()
    .nullable()
    .meta({ description: "The receiver's HTTP status; null when none came back." }),
  latencyMs: z.number().int().meta({ description: 'Milliseconds until the answer (or the failure).' }),
  error: z.string().nullable().meta({ description: 'Why it failed; null when delivered.' }),
});
export type WebhookAttempt = z.infer<typeof webhookAttemptSchema>;

export const webhookTestResultSchema = z.object({
  delivered: z.boolean().meta({ description: 'The receiver answered 2xx.' }),
  attempt: webhookAttemptSchema,
});
export type WebhookTestResult = z.infer<typeof webhookTestResultSchema>;
