/** JobService.watch over a real SQLite store: the job's states as the push surfaces send them. */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Registry } from '../registry/index.js';
import type { SqliteStore } from '../store/sqlite/index.js';
import type { Principal } from './accounts.js';
import { systemClock } from './clock.js';
import { DownloadLinks } from './download-links.js';
import { ServiceError, type Services } from './index.js';
import { servicesOverSqlite } from './testing/services.js';

const TOKEN_SECRET = 'watch-test-secret-of-at-least-32-bytes';

const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise, new Promise<'pending'>((resolve) => setTimeout(resolve, ms, 'pending'))]);

describe('JobService.watch', () => {
  let dir: string;
  let store: SqliteStore;
  let services: Services;
  let owner: Principal;
  let jobId: string;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-watch-'));
    ({ store, services } = servicesOverSqlite(dir, new Registry([]), TOKEN_SECRET));
    const account = await services.accounts.createAccount({ plan: 'pro' });
    owner = { account, keyId: 'test-key' };
    const now = new Date();
    const job = await store.jobs.jobs.create({
      id: randomUUID(),
      accountId: account.id,
      kind: 'convert',
      pluginId: 'test',
      op: null,
      inputFormat: 'txt',
      target: 'md',
      options: {},
      inputs: [],
      creditCost: 1,
      creditPeriod: '2025-01',
      viaApi: true,
      createdAt: now,
      inputsExpireAt: new Date(now.getTime() + 3_600_000),
    });
    jobId = job.id;
  });

  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('sends the state at once, then each change only, and ends after done', async () => {
    const updates = services.jobs.watch(owner, jobId, new AbortController().signal);
    expect((await updates.next()).value).toEqual({ status: 'waiting', progress: 0 });
    const next = updates.next();
    expect(await within(next, 600)).toBe('pending');

    await store.jobs.jobs.start(jobId, new Date());
    expect((await next).value).toEqual({ status: 'active', progress: 0 });
    await store.jobs.jobs.setProgress(jobId, 40, 1);
    expect((await updates.next()).value).toEqual({ status: 'active', progress: 40 });

    const output = { blobKey: 'outputs/x', filename: 'x.md', format: 'md' as const, bytes: 3 };
    const links = new DownloadLinks(store, TOKEN_SECRET, 'http://transmute.test', systemClock);
    await links.complete(jobId, {
      output,
      toolReport: null,
      at: new Date(),
      outputExpiresAt: new Date(Date.now() + 60_000),
    });
    const downloadUrl = expect.stringMatching(/^http:\/\/transmute\.test\/api\/download\/[A-Za-z0-9_-]{43}$/);
    expect((await updates.next()).value).toEqual({ status: 'done', downloadUrl, expiresIn: 900 });
    expect(await updates.next()).toEqual({ done: true, value: undefined });
  });

  it('ends after failed', async () => {
    await store.jobs.jobs.start(jobId, new Date());
    await store.jobs.jobs.fail(jobId, 'Engine crashed', new Date(), () => null);
    const updates = services.jobs.watch(owner, jobId, new AbortController().signal);
    expect((await updates.next()).value).toEqual({ status: 'failed', error: 'Engine crashed' });
    expect((await updates.next()).done).toBe(true);
  });

  it("fails with NOT_FOUND for an unknown job or another holder's job, before any event", async () => {
    const stranger: Principal = { account: await services.accounts.createAccount({ plan: 'pro' }), keyId: 'other-key' };
    for (const [principal, id] of [
      [stranger, jobId],
      [owner, 'no-such-job'],
    ] as const) {
      const error = await services.jobs
        .watch(principal, id, new AbortController().signal)
        .next()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceError);
      expect(error).toMatchObject({ code: 'NOT_FOUND', message: 'Job not found' });
    }
  });

  it('ends when the subscriber goes away', async () => {
    const gone = new AbortController();
    const updates = services.jobs.watch(owner, jobId, gone.signal);
    await updates.next();
    const pending = updates.next();
    gone.abort();
    expect(await pending).toEqual({ done: true, value: undefined });
  });
});
