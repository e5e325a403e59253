/**
 * Dispatch without the poll gap: with a poll every 5 s, a job accepted in the worker's own
 * process starts at once, and a job waiting for its plugin's only slot starts as soon as the slot
 * frees. Real SQLite queue.
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

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

it('starts a local job at once, and the next one as soon as its plugin is free, whatever the poll interval', { timeout: 30_000 }, async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-dispatch-'));
  const db = openSqliteDatabase(path.join(dir, 'transmute.db'));
  const store = new SqliteStore(db);
  cleanup.push(() => rm(dir, { recursive: true, force: true }), () => store.close());
  const queue = new Queue({ backend: new SqliteBackend({ database: db }), processEveryMs: 5_000, lockLifetimeMs: 10_000, log: silent });
  cleanup.push(() => queue.stop(1_000));
  const started = new Map<string, number>();
  const finished = new Map<string, number>();
  await queue.startWorkers({
    runner: {
      async run(jobId) {
        started.set(jobId, Date.now());
        await sleep(300);
        finished.set(jobId, Date.now());
      },
      triage: async () => 'queue',
    },
    retention: { purge: async () => undefined }, store, concurrency: 2, plugins: [{ id: 'single', concurrency: 1 }],
  });
  await sleep(200); // past the start-up scan
  const accepted = Date.now();
  await queue.enqueue({ id: 'first', pluginId: 'single' });
  await queue.enqueue({ id: 'second', pluginId: 'single' });
  for (let i = 0; i < 100 && !finished.has('second'); i++) await sleep(50);
  expect(started.get('first')! - accepted).toBeLessThan(1_000);
  expect(started.get('second')! - finished.get('first')!).toBeLessThan(1_000);
});
