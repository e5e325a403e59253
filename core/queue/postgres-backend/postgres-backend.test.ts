import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { PostgresJobRepository } from '@agendajs/postgres-backend';
import type { JobRepository } from 'agenda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresTestServer } from '../../../test/servers/postgres.js';
import type { Logger } from '../../contract/index.js';
import { PostgresStore } from '../../store/postgres/index.js';
import { DISPATCH_HANG_MS, DISPATCH_POLL_MS as POLL_MS } from '../testing/dispatch.js';
import { Queue } from '../index.js';
import { LockLapsed } from '../run-lock.js';
import { lockCheckedSavesSuite } from '../testing/lock-suite.js';
import { backendConformanceSuite } from '../testing/suite.js';
import { createPostgresQueueBackend, postgresDispatchChannel, prepareQueueSchema, queueBackendOn } from './index.js';

const workerEntry = fileURLToPath(new URL('./testing/worker.ts', import.meta.url));

/**
 * Where @agendajs/postgres-backend, used as published, differs from the suite (written against the
 * SQLite backend). Transmute relies on none of these: its entries are unique on `data.jobId` /
 * `data.deliveryId` strings (plus a unique index, see prepareQueueSchema), repeat with string
 * intervals ('1 minute', cron), are queried by `data` only, and are never disabled or debounced.
 */
const AS_PUBLISHED: Record<string, string> = {
  'inserts a job, assigns an id and round-trips every field': 'a numeric repeatInterval comes back as a string',
  'repeats a job scheduled with every(), keeping a single row': 'a numeric repeatInterval comes back as a string',
  'matches values type-exactly': 'unique data values are compared as text (1 matches "1")',
  'with trailing debounce, pushes nextRunAt back on each save, capped by maxWait': 'debounce timing differs',
  'filters by name, names, id and ids': 'an id that is not a UUID is an error, not "no match"',
  'searches names case-insensitively, with LIKE wildcards taken literally': 'LIKE wildcards in a search are wildcards',
  'filters by computed state, with disabled jobs reported as paused': 'states are computed differently',
  'getJobsOverview counts each name’s jobs per state': 'states are computed differently',
  'disables and enables, counting only jobs that changed': 'counts jobs already in the requested state',
};

/** The next UPDATE commits, then throws as when the connection drops before the reply (the lock suite's fault). */
function loseNextReply(repository: JobRepository): void {
  const pool = (repository as PostgresJobRepository).getPool() as unknown as {
    query(text: string, values?: unknown[]): Promise<unknown>;
  };
  const query = pool.query;
  pool.query = async function (this: unknown, text: string, values?: unknown[]) {
    if (!text.trimStart().startsWith('UPDATE')) return query.call(this, text, values);
    Reflect.deleteProperty(pool, 'query');
    await query.call(this, text, values);
    throw new Error('Connection terminated unexpectedly');
  };
}

let server: PostgresTestServer;
beforeAll(async () => {
  server = await startPostgres();
}, 120_000);
afterAll(() => server?.stop(), 60_000);

describe('PostgresBackend (Agenda)', () => {
  // One schema per run of the suite; every backend opens its own pool, as worker processes would.
  backendConformanceSuite(
    'PostgresBackend',
    async () => {
      const url = await server.createSchema();
      await prepareQueueSchema(url);
      return {
        openBackend: () => queueBackendOn(url),
        spawnWorker: (options) =>
          spawn(process.execPath, ['--import', 'tsx', workerEntry, url, JSON.stringify(options)], {
            stdio: ['ignore', 'pipe', 'inherit'],
          }),
        destroy: () => server.dropSchema(url),
      };
    },
    { deviations: AS_PUBLISHED },
  );
  lockCheckedSavesSuite('PostgresBackend', async () => {
    const url = await server.createSchema();
    await prepareQueueSchema(url);
    return { openBackend: () => queueBackendOn(url), destroy: () => server.dropSchema(url), loseNextReply };
  });
});

describe('PostgreSQL dispatch across processes', () => {
  it('a job accepted where no worker runs starts on a worker elsewhere (LISTEN/NOTIFY), though no poll comes', {
    timeout: 60_000,
  }, async () => {
    const url = await server.createSchema();
    const store = await PostgresStore.connect(url, { poolSize: 2 });
    const log: Logger = { debug() {}, info() {}, warn() {}, error() {} };
    const queueOn = async () =>
      new Queue({
        backend: await createPostgresQueueBackend(url),
        dispatch: postgresDispatchChannel(url, log),
        processEveryMs: POLL_MS,
        lockLifetimeMs: 10_000,
        log,
      });
    const api = await queueOn();
    const worker = await queueOn();
    const started = new Set<string>();
    try {
      await api.agenda.ready;
      await api.signalOnly();
      await worker.startWorkers({
        runner: { run: async (jobId) => void started.add(jobId), triage: async () => 'queue' },
        retention: { purge: async () => undefined },
        store,
        concurrency: 2,
        plugins: [{ id: 'p', concurrency: 2 }],
      });
      await sleep(300); // past the start-up scan
      for (const id of ['one', 'two', 'three']) {
        await api.enqueue({ id, pluginId: 'p' });
        const giveUpAt = Date.now() + DISPATCH_HANG_MS;
        while (!started.has(id) && Date.now() < giveUpAt) await sleep(10);
      }
      // Each started though the worker's poll never came: signalled, not found by a poll.
      expect([...started]).toEqual(['one', 'two', 'three']);
    } finally {
      await api.stop(1_000);
      await worker.stop(1_000);
      await store.close();
      await server.dropSchema(url);
    }
  });
});

describe('PostgreSQL unreachable under a run', () => {
  it('a run whose lock could not be renewed for a whole lifetime is stopped, and runs again once it is back', {
    timeout: 120_000,
  }, async () => {
    const url = await server.createSchema();
    const store = await PostgresStore.connect(url, { poolSize: 2 });
    const log: Logger = { debug() {}, info() {}, warn() {}, error() {} };
    const queue = new Queue({
      backend: await createPostgresQueueBackend(url),
      processEveryMs: 100,
      lockLifetimeMs: 1_500,
      log,
    });
    const runs: Array<{ reason?: unknown }> = [];
    try {
      await queue.agenda.ready;
      await queue.enqueue({ id: 'held', pluginId: 'p' });
      await queue.startWorkers({
        runner: {
          async run(_jobId, { signal } = {}) {
            const run: { reason?: unknown } = {};
            runs.push(run);
            if (runs.length > 1) return; // the next attempt finishes at once
            await new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
            run.reason = signal?.reason;
          },
          triage: async () => 'queue',
        },
        retention: { purge: async () => undefined },
        store,
        concurrency: 1,
        plugins: [{ id: 'p', concurrency: 1 }],
      });
      for (let i = 0; i < 200 && !runs.length; i++) await sleep(50);
      expect(runs).toHaveLength(1);
      await server.stopServer();
      try {
        // Renewals fail from now on: past one lifetime without one, the entry is anyone's, so the run stops.
        for (let i = 0; i < 200 && runs[0]!.reason === undefined; i++) await sleep(50);
        expect(runs[0]!.reason).toBeInstanceOf(LockLapsed);
        expect(String(runs[0]!.reason)).toMatch(/could not be renewed for 1500 ms/);
      } finally {
        await server.startServer();
      }
      for (let i = 0; i < 600 && runs.length < 2; i++) await sleep(50);
      expect(runs).toHaveLength(2);
    } finally {
      await queue.stop(1_000);
      await store.close();
      await server.dropSchema(url);
    }
  });
});
