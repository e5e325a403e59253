/**
 * A worker's start-up while its store is away (PostgreSQL restarting as the process starts): each start-up step is
 * tried again until the store answers, and no conversion is taken before the start-up has finished, so a start-up
 * that gives up ends the process without interrupting runs. Real SQLite store and queue.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Logger } from '../contract/index.js';
import { SqliteStore, openSqliteDatabase } from '../store/sqlite/index.js';
import type { JobsStore } from '../store/types.js';
import { SqliteBackend } from './sqlite-backend/index.js';
import { Queue, retryStartup } from './index.js';
import type { JobRunnerPort } from './types.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };
let dir: string;
let store: SqliteStore;
let queue: Queue;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-startup-'));
  store = new SqliteStore(openSqliteDatabase(path.join(dir, 'transmute.db')));
  queue = new Queue({
    backend: new SqliteBackend({ database: store.db }),
    processEveryMs: 50,
    lockLifetimeMs: 5_000,
    log: silent,
    startup: { delayMs: 20, retries: 5 },
  });
  await queue.agenda.ready;
});

afterEach(async () => {
  await queue.stop(500);
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

/** The store's job list, failing as a store that is away does, `failures` times, and waiting for `gate` after. */
function awayStore(failures: number, gate: Promise<void> = Promise.resolve()): { jobs: JobsStore } {
  let left = failures;
  return {
    jobs: {
      ...store.jobs,
      jobs: {
        ...store.jobs.jobs,
        listUnfinished: async () => {
          if (left-- > 0) throw new Error('Connection terminated unexpectedly');
          await gate;
          return store.jobs.jobs.listUnfinished();
        },
      },
    },
  };
}

it('a start-up step that fails while the store is away is tried again, and the worker starts', async () => {
  const started: string[] = [];
  const runner: JobRunnerPort = { run: async (id) => void started.push(id), triage: async () => 'queue' };
  await queue.enqueue({ id: 'job-1', pluginId: 'test' });
  await queue.startWorkers({
    runner,
    retention: { purge: async () => ({ inputs: 0, outputs: 0 }) },
    store: awayStore(3),
    concurrency: 1,
    plugins: [{ id: 'test', concurrency: 1 }],
  });
  for (let i = 0; i < 100 && !started.length; i++) await sleep(50);
  expect(started).toEqual(['job-1']);
});

it('no conversion is taken before the start-up has finished', async () => {
  const started: string[] = [];
  const runner: JobRunnerPort = { run: async (id) => void started.push(id), triage: async () => 'queue' };
  await queue.enqueue({ id: 'job-1', pluginId: 'test' });
  let release!: () => void;
  const starting = queue.startWorkers({
    runner,
    retention: { purge: async () => ({ inputs: 0, outputs: 0 }) },
    store: awayStore(0, new Promise((resolve) => (release = resolve))),
    concurrency: 1,
    plugins: [{ id: 'test', concurrency: 1 }],
  });
  await sleep(500);
  expect(started).toEqual([]);
  release();
  await starting;
  for (let i = 0; i < 100 && !started.length; i++) await sleep(50);
  expect(started).toEqual(['job-1']);
});

it('a start-up step that keeps failing ends the start with its error', async () => {
  let tries = 0;
  const failing = retryStartup(
    'reconcile',
    async () => {
      tries++;
      throw new Error('Connection terminated unexpectedly');
    },
    silent,
    { delayMs: 1, retries: 3 },
  );
  await expect(failing).rejects.toThrow('Connection terminated unexpectedly');
  expect(tries).toBe(4);
});
