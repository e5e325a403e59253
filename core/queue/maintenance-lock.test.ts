/**
 * The purge runs on its own Agenda, locked like any queue entry: a process that dies (or stalls) holding its lock
 * must delay the next purge by the queue's lock lifetime, not by Agenda's default of 10 minutes, or uploads and
 * outputs outlive their retention by that much. Real SQLite queue; two processes' queues on one database.
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
import type { JobRunnerPort } from './types.js';

const LOCK_MS = 1_000;
const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

const runner: JobRunnerPort = { run: async () => undefined, triage: async () => 'queue' };

it("a purge whose process stalled holding its lock runs again after the queue's lock lifetime", {
  timeout: 60_000,
}, async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-maintenance-'));
  const db = openSqliteDatabase(path.join(dir, 'transmute.db'));
  const store = new SqliteStore(db);
  cleanup.push(
    () => rm(dir, { recursive: true, force: true }),
    () => store.close(),
  );
  const start = async (purge: () => Promise<void>) => {
    const queue = new Queue({
      backend: new SqliteBackend({ database: db }),
      processEveryMs: 50,
      lockLifetimeMs: LOCK_MS,
      log: silent,
      maintenanceEvery: '2 seconds',
    });
    cleanup.push(() => queue.stop(500));
    await queue.agenda.ready;
    await queue.startWorkers({ runner, retention: { purge }, store, concurrency: 1, plugins: [] });
    return queue;
  };
  // The first process takes the purge and never finishes it (no renewal, no release). It is still polling, as a
  // stalled process is, so once the lock has expired either process may take the purge again: both count.
  let hung = 0;
  let ranAgain = 0;
  await start(async () => {
    if (++hung === 1) await new Promise(() => undefined);
    ranAgain++;
  });
  for (let i = 0; i < 200 && hung === 0; i++) await sleep(50);
  expect(hung).toBe(1);
  // It runs again within a few lock lifetimes and intervals, not Agenda's 10 minutes later.
  await start(async () => {
    ranAgain++;
  });
  for (let i = 0; i < 600 && ranAgain === 0; i++) await sleep(50);
  expect(ranAgain).toBeGreaterThan(0);
});
