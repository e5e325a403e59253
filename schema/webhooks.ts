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
  id: z.string(),
  url: uriString(),
  description: z.string().nullable(),
  events: z.array(webhookEventTypeSchema).nullable().describe('The events sent; null = all'),
  enabled: z.boolean(),
  /** Why it is disabled: by its owner, or after failing for 5 days. */
  disabledReason: z.string().nullable(),
  disabledAt: dateTimeString().nullable(),
  /** Since when every attempt has failed; null while it is healthy. */
  failingSince: dateTimeString().nullable(),
  /** While a rotated secret still signs (24 h after the rotation). */
  previousSecretExpiresAt: dateTimeString().nullable(),
  createdAt: dateTimeString(),
  updatedAt: dateTimeString(),
});
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;

/** The signing secret: `whsec_` + base64 of 32 random bytes, shown once. */
export const webhookSecretSchema = z.object({ secret: z.string() });

export const webhookEndpointCreatedSchema = z.object({ endpoint: webhookEndpointSchema, secret: z.string() });
export type WebhookEndpointCreated = z.infer<typeof webhookEndpointCreatedSchema>;

export const webhookAttemptSchema = z.object({
  webhookId: z.string(),
  type: z.string(),
  at: dateTimeString(),
  statusCode: z.number().int().nullable(),
  latencyMs: z.number().int(),
  error: z.string().nullable(),
});
export type WebhookAttempt = z.infer<typeof webhookAttemptSchema>;

export const webhookTestResultSchema = z.object({ delivered: z.boolean(), attempt: webhookAttemptSchema });
export type WebhookTestResult = z.infer<typeof webhookTestResultSchema>;

/** The body of every event (and of the test event, type `webhook.test`). */
export const webhookEventSchema = z.object({ type: z.string(), timestamp: z.string(), data: z.unknown() });
