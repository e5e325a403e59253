/**
 * The dispatch scenario both dispatch tests run: a real SQLite queue whose poll never comes within
 * the test (once an hour), one plugin with a single slot, two jobs enqueued together. Returns the
 * jobs that ran, in order: both running at all means both were signalled (the first when it was
 * accepted, the second when the first freed the slot), since no poll found them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { NotificationChannel } from 'agenda';
import type { Logger } from '../../contract/index.js';
import { SqliteStore, openSqliteDatabase } from '../../store/sqlite/index.js';
import { SqliteBackend } from '../sqlite-backend/index.js';
import { Queue } from '../index.js';

/** A poll interval no test outlasts: a job that starts was signalled, not found by a poll. */
export const DISPATCH_POLL_MS = 3_600_000;
/** How long the scenario waits for its jobs: only a lost signal (a job left for the poll) takes this long. */
export const DISPATCH_HANG_MS = 30_000;

export async function runDispatchScenario(options: {
  log: Logger;
  dispatch?: NotificationChannel;
  afterStart?: () => void;
}): Promise<{ finished: string[] }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-dispatch-'));
  const db = openSqliteDatabase(path.join(dir, 'transmute.db'));
  const store = new SqliteStore(db);
  const queue = new Queue({
    backend: new SqliteBackend({ database: db }),
    processEveryMs: DISPATCH_POLL_MS,
    lockLifetimeMs: 10_000,
    log: options.log,
    ...(options.dispatch ? { dispatch: options.dispatch } : {}),
  });
  const finished: string[] = [];
  try {
    await queue.startWorkers({
      runner: {
        async run(jobId) {
          await sleep(300);
          finished.push(jobId);
        },
        triage: async () => 'queue',
      },
      retention: { purge: async () => undefined },
      store,
      concurrency: 2,
      plugins: [{ id: 'single', concurrency: 1 }],
    });
    options.afterStart?.();
    await sleep(200); // past the start-up scan
    await queue.enqueue({ id: 'first', pluginId: 'single' });
    await queue.enqueue({ id: 'second', pluginId: 'single' });
    const giveUpAt = Date.now() + DISPATCH_HANG_MS;
    while (finished.length < 2 && Date.now() < giveUpAt) await sleep(50);
    return { finished };
  } finally {
    await queue.stop(1_000);
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}
