/**
 * Nothing is lost when the store misbehaves: a job whose queue entry was given up (the store was
 * unreachable past the run's last retry) is queued again by the reconciler and finishes. Real
 * SQLite store and queue, real sandbox process, the test plugin; only the store's `jobs.start`
 * is made to fail for a while.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBlobStore } from '../blobs/local.js';
import type { Logger } from '../contract/index.js';
import { loadPluginModules } from '../contract/modules.js';
import { SandboxPool } from '../engines/execution/sandbox/pool.js';
import { Registry } from '../registry/index.js';
import { createServices, type Services } from '../services/index.js';
import { SqliteStore, openSqliteDatabase } from '../store/sqlite/index.js';
import type { Store } from '../store/types.js';
import { SqliteBackend } from './sqlite-backend/index.js';
import { Queue } from './index.js';

const SLOW_TEXT = path.resolve(import.meta.dirname, '../../test/fixtures/plugins/slow-text.ts');
const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe('queue reconciler', () => {
  let dir: string;
  let store: SqliteStore;
  let queue: Queue;
  let sandbox: SandboxPool;
  let services: Services;
  let storeDown = false;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-reconcile-'));
    const db = openSqliteDatabase(path.join(dir, 'transmute.db'));
    store = new SqliteStore(db);
    // The store as the runner sees it: starting a job fails while it is "down".
    const jobs = new Proxy(store.jobs.jobs, {
      get(target, key, receiver) {
        if (key === 'start' && storeDown)
          return async () => Promise.reject(new Error('SQLITE_BUSY: store unreachable (test)'));
        const value = Reflect.get(target, key, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const flaky = new Proxy(store, {
      get: (target, key, receiver) => (key === 'jobs' ? { ...store.jobs, jobs } : Reflect.get(target, key, receiver)),
    }) as Store;
    const plugins = await loadPluginModules([SLOW_TEXT]);
    sandbox = new SandboxPool({ moduleOf: () => SLOW_TEXT, size: 1, heapMb: 512, log: silent });
    queue = new Queue({
      backend: new SqliteBackend({ database: db }),
      processEveryMs: 50,
      lockLifetimeMs: 2_000,
      log: silent,
      retry: { delayMs: 50, maxDelayMs: 100, maxRetries: 2 },
      maintenanceEvery: '1 second',
    });
    services = createServices({
      store: flaky,
      blobs: new LocalBlobStore(path.join(dir, 'blobs')),
      registry: new Registry(plugins),
      queue,
      executor: sandbox,
      log: silent,
      config: {
        publicUrl: 'http://transmute.test',
        workRoot: path.join(dir, 'work'),
        retentionMs: 3_600_000,
        maxAttempts: 3,
        tokenSecret: 's'.repeat(32),
      },
    });
    await queue.agenda.ready;
  });

  afterAll(async () => {
    await queue.stop(1_000);
    await sandbox.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('queues again a job whose entry was given up while the store was down, and it finishes', {
    timeout: 60_000,
  }, async () => {
    const account = await services.accounts.createAccount({ plan: 'pro' });
    const principal = { account, keyId: 'test' };
    const upload = await services.uploads.stage(
      { filename: 'note.txt', stream: Readable.from([Buffer.from('kept safe')]) },
      1_000_000,
    );
    storeDown = true;
    const { jobId } = await services.jobs.accept(principal, {
      upload,
      to: 'md',
      op: undefined,
      fields: { steps: 1 },
      fieldsAreStrings: false,
      viaApi: true,
    });
    await queue.startWorkers({
      runner: services.runner,
      retention: services.retention,
      store,
      concurrency: 1,
      plugins: [{ id: 'test-slow-text', concurrency: 1 }],
    });

    // Past its last retry, Agenda gives the entry up: failed, nothing due, not locked.
    const entry = await until(
      async () => {
        const [found] = (await queue.agenda.queryJobs({ data: { jobId } })).jobs;
        return found?.failedAt && !found.nextRunAt && !found.lockedAt ? found : undefined;
      },
      20_000,
      'the entry to be given up',
    );
    expect(entry.failCount).toBeGreaterThanOrEqual(3);
    expect((await store.jobs.jobs.get(jobId))?.status).toBe('waiting');

    storeDown = false;
    const done = await until(
      async () => {
        const job = await store.jobs.jobs.get(jobId);
        return job?.status === 'done' ? job : undefined;
      },
      // The maintenance run requeues it, then a fresh sandbox process runs it: slow on a loaded machine.
      40_000,
      'the job to finish',
    );
    expect(done.attempts).toBe(1);
    expect(await services.jobs.status(principal, jobId)).toMatchObject({
      status: 'done',
      downloadUrl: expect.stringContaining('/api/download/'),
    });
    // One entry per job, ever: the given-up one was replaced, and the finished one removed
    // (Agenda removes the finished entry a moment after the job is done in the store.)
    await until(
      async () => ((await queue.agenda.queryJobs({ data: { jobId } })).jobs.length === 0 ? true : undefined),
      15_000,
      'the entry to be removed',
    );
  });

  it('leaves live entries alone', async () => {
    expect(await queue.reconcile(services.runner, store)).toBe(0);
  });
});
