/**
 * The dispatch scenario both dispatch tests run: a real SQLite queue polling every 5 s, one plugin
 * with a single slot, two jobs enqueued together. Measures how long the first waited to start and
 * how long the second waited after the first finished; both far below the poll means signalled.
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

export const DISPATCH_POLL_MS = 5_000;

export async function measureDispatch(options: {
  log: Logger;
  dispatch?: NotificationChannel;
  afterStart?: () => void;
}): Promise<{ firstWaitMs: number; secondWaitMs: number }> {
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
  const started = new Map<string, number>();
  const finished = new Map<string, number>();
  try {
    await queue.startWorkers({
      runner: {
        async run(jobId) {
          started.set(jobId, Date.now());
          await sleep(300);
          finished.set(jobId, Date.now());
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
    const accepted = Date.now();
    await queue.enqueue({ id: 'first', pluginId: 'single' });
    await queue.enqueue({ id: 'second', pluginId: 'single' });
    for (let i = 0; i < 100 && !finished.has('second'); i++) await sleep(50);
    return {
      firstWaitMs: started.get('first')! - accepted,
      secondWaitMs: started.get('second')! - finished.get('first')!,
    };
  } finally {
    await queue.stop(1_000);
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}
