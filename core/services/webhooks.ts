/**
 * Webhooks (beyond the spec): signed events pushed when jobs, batches and extractions finish.
 *
 * - Endpoints per account (Pro and up: every paid plan), each with its own secret
 *   (`whsec_` + base64 of 32 CSPRNG bytes, shown once), an optional event filter and a
 *   description; rotating a secret keeps the old one signing for 24 h. Submits may carry a
 *   `webhookUrl` override, signed with the account's default secret.
 * - Events: `job.done`, `job.failed`, `batch.done`, `extraction.done`; the body is
 *   `{type, timestamp, data}` where `data` is what the poll endpoint answers at the time of the
 *   attempt (download links are derived, never stored; extraction rows are never copied past
 *   their 1-hour life).
 * - Signing: Standard Webhooks (core/webhooks/index.ts). The `webhook-id` is the delivery's
 *   id: the same on every retry.
 * - Delivery: one record per event and target (the store's unique key), attempted by queue
 *   jobs (one entry per delivery, rescheduled for each retry, so restarts and several workers are
 *   fine); retries back off with jitter over about 24 h (5 s, 5 min, 30 min, 2 h, 5 h, 8 h, 8 h),
 *   then the delivery is failed. An endpoint failing for 5 days is disabled. The last 100
 *   attempts of each endpoint are kept.
 * - Safety: webhook-http.ts (public addresses only, checked at registration and before every
 *   attempt; no redirects; 64 kB; 10 s).
 *
 * Secrets are stored sealed with AES-256-GCM under a key derived (HKDF) from the server secret
 * (TOKEN_SECRET or DATA_DIR/secret-key): the server must be able to sign, so a hash will not do,
 * and the database alone (a backup, a dump) does not yield them. Changing the server secret
 * makes them unreadable: endpoints then need a new secret (rotate). Secrets are never logged.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import {
  FEATURE_MIN_PLAN,
  MAX_WEBHOOK_ENDPOINTS,
  WEBHOOK_LOG_SIZE,
  planAtLeast,
  type WebhookAttempt,
  type WebhookEndpoint,
  type WebhookEndpointCreate,
  type WebhookEndpointCreated,
  type WebhookEndpointUpdate,
  type WebhookEventType,
  type WebhookTestResult,
} from '../../schema/index.js';
import type { Logger } from '../contract/index.js';
import { WEBHOOK_SECRET_PREFIX, signWebhook } from '../webhooks/index.js';
import type { WebhookDeliveryPort, WebhookQueue } from '../queue/types.js';
import { recordWebhookDelivery } from '../telemetry/metrics.js';
import type {
  Account,
  AccountsStore,
  JobsStore,
  SealedSecrets,
  WebhookAttemptRecord,
  WebhookDeliveryRecord,
  WebhookEndpointRecord,
  WebhooksStore,
} from '../store/types.js';
import type { Principal } from './accounts.js';
import type { Clock } from './clock.js';
import { ServiceError, badRequest, notFound } from './errors.js';
import { requireFeature } from './plan-gates.js';
import { DestinationRefused, type DestinationPolicy } from '../engines/outbound.js';
import { checkWebhookUrl, postWebhook, type AttemptResult } from './webhook-http.js';

/** After each failed attempt, the wait before the next (jittered ±10%): about 24 h in all. */
export const RETRY_DELAYS_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 5 * 3600_000, 8 * 3600_000, 8 * 3600_000];
/** An endpoint whose attempts have all failed for this long is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 3600_000;
/** Jobs finished this recently are swept for events a crash left unrecorded (the sweep runs every minute). */
export const SWEEP_WINDOW_MS = 15 * 60_000;
/** How long a rotated secret keeps signing. */
export const PREVIOUS_SECRET_MS = 24 * 3600_000;
const SECRET_BYTES = 32;

export interface WebhookConfig extends DestinationPolicy {
  /** The server secret the sealing key is derived from. */
  tokenSecret: string;
  /** Tests: another back-off schedule. */
  retryDelaysMs?: readonly number[];
}

/**
 * What a webhook's `data` is made of: the poll answers, per subject (late-bound: the services that give them are built
 * first).
 */
export interface WebhookSources {
  job(jobId: string): Promise<unknown>;
  batch(account: Account, batchId: string): Promise<unknown>;
  extraction(account: Account, tool: string, batchId: string): Promise<unknown>;
}

