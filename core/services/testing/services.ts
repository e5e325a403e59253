/**
 * Test support: the services over a real SQLite store and local blobs in `dir`. By default nothing runs a job (the
 * executor refuses every run; the queue takes and drops) and a failed run is not tried again.
 */
import path from 'node:path';
import { LocalBlobStore } from '../../blobs/local.js';
import type { BlobStore } from '../../blobs/types.js';
import type { Logger } from '../../contract/index.js';
import type { Registry } from '../../registry/index.js';
import type { JobQueue } from '../../queue/types.js';
import { SqliteStore, openSqliteDatabase } from '../../store/sqlite/index.js';
import type { Store } from '../../store/types.js';
import { createServices } from '../index.js';
import type { PluginExecutor } from '../runner.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

export interface SqliteServicesOverrides {
  /** Wraps the store the services use (an observer, a fault); the plain store is still returned. */
  store?: (store: SqliteStore) => Store;
  queue?: JobQueue;
  executor?: PluginExecutor;
  /** Replaces the local blob store in `dir/blobs` (a store that fails, say). */
  blobs?: BlobStore;
  maxAttempts?: number;
}

/** The services, their plain store, and the work root their runs use (`dir/work`). */
export function servicesOverSqlite(
  dir: string,
  registry: Registry,
  tokenSecret: string,
  overrides: SqliteServicesOverrides = {},
) {
  const store = new SqliteStore(openSqliteDatabase(path.join(dir, 'transmute.db')));
  const workRoot = path.join(dir, 'work');
  const services = createServices({
    store: overrides.store?.(store) ?? store,
    blobs: overrides.blobs ?? new LocalBlobStore(path.join(dir, 'blobs')),
    registry,
    queue: overrides.queue ?? { enqueue: async () => {} },
    log: silent,
    executor: overrides.executor ?? { run: () => Promise.reject(new Error('no runs in this test')) },
    config: {
      publicUrl: 'http://transmute.test',
      workRoot,
      retentionMs: 3_600_000,
      maxAttempts: overrides.maxAttempts ?? 1,
      tokenSecret,
    },
  });
  return { store, services, workRoot };
}
