/**
 * Concurrency is decided where a job is claimed: with a plugin that runs one at a time, two
 * workers each claim one job and run them together, instead of one worker locking both and
 * making the second wait while the other worker idles. Real SQLite queue, two workers.
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

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

it('a worker claims no more jobs of a plugin than it runs at once; the other worker takes the rest', {
  timeout: 30_000,
}, async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-claim-'));
  const db = openSqliteDatabase(path.join(dir, 'transmute.db'));
  const store = new SqliteStore(db);
  cleanup.push(
    () => rm(dir, { recursive: true, force: true }),
    () => store.close(),
  );

  const running = new Map<string, string>();
  let together = 0;
  const runnerFor = (worker: string): JobRunnerPort => ({
    async run(jobId) {
      running.set(jobId, worker);
      together = Math.max(together, running.size);
      // Held until both jobs have started (not for a fixed time: on a busy machine the second worker may
      // start polling only after it); a worker that locked both would never start the second meanwhile.
      for (const giveUpAt = Date.now() + 20_000; claimedBy.size < 2 && Date.now() < giveUpAt; ) await sleep(50);
      running.delete(jobId);
    },
    triage: async () => 'queue',
  });
  const claimedBy = new Map<string, string>();
  const queues = ['a', 'b'].map((worker) => {
    const queue = new Queue({
      backend: new SqliteBackend({ database: db }),
      processEveryMs: 50,
      lockLifetimeMs: 10_000,
      log: silent,
    });
    queue.agenda.on('start', (job) => claimedBy.set(String((job.attrs.data as { jobId: string }).jobId), worker));
    cleanup.push(() => queue.stop(1_000));
    return { worker, queue };
  });
  const first = queues[0]!.queue;
  await first.agenda.ready;
  await first.enqueue({ id: 'job-1', pluginId: 'one-at-a-time' });
  await first.enqueue({ id: 'job-2', pluginId: 'one-at-a-time' });
  for (const { worker, queue } of queues) {
    await queue.startWorkers({
      runner: runnerFor(worker),
      retention: { purge: async () => undefined },
      store,
      concurrency: 2,
      plugins: [{ id: 'one-at-a-time', concurrency: 1 }],
    });
  }
  for (const giveUpAt = Date.now() + 25_000; claimedBy.size < 2 && Date.now() < giveUpAt; ) await sleep(50);
  expect(claimedBy.size).toBe(2);
  expect(new Set(claimedBy.values())).toEqual(new Set(['a', 'b']));
  expect(together).toBe(2);
});