/** Per-request `webhookUrl` overrides, as the submit services use them. */
export interface RequestWebhooks {
  /** 400 (or 403) before anything is charged when the override cannot be used. */
  check(principal: Principal, url: string): Promise<string>;
  /** Remember the override for the job or batch it was given with (before it is queued). */
  record(subjectId: string, accountId: string, url: string): Promise<void>;
}

/** Told when a job has finished (the runner), or a batch was recorded (batch acceptance). */
export interface JobEvents {
  jobFinished(jobId: string): Promise<void>;
  batchRecorded(batchId: string): Promise<void>;
}

export class WebhookService implements WebhookDeliveryPort, RequestWebhooks, JobEvents {
  private readonly key: Buffer;
  private readonly delays: readonly number[];

  private readonly accountsStore: AccountsStore;
  private readonly jobsStore: JobsStore;
  private readonly webhooksStore: WebhooksStore;

  constructor(
    ports: { accounts: AccountsStore; jobs: JobsStore; webhooks: WebhooksStore },
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly config: WebhookConfig,
    private readonly sources: WebhookSources,
    private readonly queue?: WebhookQueue,
  ) {
    this.accountsStore = ports.accounts;
    this.jobsStore = ports.jobs;
    this.webhooksStore = ports.webhooks;
    this.key = Buffer.from(hkdfSync('sha256', config.tokenSecret, 'transmute', 'transmute/webhook-secrets/v1', 32));
    this.delays = config.retryDelaysMs ?? RETRY_DELAYS_MS;
  }

  // ---- endpoints -------------------------------------------------------------------------

