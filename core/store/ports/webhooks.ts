/**
 * Webhooks: endpoints, account secrets, deliveries, attempt logs and override targets: the records and repository ports
 * of this aggregate.
 */
import type { WebhookEventType } from '../../../schema/index.js';

export type { WebhookEventType };

/**
 * A signing secret as stored: sealed (AES-256-GCM under a key derived from the server secret),
 * so the server can still sign with it but a leaked database alone does not yield it.
 */
export interface SealedSecrets {
  secret: string;
  /** The secret before the last rotation: it still signs until previousExpiresAt (24 h). */
  previousSecret: string | null;
  previousExpiresAt: Date | null;
}

export interface WebhookEndpointRecord extends SealedSecrets {
  id: string;
  accountId: string;
  url: string;
  description: string | null;
  /** The events sent; null = every event. */
  events: WebhookEventType[] | null;
  /** Disabled by its owner, or by the service after failing for 5 days (disabledReason says which). */
  disabledAt: Date | null;
  disabledReason: string | null;
  /** Since when every attempt has failed (null after a success). */
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The account's default secret: it signs deliveries to per-request webhookUrl overrides. */
export interface WebhookAccountSecretRecord extends SealedSecrets {
  accountId: string;
  createdAt: Date;
}

/**
 * One event for one target. `eventKey` (`<type>:<subject id>`) and the target (endpoint id, or
 * the override URL) are unique together: one record per event, however often it is emitted.
 * The record's id is the `webhook-id` every attempt carries.
 */
export interface WebhookDeliveryRecord {
  id: string;
  accountId: string;
  eventKey: string;
  type: WebhookEventType;
  /** Job id (job events) or batch id (batch and extraction events). */
  subjectId: string;
  /** The registered endpoint, or null for a per-request override. */
  endpointId: string | null;
  url: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  nextAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
  completedAt: Date | null;
}

/** The unique target of a delivery: its endpoint, or its override URL. */
export const deliveryTarget = (d: { endpointId: string | null; url: string }): string => d.endpointId ?? `url:${d.url}`;

export type NewWebhookDelivery = Omit<
  WebhookDeliveryRecord,
  'status' | 'attempts' | 'lastStatusCode' | 'lastError' | 'completedAt'
>;

/** One HTTP attempt, for the per-endpoint log (the last 100 are kept). */
export interface WebhookAttemptRecord {
  deliveryId: string;
  endpointId: string | null;
  type: WebhookEventType | 'webhook.test';
  at: Date;
  /** The receiver's HTTP status; null when no answer came (refused, timed out, unreachable). */
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

export interface WebhookEndpointRepo {
  create(endpoint: WebhookEndpointRecord): Promise<void>;
  get(id: string): Promise<WebhookEndpointRecord | null>;
  /** Oldest first. */
  listByAccount(accountId: string): Promise<WebhookEndpointRecord[]>;
  update(id: string, patch: Partial<Omit<WebhookEndpointRecord, 'id' | 'accountId' | 'createdAt'>>): Promise<void>;
  /** Deletes the endpoint and its attempt log; false when there was none. */
  delete(id: string): Promise<boolean>;
}

export interface WebhookAccountSecretRepo {
  get(accountId: string): Promise<WebhookAccountSecretRecord | null>;
  /** Creates or replaces the account's record. */
  put(record: WebhookAccountSecretRecord): Promise<void>;
}

export interface WebhookDeliveryRepo {
  /** False when the event already has a record for that target (nothing written). */
  create(delivery: NewWebhookDelivery): Promise<boolean>;
  get(id: string): Promise<WebhookDeliveryRecord | null>;
  /** After a failed attempt: due again at nextAttemptAt. Only a pending delivery changes. */
  retryLater(
    id: string,
    attempt: { statusCode: number | null; error: string | null; nextAttemptAt: Date },
  ): Promise<boolean>;
  /** Delivered or given up; only a pending delivery changes (false otherwise). */
  finish(
    id: string,
    outcome: { status: 'delivered' | 'failed'; statusCode: number | null; error: string | null; at: Date },
  ): Promise<boolean>;
  /** Pending deliveries, oldest first (recovery). */
  listPending(): Promise<WebhookDeliveryRecord[]>;
}

export interface WebhookAttemptRepo {
  /** Appends an attempt, keeping the newest `keep` of its endpoint. */
  add(attempt: WebhookAttemptRecord, keep: number): Promise<void>;
  /** Newest first. */
  listByEndpoint(endpointId: string, limit: number): Promise<WebhookAttemptRecord[]>;
}

/** Per-request `webhookUrl` overrides, by the job or batch id they were given for. */
export interface WebhookTargetRepo {
  put(target: { subjectId: string; accountId: string; url: string; createdAt: Date }): Promise<void>;
  get(subjectId: string): Promise<{ subjectId: string; accountId: string; url: string; createdAt: Date } | null>;
}

/** What every adapter provides for this aggregate. */
export interface WebhooksStore {
  readonly webhookEndpoints: WebhookEndpointRepo;
  readonly webhookSecrets: WebhookAccountSecretRepo;
  readonly webhookDeliveries: WebhookDeliveryRepo;
  readonly webhookAttempts: WebhookAttemptRepo;
  readonly webhookTargets: WebhookTargetRepo;
}
