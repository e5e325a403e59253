/**
 * Test support: the services over a real SQLite store and local blobs in `dir`, for tests that
 * run no job (nothing reaches an executor; the queue takes and drops).
 */
import path from 'node:path';
import { LocalBlobStore } from '../../blobs/local.js';
import type { Logger } from '../../contract/index.js';
import type { Registry } from '../../registry/index.js';
import type { JobQueue } from '../../queue/types.js';
import { SqliteStore, openSqliteDatabase } from '../../store/sqlite/index.js';
import type { Store } from '../../store/types.js';
import { createServices } from '../index.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** `overrides.store` wraps the store the services use (an observer); `overrides.queue` replaces the queue. */
export function servicesWithoutRuns(
  dir: string,
  registry: Registry,
  tokenSecret: string,
  overrides: { store?: (store: SqliteStore) => Store; queue?: JobQueue } = {},
) {
  const store = new SqliteStore(openSqliteDatabase(path.join(dir, 'transmute.db')));
  const services = createServices({
    store: overrides.store?.(store) ?? store,
    blobs: new LocalBlobStore(path.join(dir, 'blobs')),
    registry,
    queue: overrides.queue ?? { enqueue: async () => {} },
    log: silent,
    executor: { run: () => Promise.reject(new Error('no runs in this test')) },
    config: {
      publicUrl: 'http://transmute.test',
      workRoot: path.join(dir, 'work'),
      retentionMs: 3_600_000,
      maxAttempts: 1,
      tokenSecret,
    },
  });
  return { store, services };
}