  async create(principal: Principal, input: WebhookEndpointCreate): Promise<WebhookEndpointCreated> {
    requireFeature(principal.account, 'webhooks');
    const existing = await this.webhooksStore.webhookEndpoints.listByAccount(principal.account.id);
    if (existing.length >= MAX_WEBHOOK_ENDPOINTS)
      throw badRequest(`At most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints per account`);
    const url = await this.checkUrl(input.url);
    const secret = newSecret();
    const now = this.clock.now();
    const record: WebhookEndpointRecord = {
      id: `whe_${randomUUID()}`,
      accountId: principal.account.id,
      url,
      description: input.description ?? null,
      events: uniqueEvents(input.events),
      secret: this.seal(secret),
      previousSecret: null,
      previousExpiresAt: null,
      disabledAt: null,
      disabledReason: null,
      failingSince: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.webhooksStore.webhookEndpoints.create(record);
    return { endpoint: this.view(record), secret };
  }

  async list(principal: Principal): Promise<WebhookEndpoint[]> {
    requireFeature(principal.account, 'webhooks');
    return (await this.webhooksStore.webhookEndpoints.listByAccount(principal.account.id)).map((e) => this.view(e));
  }

  async get(principal: Principal, id: string): Promise<WebhookEndpoint> {
    return this.view(await this.owned(principal, id));
  }

  async update(principal: Principal, id: string, patch: WebhookEndpointUpdate): Promise<WebhookEndpoint> {
    const endpoint = await this.owned(principal, id);
    const now = this.clock.now();
    const changes: Partial<WebhookEndpointRecord> = { updatedAt: now };
    if (patch.url !== undefined) changes.url = await this.checkUrl(patch.url);
    if (patch.events !== undefined) changes.events = uniqueEvents(patch.events);
    if (patch.description !== undefined) changes.description = patch.description;
    if (patch.enabled === false && !endpoint.disabledAt)
      Object.assign(changes, { disabledAt: now, disabledReason: 'Disabled by its owner' });
    if (patch.enabled === true && endpoint.disabledAt)
      Object.assign(changes, { disabledAt: null, disabledReason: null, failingSince: null });
    await this.webhooksStore.webhookEndpoints.update(id, changes);
    return this.view({ ...endpoint, ...changes });
  }

  /** A new secret, shown once; the current one keeps signing (beside it) for 24 h. */
  async rotate(principal: Principal, id: string): Promise<{ secret: string; endpoint: WebhookEndpoint }> {
    const endpoint = await this.owned(principal, id);
    const secret = newSecret();
    const changes = { ...this.rotated(endpoint, secret), updatedAt: this.clock.now() };
    await this.webhooksStore.webhookEndpoints.update(id, changes);
    return { secret, endpoint: this.view({ ...endpoint, ...changes }) };
  }

  async remove(principal: Principal, id: string): Promise<void> {
    await this.owned(principal, id);
    await this.webhooksStore.webhookEndpoints.delete(id);
  }

  /** The endpoint's last attempts, newest first (at most 100). */
  async attempts(principal: Principal, id: string, limit = WEBHOOK_LOG_SIZE): Promise<WebhookAttempt[]> {
    await this.owned(principal, id);
    return (
      await this.webhooksStore.webhookAttempts.listByEndpoint(id, Math.max(1, Math.min(limit, WEBHOOK_LOG_SIZE)))
    ).map(attemptView);
  }

  /** Sends a `webhook.test` event now (not queued, not retried) and answers how it went; logged like any attempt. */
  async sendTest(principal: Principal, id: string): Promise<WebhookTestResult> {
    const endpoint = await this.owned(principal, id);
    const webhookId = `msg_${randomUUID()}`;
    const body = JSON.stringify({
      type: 'webhook.test',
      timestamp: this.clock.now().toISOString(),
      data: { endpointId: endpoint.id },
    });
    const result = await this.post(endpoint.url, webhookId, body, this.secretsOf(endpoint));
    const attempt: WebhookAttemptRecord = {
      deliveryId: webhookId,
      endpointId: endpoint.id,
      type: 'webhook.test',
      at: this.clock.now(),
      ...result,
    };
    await this.webhooksStore.webhookAttempts.add(attempt, WEBHOOK_LOG_SIZE);
    return { delivered: result.error === null, attempt: attemptView(attempt) };
  }

  /** Creates or rotates the account's default secret (it signs deliveries to `webhookUrl` overrides); shown once. */
  async rotateDefaultSecret(principal: Principal): Promise<{ secret: string }> {
    requireFeature(principal.account, 'webhooks');
    const secret = newSecret();
    const current = await this.webhooksStore.webhookSecrets.get(principal.account.id);
    const sealed = current
      ? this.rotated(current, secret)
      : { secret: this.seal(secret), previousSecret: null, previousExpiresAt: null };
    await this.webhooksStore.webhookSecrets.put({
      accountId: principal.account.id,
      ...sealed,
      createdAt: this.clock.now(),
    });
    return { secret };
  }

  // ---- per-request overrides --------------------------------------------------------------

  async check(principal: Principal, url: string): Promise<string> {
    requireFeature(principal.account, 'webhooks');
    const checked = await this.checkUrl(url, 'webhookUrl');
    if (!(await this.webhooksStore.webhookSecrets.get(principal.account.id))) {
      throw badRequest(
        'webhookUrl needs the account default webhook secret: create it first (POST /api/v1/webhooks/default-secret)',
      );
    }
    return checked;
  }

  async record(subjectId: string, accountId: string, url: string): Promise<void> {
    await this.webhooksStore.webhookTargets.put({ subjectId, accountId, url, createdAt: this.clock.now() });
  }

  // ---- events --------------------------------------------------------------------------------

  /** A job finished (done or failed): its event, then its batch's if that was the last job. Never throws. */
  async jobFinished(jobId: string): Promise<void> {
    try {
      const job = await this.jobsStore.jobs.get(jobId);
      if (!job || (job.status !== 'done' && job.status !== 'failed')) return;
      // Extraction rows are read through their tool's poll, not as jobs.
      if (job.kind !== 'extract')
        await this.emit(
          job.accountId,
          job.status === 'done' ? 'job.done' : 'job.failed',
          job.id,
          job.completedAt ?? this.clock.now(),
        );
      if (job.batchId) await this.batchRecorded(job.batchId);
    } catch (err) {
      this.log.error('webhook event not recorded', { jobId, error: String((err as Error)?.message ?? err) });
    }
  }

  /**
   * The batch's event once all its jobs have finished (called by every finishing job, and when the batch is recorded).
   */
  async batchRecorded(batchId: string): Promise<void> {
    try {
      const batch = await this.jobsStore.batches.get(batchId);
      if (!batch) return; // recorded after its jobs were queued: checked again when it is
      const jobs = await this.jobsStore.jobs.listByBatch(batchId);
      if (jobs.length < batch.total || jobs.some((j) => j.status === 'waiting' || j.status === 'active')) return;
      const at = new Date(Math.max(batch.createdAt.getTime(), ...jobs.map((j) => j.completedAt?.getTime() ?? 0)));
      await this.emit(batch.accountId, batch.tool ? 'extraction.done' : 'batch.done', batchId, at);
    } catch (err) {
      this.log.error('webhook event not recorded', { batchId, error: String((err as Error)?.message ?? err) });
    }
  }

  /**
   * Events a crash left unrecorded (the job finished, its process died before the event was
   * recorded) are recorded now: every job finished in the last 15 minutes is reported again;
   * events already recorded are left as they are (one record per event and target).
   */
  async sweep(windowMs = SWEEP_WINDOW_MS): Promise<void> {
    const finished = await this.jobsStore.jobs.listFinishedSince(new Date(this.clock.now().getTime() - windowMs));
    const listening = new Map<string, boolean>();
    const batches = new Map<string, string>();
    for (const job of finished) {
      if (!listening.has(job.accountId))
        listening.set(
          job.accountId,
          (await this.webhooksStore.webhookEndpoints.listByAccount(job.accountId)).some((e) => !e.disabledAt),
        );
      if (job.batchId) batches.set(job.batchId, job.accountId);
      if (
        job.kind === 'extract' ||
        (!listening.get(job.accountId) && !(await this.webhooksStore.webhookTargets.get(job.id)))
      )
        continue;
      await this.emit(job.accountId, job.status === 'done' ? 'job.done' : 'job.failed', job.id, job.completedAt);
    }
    for (const [batchId, accountId] of batches) {
      if (listening.get(accountId) || (await this.webhooksStore.webhookTargets.get(batchId)))
        await this.batchRecorded(batchId);
    }
  }

  /**
   * One delivery per target of the event (emitting twice changes nothing), each queued. An
   * endpoint registered after the event happened does not get it.
   */
  private async emit(accountId: string, type: WebhookEventType, subjectId: string, at: Date): Promise<void> {
    const account = await this.accountsStore.accounts.get(accountId);
    if (!account || !planAtLeast(account.plan, FEATURE_MIN_PLAN.webhooks)) return;
    const targets: Array<{ endpointId: string | null; url: string }> = (
      await this.webhooksStore.webhookEndpoints.listByAccount(accountId)
    )
      .filter((e) => !e.disabledAt && (!e.events || e.events.includes(type)) && e.createdAt <= at)
      .map((e) => ({ endpointId: e.id, url: e.url }));
    const override = await this.webhooksStore.webhookTargets.get(subjectId);
    if (override && override.accountId === accountId) targets.push({ endpointId: null, url: override.url });
    const now = this.clock.now();
    for (const target of targets) {
      const id = `msg_${randomUUID()}`;
      const created = await this.webhooksStore.webhookDeliveries.create({
        id,
        accountId,
        eventKey: `${type}:${subjectId}`,
        type,
        subjectId,
        ...target,
        nextAttemptAt: now,
        createdAt: now,
      });
      // A crash before this line leaves the delivery pending without an entry: the reconciler queues it.
      if (created) await this.queue?.enqueueDelivery(id, now);
    }
  }

  // ---- delivery (the queue's port) ------------------------------------------------------------

  /**
   * Pending deliveries, after the sweep has recorded any event a crash left unrecorded (the reconciler calls this every
   * minute).
   */
  async pending(): Promise<Array<{ id: string; nextAttemptAt: Date | null }>> {
    try {
      await this.sweep();
    } catch (err) {
      this.log.error('webhook sweep failed', { error: String((err as Error)?.message ?? err) });
    }
    return (await this.webhooksStore.webhookDeliveries.listPending()).map(({ id, nextAttemptAt }) => ({
      id,
      nextAttemptAt,
    }));
  }

  /**
   * One attempt of a pending delivery; the next attempt's time, or null when it is finished. Stopped by `signal`
   * (shutdown, or the queue lock lost), the attempt is not counted: it is due again now, with the same webhook-id (a
   * receiver that got it anyway sees it twice, as at-least-once delivery allows).
   */
  async deliver(deliveryId: string, signal?: AbortSignal): Promise<Date | null> {
    const delivery = await this.webhooksStore.webhookDeliveries.get(deliveryId);
    if (delivery?.status !== 'pending') return null;
    const endpoint = delivery.endpointId ? await this.webhooksStore.webhookEndpoints.get(delivery.endpointId) : null;
    let sealed: SealedSecrets;
    let url = delivery.url;
    if (delivery.endpointId) {
      if (!endpoint) return this.giveUp(delivery, 'The endpoint was deleted');
      if (endpoint.disabledAt)
        return this.giveUp(delivery, `The endpoint is disabled: ${endpoint.disabledReason ?? 'disabled'}`);
      sealed = endpoint;
      url = endpoint.url;
    } else {
      const account = await this.webhooksStore.webhookSecrets.get(delivery.accountId);
      if (!account) return this.giveUp(delivery, 'The account has no default webhook secret');
      sealed = account;
    }
    let secrets: string[];
    try {
      secrets = this.secretsOf(sealed);
    } catch (err) {
      if (err instanceof ServiceError) return this.giveUp(delivery, err.message);
      throw err;
    }
    const body = JSON.stringify({
      type: delivery.type,
      timestamp: delivery.createdAt.toISOString(),
      data: await this.dataOf(delivery),
    });
    if (signal?.aborted) return this.clock.now();
    const result = await this.post(url, delivery.id, body, secrets, signal);
    if (signal?.aborted) return this.clock.now();
    const at = this.clock.now();
    await this.webhooksStore.webhookAttempts.add(
      { deliveryId: delivery.id, endpointId: delivery.endpointId, type: delivery.type, at, ...result },
      WEBHOOK_LOG_SIZE,
    );
    if (result.error === null) {
      await this.webhooksStore.webhookDeliveries.finish(delivery.id, {
        status: 'delivered',
        statusCode: result.statusCode,
        error: null,
        at,
      });
      if (endpoint?.failingSince) await this.webhooksStore.webhookEndpoints.update(endpoint.id, { failingSince: null });
      recordWebhookDelivery('delivered');
      return null;
    }
    if (endpoint) await this.noteFailure(endpoint, at);
    const delay = this.delays[delivery.attempts];
    if (delay === undefined) {
      await this.webhooksStore.webhookDeliveries.finish(delivery.id, {
        status: 'failed',
        statusCode: result.statusCode,
        error: result.error,
        at,
      });
      this.log.warn('webhook delivery failed after its last retry', {
        deliveryId: delivery.id,
        endpointId: delivery.endpointId,
        error: result.error,
      });
      recordWebhookDelivery('failed');
      return null;
    }
    const nextAttemptAt = new Date(at.getTime() + Math.round(delay * (0.9 + Math.random() * 0.2)));
    await this.webhooksStore.webhookDeliveries.retryLater(delivery.id, {
      statusCode: result.statusCode,
      error: result.error,
      nextAttemptAt,
    });
    recordWebhookDelivery('retrying');
    return nextAttemptAt;
  }

  private async giveUp(delivery: WebhookDeliveryRecord, error: string): Promise<null> {
    await this.webhooksStore.webhookDeliveries.finish(delivery.id, {
      status: 'failed',
      statusCode: null,
      error,
      at: this.clock.now(),
    });
    recordWebhookDelivery('abandoned');
    return null;
  }

  /** Every attempt since `failingSince` failed: past 5 days the endpoint is disabled, and says why. */
  private async noteFailure(endpoint: WebhookEndpointRecord, at: Date): Promise<void> {
    if (!endpoint.failingSince) {
      await this.webhooksStore.webhookEndpoints.update(endpoint.id, { failingSince: at });
    } else if (at.getTime() - endpoint.failingSince.getTime() >= DISABLE_AFTER_MS) {
      await this.webhooksStore.webhookEndpoints.update(endpoint.id, {
        disabledAt: at,
        disabledReason: `Every delivery failed for 5 days (since ${endpoint.failingSince.toISOString()})`,
      });
      this.log.warn('webhook endpoint disabled after failing for 5 days', {
        endpointId: endpoint.id,
        accountId: endpoint.accountId,
      });
    }
  }

  /**
   * The poll answer now, led by what the event is about (`jobId`; `batchId`, and `tool` for an
   * extraction), so a receiver with several jobs in flight can match it; the poll's refusal as
   * `{error}` once it is gone (extraction results live 1 hour). Built again on every attempt.
   */
  private async dataOf(delivery: WebhookDeliveryRecord): Promise<unknown> {
    const isJob = delivery.type === 'job.done' || delivery.type === 'job.failed';
    let subject: Record<string, string> = isJob ? { jobId: delivery.subjectId } : { batchId: delivery.subjectId };
    try {
      if (isJob) return { ...subject, ...((await this.sources.job(delivery.subjectId)) as object) };
      const account = await this.accountsStore.accounts.get(delivery.accountId);
      if (!account) throw notFound('Account not found');
      if (delivery.type === 'batch.done')
        return { ...subject, ...((await this.sources.batch(account, delivery.subjectId)) as object) };
      const tool = (await this.jobsStore.batches.get(delivery.subjectId))?.tool ?? '';
      if (tool) subject = { ...subject, tool };
      return { ...subject, ...((await this.sources.extraction(account, tool, delivery.subjectId)) as object) };
    } catch (err) {
      if (err instanceof ServiceError) return { ...subject, error: err.message };
      throw err;
    }
  }

  private async post(
    url: string,
    webhookId: string,
    body: string,
    secrets: string[],
    signal?: AbortSignal,
  ): Promise<AttemptResult> {
    const timestamp = Math.floor(this.clock.now().getTime() / 1000);
    const signature = secrets.map((secret) => signWebhook(secret, webhookId, timestamp, body)).join(' ');
    return postWebhook(
      url,
      { 'webhook-id': webhookId, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature },
      body,
      this.config,
      undefined,
      signal,
    );
  }

  // ---- helpers --------------------------------------------------------------------------------

  private async owned(principal: Principal, id: string): Promise<WebhookEndpointRecord> {
    requireFeature(principal.account, 'webhooks');
    const endpoint = await this.webhooksStore.webhookEndpoints.get(id);
    if (!endpoint || endpoint.accountId !== principal.account.id) throw notFound('Webhook endpoint not found');
    return endpoint;
  }

  private async checkUrl(url: string, field = 'url'): Promise<string> {
    try {
      return await checkWebhookUrl(url, this.config);
    } catch (err) {
      if (err instanceof DestinationRefused)
        throw badRequest(field === 'url' ? err.message : err.message.replace(/^Webhook URL/, field));
      throw err;
    }
  }

  /** The secrets that sign now: the current one, and the previous one for 24 h after a rotation. */
  private secretsOf(sealed: SealedSecrets): string[] {
    const secrets = [this.unseal(sealed.secret)];
    if (sealed.previousSecret && sealed.previousExpiresAt && sealed.previousExpiresAt > this.clock.now())
      secrets.push(this.unseal(sealed.previousSecret));
    return secrets;
  }

  private rotated(current: SealedSecrets, secret: string): SealedSecrets {
    return {
      secret: this.seal(secret),
      previousSecret: current.secret,
      previousExpiresAt: new Date(this.clock.now().getTime() + PREVIOUS_SECRET_MS),
    };
  }

  /** AES-256-GCM: `v1.` + base64url(iv | tag | ciphertext). */
  private seal(secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return `v1.${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url')}`;
  }

  private unseal(value: string): string {
    const raw = Buffer.from(value.slice(3), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    try {
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      throw new ServiceError(
        'BAD_REQUEST',
        'The webhook secret cannot be read: the server secret (TOKEN_SECRET) changed since it was made; rotate the ' +
          'secret',
      );
    }
  }

  private view(e: WebhookEndpointRecord): WebhookEndpoint {
    const iso = (d: Date | null) => (d ? d.toISOString() : null);
    return {
      id: e.id,
      url: e.url,
      description: e.description,
      events: e.events,
      enabled: !e.disabledAt,
      disabledReason: e.disabledReason,
      disabledAt: iso(e.disabledAt),
      failingSince: iso(e.failingSince),
      previousSecretExpiresAt:
        e.previousExpiresAt && e.previousExpiresAt > this.clock.now() ? e.previousExpiresAt.toISOString() : null,
      createdAt: e.createdAt.toISOString(),
      updatedAt: e.updatedAt.toISOString(),
    };
  }
}

/** `whsec_` + base64 of 32 CSPRNG bytes. */
export function newSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

function uniqueEvents(events: WebhookEventType[] | null | undefined): WebhookEventType[] | null {
  return events ? [...new Set(events)] : null;
}

function attemptView(a: WebhookAttemptRecord): WebhookAttempt {
  return {
    webhookId: a.deliveryId,
    type: a.type,
    at: a.at.toISOString(),
    statusCode: a.statusCode,
    latencyMs: a.latencyMs,
    error: a.error,
  };
}
