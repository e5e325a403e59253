/**
 * A run whose queue lock lapsed (its process stalled past the lock's lifetime, so the entry became
 * claimable again) is stopped with LockLapsed, and the job runs again. Real SQLite queue.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, expect, it } from 'vitest';
import type { Logger } from '../contract/index.js';
import { SqliteStore, openSqliteDatabase } from '../store/sqlite/index.js';
import { SqliteBackend } from './sqlite-backend/index.js';
import { LockLapsed, Queue } from './index.js';
import type { JobRunnerPort } from './types.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

/** Holds the event loop, as a stalled process does: no timer (lock renewal included) runs meanwhile. */
function stall(ms: number) {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

it('stops a run whose lock lapsed, and the job runs again', { timeout: 30_000 }, async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-lapse-'));
  const db = openSqliteDatabase(path.join(dir, 'transmute.db'));
  const store = new SqliteStore(db);
  cleanup.push(
    () => rm(dir, { recursive: true, force: true }),
    () => store.close(),
  );
  const runs: Array<{ reason?: unknown }> = [];
  const runner: JobRunnerPort = {
    async run(_jobId, { signal } = {}) {
      const run: { reason?: unknown } = {};
      runs.push(run);
      if (runs.length > 1) return; // the next attempt finishes at once
      stall(2_500);
      const deadline = Date.now() + 10_000;
      while (!signal?.aborted && Date.now() < deadline) await sleep(20);
      run.reason = signal?.reason;
    },
    triage: async () => 'queue',
  };
  const queue = new Queue({
    backend: new SqliteBackend({ database: db }),
    processEveryMs: 50,
    lockLifetimeMs: 1_000,
    log: silent,
  });
  cleanup.push(() => queue.stop(1_000));
  await queue.agenda.ready;
  await queue.enqueue({ id: 'job-1', pluginId: 'stalls' });
  await queue.startWorkers({
    runner,
    retention: { purge: async () => undefined },
    store,
    concurrency: 2,
    plugins: [{ id: 'stalls', concurrency: 2 }],
  });
  for (let i = 0; i < 400 && !(runs.length >= 2 && runs[0]!.reason); i++) await sleep(50);
  expect(runs[0]!.reason).toBeInstanceOf(LockLapsed);
  expect(runs.length).toBeGreaterThanOrEqual(2);
});
