/**
 * WebhookService and the delivery guard, on a real SQLite store and real sockets: addresses
 * refused at delivery (not only at registration), back-off then failure, an endpoint disabled
 * after 5 days failing, secrets sealed at rest, no redirects, the 64 kB cap and the timeout.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from '../contract/index.js';
import { signWebhook, verifyWebhook } from '../webhooks/index.js';
import { SqliteStore, openSqliteDatabase } from '../store/sqlite/index.js';
import { makeAccount, makeJob } from '../store/testing/suite/harness.js';
import { metricsRegistry } from '../telemetry/metrics.js';
import type { Account } from '../store/types.js';
import { postWebhook } from './webhook-http.js';
import { DISABLE_AFTER_MS, WebhookService } from './webhooks.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** transmute_webhook_deliveries_total by result, now. */
async function deliveryCounts(): Promise<Record<string, number>> {
  const metric = await metricsRegistry.getSingleMetric('transmute_webhook_deliveries_total')!.get();
  return Object.fromEntries(metric.values.map((v) => [String(v.labels.result), v.value]));
}

describe('verifyWebhook', () => {
  const secret = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
  const now = 1_800_000_000_000;
  const ts = Math.floor(now / 1000);
  const body = '{"type":"job.done","timestamp":"x","data":{}}';
  it('accepts any one matching v1 signature within the tolerance, and nothing else', () => {
    const headers = {
      'Webhook-Id': 'msg_1',
      'webhook-timestamp': String(ts),
      'webhook-signature': `v1,AAAA ${signWebhook(secret, 'msg_1', ts, body)}`,
    };
    expect(verifyWebhook(secret, headers, Buffer.from(body), { now })).toMatchObject({ type: 'job.done' });
    expect(verifyWebhook(secret, new Headers(headers), body, { now: now + 299_000 })).toMatchObject({
      type: 'job.done',
    });
    expect(() => verifyWebhook(secret, headers, body, { now: now + 301_000 })).toThrow(/tolerance/);
    expect(() => verifyWebhook(secret, { ...headers, 'Webhook-Id': 'msg_2' }, body, { now })).toThrow(/No matching/);
    expect(() => verifyWebhook(secret, { ...headers, 'webhook-signature': 'v2,abc' }, body, { now })).toThrow(
      /No matching/,
    );
    expect(() => verifyWebhook(secret, { 'webhook-id': 'msg_1' }, body, { now })).toThrow(/Missing/);
  });
});

