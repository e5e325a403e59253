/**
 * Webhooks end to end: a real HTTP receiver started here, a real server (store, queue, worker),
 * events verified with the exported helper. The server runs with WEBHOOKS_ALLOW_PRIVATE=1 so it
 * may call the receiver on 127.0.0.1; a second server without it shows the refusals.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../core/webhooks/index.js';
import { createTransmuteClient } from '../apps/server/trpc/client.js';
import {
  ROOT,
  SLOW_TEXT_PLUGIN,
  authHeaders,
  getJson,
  startServer,
  submitConvert,
  type TestServer,
  waitUntil,
} from './helpers.js';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A receiver: records every request; answers each path with its queued statuses, then 200. */
class Receiver {
  readonly received: Received[] = [];
  private readonly plans = new Map<string, number[]>();
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const pathName = req.url ?? '/';
        this.received.push({
          path: pathName,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        });
        const status = this.plans.get(pathName)?.shift() ?? 200;
        res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'nope');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The next answers of `path`, in order. */
  plan(pathName: string, ...statuses: number[]): void {
    this.plans.set(pathName, statuses);
  }

  on(pathName: string): Received[] {
    return this.received.filter((r) => r.path === pathName);
  }

  async waitFor(pathName: string, count: number, timeoutMs = 20_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.on(pathName).length < count) {
      if (Date.now() > deadline)
        throw new Error(`${pathName}: ${this.on(pathName).length} of ${count} requests after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 25));
    }
    return this.on(pathName);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const json = (key: string) => ({ ...authHeaders(key), 'content-type': 'application/json' });
const text = { name: 'notes.txt', data: 'hello webhooks' };

async function api(url: string, key: string, method: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? authHeaders(key) : json(key),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: res.status === 204 ? null : await res.json() };
}

describe('webhooks', () => {
  const receiver = new Receiver();
  let dataDir: string;
  let server: TestServer;
  let key: string;
  const start = () =>
    startServer({
      dataDir,
      env: {
        PLUGINS: `${SLOW_TEXT_PLUGIN},${path.join(ROOT, 'test/fixtures/plugins/hostile.ts')}`,
        WEBHOOKS_ALLOW_PRIVATE: '1',
      },
    });

  /** Registers an endpoint for `path` on the receiver; returns its id and secret. */
  async function register(
    pathName: string,
    extra: Record<string, unknown> = {},
  ): Promise<{ id: string; secret: string }> {
    const res = await api(`${server.url}/api/v1/webhooks`, key, 'POST', {
      url: `${receiver.url}${pathName}`,
      ...extra,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { id: res.body.endpoint.id, secret: res.body.secret };
  }

  /**
   * The endpoint's attempt log once it holds `count` attempts: the receiver records a delivery when
   * it arrives, the server logs the attempt after reading the answer.
   */
  async function attemptsOnceLogged(id: string, count: number): Promise<any[]> {
    let attempts: any[] = [];
    await waitUntil(
      async () => {
        attempts = (await api(`${server.url}/api/v1/webhooks/${id}/attempts`, key, 'GET')).body.attempts;
        return attempts.length >= count;
      },
      30_000,
      `${count} attempts in the log of webhook ${id}`,
    );
    return attempts;
  }

  async function convert(fields: Record<string, string> = {}): Promise<string> {
    const res = await submitConvert(server.url, key, text, { to: 'md', steps: '1', ...fields });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.jobId;
  }

  beforeAll(async () => {
    await receiver.start();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'transmute-webhooks-'));
    server = await start();
    key = await server.createKey('pro');
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await receiver.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('is for paid plans: a Free key gets 403 plan_required', async () => {
    const free = await server.createKey('free');
    const res = await api(`${server.url}/api/v1/webhooks`, free, 'POST', { url: `${receiver.url}/free` });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('plan_required');
  });

  it('registers an endpoint whose secret is shown once, then sends one signed job.done the helper ' +
    'verifies', async () => {
    const { id, secret } = await register('/done', { events: ['job.done'], description: 'CI receiver' });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    const listed = await api(`${server.url}/api/v1/webhooks`, key, 'GET');
    expect(listed.body.endpoints).toEqual([
      expect.objectContaining({
        id,
        url: `${receiver.url}/done`,
        events: ['job.done'],
        enabled: true,
        description: 'CI receiver',
      }),
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(secret.slice(6));

    const jobId = await convert();
    const [event] = await receiver.waitFor('/done', 1);
    const payload = verifyWebhook<{ type: string; timestamp: string; data: any }>(
      secret,
      event!.headers as Record<string, string>,
      event!.body,
    );
    expect(payload.type).toBe('job.done');
    expect(new Date(payload.timestamp).getTime()).toBeGreaterThan(0);
    // `data` is the poll's answer, led by the job's id.
    const poll = await getJson(`${server.url}/api/v1/jobs/${jobId}`, key);
    expect(payload.data).toEqual({ jobId, ...poll.body });
    expect(Object.keys(payload.data)[0]).toBe('jobId');
    expect(payload.data.downloadUrl).toMatch(/\/api\/download\//);
    expect(event!.headers['webhook-id']).toMatch(/^msg_/);
    // Tampering, another secret, or an old timestamp fail.
    expect(() =>
      verifyWebhook(secret, event!.headers as Record<string, string>, event!.body.replace('done', 'dOne')),
    ).toThrow(WebhookVerificationError);
    expect(() =>
      verifyWebhook(
        `whsec_${Buffer.alloc(32, 1).toString('base64')}`,
        event!.headers as Record<string, string>,
        event!.body,
      ),
    ).toThrow(WebhookVerificationError);
    expect(() =>
      verifyWebhook(secret, event!.headers as Record<string, string>, event!.body, { now: Date.now() + 600_000 }),
    ).toThrow(/tolerance/);

    // Exactly one: nothing else arrives.
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.on('/done')).toHaveLength(1);
    expect(await attemptsOnceLogged(id, 1)).toEqual([
      expect.objectContaining({
        webhookId: event!.headers['webhook-id'],
        type: 'job.done',
        statusCode: 200,
        error: null,
      }),
    ]);
    await api(`${server.url}/api/v1/webhooks/${id}`, key, 'DELETE');
  }, 60_000);

  it('job.failed: a job that fails in its run is pushed with the poll answer', async () => {
    const { id, secret } = await register('/failed', { events: ['job.failed'] });
    // The test op spins until its 2 s deadline: the job fails "Timed out after 2 s".
    const res = await submitConvert(server.url, key, text, { to: 'txt', op: 'test-spin' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [event] = await receiver.waitFor('/failed', 1, 30_000);
    const payload = verifyWebhook<{ type: string; data: any }>(
      secret,
      event!.headers as Record<string, string>,
      event!.body,
    );
    expect(payload.type).toBe('job.failed');
    expect(payload.data).toEqual({
      jobId: res.body.jobId,
      ...(await getJson(`${server.url}/api/v1/jobs/${res.body.jobId}`, key)).body,
    });
    expect(payload.data).toMatchObject({ jobId: res.body.jobId, status: 'failed', error: expect.any(String) });
    await api(`${server.url}/api/v1/webhooks/${id}`, key, 'DELETE');
  }, 60_000);

  it('retries after a 500 with the same webhook-id, and logs both attempts', async () => {
    const { id, secret } = await register('/flaky');
    receiver.plan('/flaky', 500);
    const jobId = await convert();
    const [first, second] = await receiver.waitFor('/flaky', 2, 30_000);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(4_000);
    expect(first!.body).toBe(second!.body);
    // Every attempt names its job.
    for (const attempt of [first!, second!])
      expect(verifyWebhook(secret, attempt.headers as Record<string, string>, attempt.body)).toMatchObject({
        type: 'job.done',
        data: { jobId },
      });
    const attempts = await attemptsOnceLogged(id, 2);
    expect(attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([200, 500]);
    expect(attempts[1].error).toBe('HTTP 500');
    // The success clears failingSince just after it logs the attempt.
    let endpoint = await api(`${server.url}/api/v1/webhooks/${id}`, key, 'GET');
    for (const giveUpAt = Date.now() + 30_000; endpoint.body.failingSince !== null && Date.now() < giveUpAt; ) {
      await new Promise((r) => setTimeout(r, 200));
      endpoint = await api(`${server.url}/api/v1/webhooks/${id}`, key, 'GET');
    }
    expect(endpoint.body).toMatchObject({ enabled: true, failingSince: null });
    await api(`${server.url}/api/v1/webhooks/${id}`, key, 'DELETE');
  }, 60_000);

  it('rotation: the new secret is shown once, and both secrets sign for 24 h', async () => {
    const { id, secret: old } = await register('/rotate');
    const rotated = await api(`${server.url}/api/v1/webhooks/${id}/rotate-secret`, key, 'POST');
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.secret as string;
    expect(fresh).not.toBe(old);
    expect(rotated.body.endpoint.previousSecretExpiresAt).not.toBeNull();
    const test = await api(`${server.url}/api/v1/webhooks/${id}/test`, key, 'POST');
    expect(test.body).toMatchObject({ delivered: true, attempt: { type: 'webhook.test', statusCode: 200 } });
    const [event] = await receiver.waitFor('/rotate', 1);
    expect(String(event!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifyWebhook(fresh, event!.headers as Record<string, string>, event!.body)).toMatchObject({
      type: 'webhook.test',
      data: { endpointId: id },
    });
    expect(verifyWebhook(old, event!.headers as Record<string, string>, event!.body)).toMatchObject({
      type: 'webhook.test',
    });
    await api(`${server.url}/api/v1/webhooks/${id}`, key, 'DELETE');
  }, 30_000);

  it('per-request webhookUrl: needs the default secret, then job and batch events go there signed with ' +
    'it', async () => {
    const refused = await submitConvert(server.url, key, text, {
      to: 'md',
      steps: '1',
      webhookUrl: `${receiver.url}/override`,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/default webhook secret/);
    const {
      body: { secret },
    } = await api(`${server.url}/api/v1/webhooks/default-secret`, key, 'POST');
    const jobId = await convert({ webhookUrl: `${receiver.url}/override` });
    const [event] = await receiver.waitFor('/override', 1);
    expect(verifyWebhook(secret, event!.headers as Record<string, string>, event!.body)).toMatchObject({
      type: 'job.done',
      data: { jobId, status: 'done' },
    });
    expect((await getJson(`${server.url}/api/v1/jobs/${jobId}`, key)).body.status).toBe('done');

    const form = new FormData();
    for (const name of ['a.txt', 'b.txt']) form.append('files', new Blob(['batch']), name);
    form.append('to', 'md');
    form.append('steps', '1');
    form.append('webhookUrl', `${receiver.url}/batch`);
    const batch = await fetch(`${server.url}/api/batch/convert`, {
      method: 'POST',
      body: form,
      headers: authHeaders(key),
    });
    const { batchId } = (await batch.json()) as { batchId: string };
    const [batchEvent] = await receiver.waitFor('/batch', 1);
    const payload = verifyWebhook<{ type: string; data: unknown }>(
      secret,
      batchEvent!.headers as Record<string, string>,
      batchEvent!.body,
    );
    expect(payload.type).toBe('batch.done');
    expect(payload.data).toEqual({ batchId, ...(await getJson(`${server.url}/api/batch/${batchId}`, key)).body });
    // The override gets the batch's event only, once.
    await new Promise((r) => setTimeout(r, 1000));
    expect(receiver.on('/batch')).toHaveLength(1);
  }, 60_000);

  it('extraction.done carries the poll answer, to registered endpoints and to a per-request webhookUrl', async () => {
    const { id, secret } = await register('/extraction', { events: ['extraction.done'] });
    const {
      body: { secret: fallback },
    } = await api(`${server.url}/api/v1/webhooks/default-secret`, key, 'POST');
    const form = new FormData();
    form.append('files', new Blob(['Invoice 42 is paid. INVOICE 43 is late.']), 'notes.txt');
    form.append('query', 'invoice');
    form.append('webhookUrl', `${receiver.url}/extraction-override`);
    const res = await fetch(`${server.url}/api/file-search`, { method: 'POST', body: form, headers: authHeaders(key) });
    const { batchId } = (await res.json()) as { batchId: string };
    const [event] = await receiver.waitFor('/extraction', 1);
    const [override] = await receiver.waitFor('/extraction-override', 1);
    const payload = verifyWebhook<{ type: string; data: any }>(
      secret,
      event!.headers as Record<string, string>,
      event!.body,
    );
    expect(payload.type).toBe('extraction.done');
    expect(payload.data).toMatchObject({
      batchId,
      tool: 'file-search',
      done: true,
      total: 1,
      completed: 1,
      totalHits: 2,
    });
    expect(payload.data).toEqual({
      batchId,
      tool: 'file-search',
      ...(await getJson(`${server.url}/api/file-search/${batchId}`, key)).body,
    });
    expect(verifyWebhook(fallback, override!.headers as Record<string, string>, override!.body)).toMatchObject({
      type: 'extraction.done',
      data: { batchId, tool: 'file-search' },
    });
    // An extraction's rows are not jobs: no job.done for them.
    await new Promise((r) => setTimeout(r, 1000));
    expect(receiver.on('/extraction')).toHaveLength(1);
    await api(`${server.url}/api/v1/webhooks/${id}`, key, 'DELETE');
  }, 60_000);

  it('GraphQL and tRPC manage the same endpoints; OpenAPI documents them as beyond the spec', async () => {
    const gql = async (query: string, variables: Record<string, unknown> = {}) =>
      (await (
        await fetch(`${server.url}/graphql`, {
          method: 'POST',
          headers: json(key),
          body: JSON.stringify({ query, variables }),
        })
      ).json()) as any;
    const created = await gql(
      'mutation($url: String!) { createWebhookEndpoint(url: $url, events: [JOB_FAILED, BATCH_DONE]) { secret ' +
        'endpoint { id events enabled } } }',
      { url: `${receiver.url}/gql` },
    );
    expect(created.errors).toBeUndefined();
    const { secret, endpoint } = created.data.createWebhookEndpoint;
    expect(secret).toMatch(/^whsec_/);
    expect(endpoint).toMatchObject({ events: ['JOB_FAILED', 'BATCH_DONE'], enabled: true });
    const updated = await gql(
      'mutation($id: ID!) { updateWebhookEndpoint(id: $id, enabled: false, events: null) { enabled events ' +
        'disabledReason } }',
      { id: endpoint.id },
    );
    expect(updated.data.updateWebhookEndpoint).toEqual({
      enabled: false,
      events: null,
      disabledReason: 'Disabled by its owner',
    });
    const refused = await gql('mutation { createWebhookEndpoint(url: "http://169.254.169.254/") { secret } }');
    expect(refused.errors[0].extensions.code).toBe('BAD_USER_INPUT');

    const trpc = createTransmuteClient(server.url, key);
    const listed = await trpc.webhooks.list.query();
    expect(listed.find((e) => e.id === endpoint.id)).toMatchObject({ enabled: false, url: `${receiver.url}/gql` });
    const test = await trpc.webhooks.sendTest.mutate({ id: endpoint.id });
    expect(test.delivered).toBe(true);
    const [event] = await receiver.waitFor('/gql', 1);
    expect(verifyWebhook(secret, event!.headers as Record<string, string>, event!.body)).toMatchObject({
      type: 'webhook.test',
    });
    expect((await trpc.webhooks.attempts.query({ id: endpoint.id }))[0]).toMatchObject({
      type: 'webhook.test',
      statusCode: 200,
    });
    expect(await trpc.webhooks.delete.mutate({ id: endpoint.id })).toEqual({ deleted: true });
    expect((await api(`${server.url}/api/v1/webhooks/${endpoint.id}`, key, 'GET')).status).toBe(404);

    const openapi = (await getJson(`${server.url}/api/openapi.json`, undefined)).body;
    expect(openapi.paths['/api/v1/webhooks'].post['x-beyond-spec']).toBe(true);
    expect(
      openapi.paths['/api/v1/convert'].post.requestBody.content['multipart/form-data'].schema.properties.webhookUrl[
        'x-beyond-spec'
      ],
    ).toBe(true);
    expect(Object.keys(openapi.webhooks)).toEqual(['job.done', 'job.failed', 'batch.done', 'extraction.done']);
  }, 30_000);

  it('refuses metadata addresses whatever the setting, and bad URLs', async () => {
    for (const url of [
      'http://169.254.169.254/latest',
      'http://[fd00:ec2::254]/',
      'http://[::ffff:169.254.169.254]/',
      'ftp://example.com/',
      'http://user:pw@127.0.0.1/',
    ]) {
      const res = await api(`${server.url}/api/v1/webhooks`, key, 'POST', { url });
      expect(res.status, url).toBe(400);
    }
  });

  it('without WEBHOOKS_ALLOW_PRIVATE: loopback, private and link-local addresses and plain http are ' +
    'refused', async () => {
    const strict = await startServer({ env: { PLUGINS: SLOW_TEXT_PLUGIN } });
    try {
      const strictKey = await strict.createKey('business');
      for (const url of [
        'https://127.0.0.1/',
        'https://localhost/',
        'https://10.1.2.3/',
        'https://192.168.1.1/',
        'https://172.16.0.1/',
        'https://169.254.1.1/',
        'https://[::1]/',
        'https://[fe80::1]/',
        'https://[fc00::1]/',
        'https://[::ffff:10.0.0.1]/',
        'https://0.0.0.0/',
        'https://2130706433/',
        'http://93.184.215.14/',
      ]) {
        const res = await api(`${strict.url}/api/v1/webhooks`, strictKey, 'POST', { url });
        expect(res.status, url).toBe(400);
        expect(res.body.error, url).toMatch(/refused|https/);
      }
      const override = await submitConvert(strict.url, strictKey, text, { to: 'md', webhookUrl: 'https://127.0.0.1/' });
      expect(override.status).toBe(400);
      expect(override.body.error).toMatch(/^webhookUrl refused/);
    } finally {
      await strict.close();
    }
  }, 60_000);

  it('an event whose retry was due across a restart is delivered by the next server (same webhook-id)', async () => {
    const { secret } = await register('/restart');
    receiver.plan('/restart', 500);
    await convert();
    const [first] = await receiver.waitFor('/restart', 1);
    // The retry is due when the server stops: the first attempt's answer was read and its retry scheduled (the
    // receiver records a request before it answers). A stop in the middle of an attempt leaves its entry locked
    // for the webhook lock's 30 s, and the next server retries only after that.
    await waitUntil(
      async () => {
        const { jobs } = await server.server.runtime.queue.agenda.queryJobs({
          data: { deliveryId: first!.headers['webhook-id'] },
        });
        return jobs.length === 1 && !jobs[0]!.lockedAt && !!jobs[0]!.nextRunAt;
      },
      30_000,
      "the first attempt's retry to be scheduled",
    );
    await server.close();
    server = await start();
    const [, second] = await receiver.waitFor('/restart', 2, 30_000);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(verifyWebhook(secret, second!.headers as Record<string, string>, second!.body)).toMatchObject({
      type: 'job.done',
    });
    await new Promise((r) => setTimeout(r, 1000));
    expect(receiver.on('/restart')).toHaveLength(2);
  }, 90_000);
});
