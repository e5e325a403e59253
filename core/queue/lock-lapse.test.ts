/**
 * A run whose queue lock lapsed while its process stalled (a busy event loop: no timer runs, lock renewal
 * included) is taken over by the next attempt in the same process: the first run is stopped with LockLapsed,
 * both runs are tracked apart though they share one entry, and the first run's end save changes nothing of the
 * entry the second holds. Real SQLite queue. (The same across processes, with real workers and PostgreSQL too:
 * test/lock-lapse.e2e.test.ts.)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, expect, it } from 'vitest';
import type { Logger } from '../contract/index.js';
import { SqliteStore, openSqliteDatabase } from '../store/sqlite/index.js';
import { SqliteBackend } from './sqlite-backend/index.js';
import { Queue } from './index.js';
import { LockLapsed } from './run-lock.js';
import type { JobRunnerPort } from './types.js';

const LOCK_MS = 1_000;
const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

/** Holds the event loop, as a stalled process does. */
function stall(ms: number) {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

it('stops a run whose lock lapsed and was taken by the next attempt; its late save changes nothing', {
  timeout: 60_000,
}, async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-lapse-'));
  const db = openSqliteDatabase(path.join(dir, 'transmute.db'));
  const store = new SqliteStore(db);
  cleanup.push(
    () => rm(dir, { recursive: true, force: true }),
    () => store.close(),
  );
  const warnings: string[] = [];
  const log: Logger = { debug() {}, info() {}, warn: (msg) => void warnings.push(msg), error() {} };
  const runs: Array<{ reason?: unknown; finish: () => void }> = [];
  const runner: JobRunnerPort = {
    async run(_jobId, { signal } = {}) {
      const run: (typeof runs)[number] = { finish: () => undefined };
      runs.push(run);
      if (runs.length === 1) stall(LOCK_MS * 2.5);
      // Runs until aborted, or finished by the test.
      await new Promise<void>((resolve) => {
        run.finish = resolve;
        signal?.addEventListener('abort', () => resolve(), { once: true });
      });
      run.reason = signal?.reason;
    },
    triage: async () => 'queue',
  };
  const queue = new Queue({
    backend: new SqliteBackend({ database: db }),
    processEveryMs: 50,
    lockLifetimeMs: LOCK_MS,
    log,
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
  const entry = () =>
    db.prepare(`SELECT locked_at, next_run_at FROM agenda_jobs WHERE json_extract(data, '$.jobId') = 'job-1'`).get() as
      | { locked_at: number | null; next_run_at: number | null }
      | undefined;

  // After the stall the poll comes first (the shortest timer): it takes the expired entry over for a second run.
  await waitFor(() => runs.length === 2 && runs[0]!.reason !== undefined, 'the second run, and the first to stop');
  expect(runs[0]!.reason).toBeInstanceOf(LockLapsed);
  expect(runs[1]!.reason).toBeUndefined();
  await waitFor(() => warnings.some((w) => w.startsWith('a run ended after another attempt took')), 'the late save');
  // The second run's entry: still locked by it, not handed back (unlocked and due) by the first run's save.
  expect(entry()).toMatchObject({ locked_at: expect.any(Number), next_run_at: null });

  runs[1]!.finish();
  await waitFor(() => entry() === undefined, 'the finished entry to be removed');
  await sleep(LOCK_MS);
  expect(runs).toHaveLength(2);
});