describe('WebhookService', () => {
  let dir: string;
  let store: SqliteStore;
  let receiver: Server;
  let port: number;
  let hits: string[];
  let answer: (url: string) => { status: number; body?: string; headers?: Record<string, string> };
  let nowMs: number;
  const clock = { now: () => new Date(nowMs) };
  let account: Account;
  const sources = {
    job: async (id: string) => ({ status: 'done', id }),
    batch: async () => ({}),
    extraction: async () => ({}),
  };

  const service = (allowPrivate: boolean, retryDelaysMs?: number[]) =>
    new WebhookService(
      store,
      clock,
      silent,
      { tokenSecret: 'x'.repeat(32), allowPrivate, ...(retryDelaysMs ? { retryDelaysMs } : {}) },
      sources,
    );

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      hits.push(req.url ?? '/');
      req.resume();
      req.on('end', () => {
        const { status, body, headers } = answer(req.url ?? '/');
        res.writeHead(status, headers).end(body);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    port = (receiver.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-webhooks-'));
    store = new SqliteStore(openSqliteDatabase(path.join(dir, 'transmute.db')));
    hits = [];
    answer = () => ({ status: 204 });
    nowMs = Date.now();
    account = makeAccount({ emailVerified: true, createdAt: new Date() });
    await store.accounts.accounts.create(account);
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function delivery(endpointId: string, url: string) {
    const id = `msg_${randomUUID()}`;
    await store.webhooks.webhookDeliveries.create({
      id,
      accountId: account.id,
      eventKey: `job.done:${id}`,
      type: 'job.done',
      subjectId: 'job_1',
      endpointId,
      url,
      nextAttemptAt: clock.now(),
      createdAt: clock.now(),
    });
    return id;
  }

  /** A job of the account, created and started now; its id. */
  async function startedJob(): Promise<string> {
    const job = await store.jobs.jobs.create(
      makeJob(account.id, { createdAt: clock.now(), inputsExpireAt: clock.now() }),
    );
    await store.jobs.jobs.start(job.id, clock.now());
    return job.id;
  }

  it('checks the address again at delivery: an endpoint that now points at loopback is never called', async () => {
    const lax = service(true);
    const { endpoint } = await lax.create({ account, keyId: 'k' }, { url: `http://127.0.0.1:${port}/hook` });
    // Registered while private addresses were allowed (or its name resolved elsewhere then): delivery checks again.
    await store.webhooks.webhookEndpoints.update(endpoint.id, { url: `https://127.0.0.1:${port}/hook` });
    const strict = service(false);
    const id = await delivery(endpoint.id, endpoint.url);
    const next = await strict.deliver(id);
    expect(next).toBeInstanceOf(Date);
    expect(hits).toEqual([]);
    expect(await store.webhooks.webhookDeliveries.get(id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastError: expect.stringMatching(/loopback, private/),
    });
    expect((await strict.attempts({ account, keyId: 'k' }, endpoint.id))[0]).toMatchObject({
      statusCode: null,
      error: expect.stringMatching(/refused/),
    });
  });

  it(
    'backs off with jitter, fails the delivery after the last retry, and disables an endpoint failing for 5 ' + 'days',
    async () => {
      answer = () => ({ status: 503 });
      const counted = await deliveryCounts();
      const webhooks = service(true, [1_000, 2_000]);
      const { endpoint } = await webhooks.create({ account, keyId: 'k' }, { url: `http://127.0.0.1:${port}/down` });
      const id = await delivery(endpoint.id, endpoint.url);
      const first = (await webhooks.deliver(id))!.getTime() - nowMs;
      expect(first).toBeGreaterThanOrEqual(900);
      expect(first).toBeLessThanOrEqual(1_100);
      const second = (await webhooks.deliver(id))!.getTime() - nowMs;
      expect(second).toBeGreaterThanOrEqual(1_800);
      expect(second).toBeLessThanOrEqual(2_200);
      expect(await webhooks.deliver(id)).toBeNull();
      expect(await store.webhooks.webhookDeliveries.get(id)).toMatchObject({
        status: 'failed',
        attempts: 3,
        lastStatusCode: 503,
      });
      expect(hits).toHaveLength(3);
      expect(await webhooks.get({ account, keyId: 'k' }, endpoint.id)).toMatchObject({
        enabled: true,
        failingSince: new Date(nowMs).toISOString(),
      });

      nowMs += DISABLE_AFTER_MS;
      const late = await delivery(endpoint.id, endpoint.url);
      await webhooks.deliver(late);
      const disabled = await webhooks.get({ account, keyId: 'k' }, endpoint.id);
      expect(disabled).toMatchObject({ enabled: false, disabledReason: expect.stringMatching(/failed for 5 days/) });
      // Pending deliveries of a disabled endpoint are given up; enabling it again clears the failure.
      expect(await webhooks.deliver(late)).toBeNull();
      expect(await store.webhooks.webhookDeliveries.get(late)).toMatchObject({
        status: 'failed',
        lastError: expect.stringMatching(/disabled/),
      });
      expect(await webhooks.update({ account, keyId: 'k' }, endpoint.id, { enabled: true })).toMatchObject({
        enabled: true,
        failingSince: null,
        disabledReason: null,
      });
      // Metrics: three retried attempts, one failed after its last retry, one given up (endpoint disabled).
      const now = await deliveryCounts();
      expect({
        retrying: now.retrying! - counted.retrying!,
        failed: now.failed! - counted.failed!,
        abandoned: now.abandoned! - counted.abandoned!,
        delivered: now.delivered! - counted.delivered!,
      }).toEqual({ retrying: 3, failed: 1, abandoned: 1, delivered: 0 });
    },
  );

  it('an attempt stopped (shutdown, its queue lock lost) is not counted: it is due again now', async () => {
    const silentReceiver = createServer(() => undefined);
    await new Promise<void>((resolve) => silentReceiver.listen(0, '127.0.0.1', resolve));
    try {
      const webhooks = service(true);
      const url = `http://127.0.0.1:${(silentReceiver.address() as AddressInfo).port}/hook`;
      const { endpoint } = await webhooks.create({ account, keyId: 'k' }, { url });
      const id = await delivery(endpoint.id, endpoint.url);
      const connected = new Promise((resolve) => silentReceiver.once('request', resolve));
      const stop = new AbortController();
      const attempt = webhooks.deliver(id, stop.signal);
      await connected;
      stop.abort(new Error('the worker is shutting down'));
      expect(await attempt).toEqual(clock.now());
      expect(await store.webhooks.webhookDeliveries.get(id)).toMatchObject({
        status: 'pending',
        attempts: 0,
        lastError: null,
      });
      expect(await webhooks.attempts({ account, keyId: 'k' }, endpoint.id)).toEqual([]);
      // Stopped before it began: nothing is posted.
      expect(await webhooks.deliver(id, AbortSignal.abort())).toEqual(clock.now());
    } finally {
      silentReceiver.closeAllConnections();
      await new Promise<void>((resolve) => silentReceiver.close(() => resolve()));
    }
  });

  it('emits one delivery per event and target, however often a job is reported finished', async () => {
    const webhooks = service(true);
    await webhooks.create({ account, keyId: 'k' }, { url: `http://127.0.0.1:${port}/a`, events: ['job.done'] });
    await webhooks.create({ account, keyId: 'k' }, { url: `http://127.0.0.1:${port}/b`, events: ['job.failed'] });
    const jobId = await startedJob();
    await store.jobs.jobs.completeWithResult(jobId, { result: {}, at: clock.now() });
    await Promise.all([webhooks.jobFinished(jobId), webhooks.jobFinished(jobId), webhooks.jobFinished(jobId)]);
    const pending = await store.webhooks.webhookDeliveries.listPending();
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ type: 'job.done', subjectId: jobId, url: `http://127.0.0.1:${port}/a` });
    expect(await webhooks.deliver(pending[0]!.id)).toBeNull();
    expect(hits).toEqual(['/a']);
  });

  it(
    'records on the next sweep an event a crash left unrecorded, and never one from before the endpoint ' + 'existed',
    async () => {
      const webhooks = service(true);
      const finish = async () => {
        const jobId = await startedJob();
        await store.jobs.jobs.fail(jobId, 'boom', clock.now(), () => null);
        return jobId;
      };
      const before = await finish(); // no endpoint yet: nobody to tell
      nowMs += 1000;
      await webhooks.create({ account, keyId: 'k' }, { url: `http://127.0.0.1:${port}/a` });
      nowMs += 1000;
      const lost = await finish(); // finished, then the process died before jobFinished
      const pending = await webhooks.pending();
      expect(pending).toHaveLength(1);
      expect(await store.webhooks.webhookDeliveries.get(pending[0]!.id)).toMatchObject({
        type: 'job.failed',
        subjectId: lost,
      });
      expect(await webhooks.pending()).toHaveLength(1); // swept again: still one record
      expect(before).not.toBe(lost);
    },
  );

  it('stores secrets sealed: no database file holds one', async () => {
    const webhooks = service(true);
    const { secret } = await webhooks.create({ account, keyId: 'k' }, { url: `http://127.0.0.1:${port}/a` });
    const { secret: fallback } = await webhooks.rotateDefaultSecret({ account, keyId: 'k' });
    store.db.pragma('wal_checkpoint(TRUNCATE)');
    for (const name of await readdir(dir)) {
      const bytes = await readFile(path.join(dir, name));
      for (const value of [secret, fallback, secret.slice(6)]) expect(bytes.includes(value), name).toBe(false);
    }
    // Another server secret cannot read them.
    const other = new WebhookService(
      store,
      clock,
      silent,
      { tokenSecret: 'y'.repeat(32), allowPrivate: true },
      sources,
    );
    const { endpoint } = (await webhooks.list({ account, keyId: 'k' })).map((e) => ({ endpoint: e }))[0]!;
    await expect(other.sendTest({ account, keyId: 'k' }, endpoint.id)).rejects.toThrow(/TOKEN_SECRET\) changed/);
  });

  it('follows no redirect, reads at most 64 kB of an answer, and gives up after the timeout', async () => {
    const policy = { allowPrivate: true };
    answer = (url) =>
      url === '/redirect'
        ? { status: 302, headers: { location: `http://127.0.0.1:${port}/elsewhere` } }
        : url === '/huge'
          ? { status: 200, body: 'x'.repeat(5_000_000) }
          : { status: 204 };
    const redirected = await postWebhook(`http://127.0.0.1:${port}/redirect`, {}, '{}', policy);
    expect(redirected).toMatchObject({ statusCode: 302, error: 'HTTP 302 (redirects are not followed)' });
    expect(hits).toEqual(['/redirect']);
    expect(await postWebhook(`http://127.0.0.1:${port}/huge`, {}, '{}', policy)).toMatchObject({
      statusCode: 200,
      error: null,
    });

    const silentServer = createServer(() => undefined);
    await new Promise<void>((resolve) => silentServer.listen(0, '127.0.0.1', resolve));
    try {
      // The 300 ms timeout, in its own words ("0 s"): a silent receiver never holds a delivery longer.
      const slow = await postWebhook(
        `http://127.0.0.1:${(silentServer.address() as AddressInfo).port}/`,
        {},
        '{}',
        policy,
        300,
      );
      expect(slow).toMatchObject({ statusCode: null, error: 'Timed out after 0 s' });
    } finally {
      silentServer.closeAllConnections();
      silentServer.close();
    }
    expect(await postWebhook('http://169.254.169.254/latest/meta-data', {}, '{}', policy)).toMatchObject({
      statusCode: null,
      error: expect.stringMatching(/metadata/),
    });
  });
});
