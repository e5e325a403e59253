/**
 * Builds the runtime every app shares (server, worker, CLI): store, blobs, registry, queue and
 * services. Embedded mode (the default) uses SQLite + local disk; with MONGODB_URL set,
 * distributed mode swaps in MongoDB + GridFS. Nothing above the adapters changes.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AgendaBackend } from 'agenda';
import type { Logger, Plugin } from '../../core/contract/index.js';
import { GridFsBlobStore } from '../../core/blobs/gridfs.js';
import { LocalBlobStore } from '../../core/blobs/local.js';
import type { BlobStore } from '../../core/blobs/types.js';
import { Queue } from '../../core/queue/index.js';
import { createMongoQueueBackend } from '../../core/queue/mongo-backend/index.js';
import { SqliteBackend } from '../../core/queue/sqlite-backend/index.js';
import { Registry } from '../../core/registry/index.js';
import { createServices, type Services } from '../../core/services/index.js';
import type { Clock } from '../../core/services/clock.js';
import { MongoStore } from '../../core/store/mongo/index.js';
import { SqliteStore, openSqliteDatabase } from '../../core/store/sqlite/index.js';
import type { Store } from '../../core/store/types.js';
import { standardPlugins } from '../../plugins/index.js';
import type { Config } from './config.js';
import { dataDirSecret } from './secret-key.js';

export interface Runtime {
  config: Config;
  services: Services;
  queue: Queue;
  /** Start running jobs in this process (config.workers at once). */
  startWorkers(): Promise<void>;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  config: Config;
  log: Logger;
  clock?: Clock;
  plugins?: readonly Plugin[];
}

/**
 * Third-party plugins: each module exports a plugin or an array of plugins as default (or as
 * `plugins`). They pass the same manifest validation as the standard ones.
 */
async function loadPluginModules(specifiers: readonly string[]): Promise<Plugin[]> {
  const loaded: Plugin[] = [];
  for (const specifier of specifiers) {
    const target = specifier.startsWith('.') || specifier.startsWith('/') ? pathToFileURL(path.resolve(specifier)).href : specifier;
    const mod = (await import(target)) as { default?: Plugin | Plugin[]; plugins?: Plugin[] };
    const exported = mod.default ?? mod.plugins;
    if (!exported) throw new Error(`Plugin module ${specifier} exports no default plugin (or plugins array)`);
    loaded.push(...(Array.isArray(exported) ? exported : [exported]));
  }
  return loaded;
}

interface Adapters {
  store: Store;
  blobs: BlobStore;
  queueBackend: AgendaBackend;
}

/** One SQLite file under DATA_DIR, shared by the store and the queue (and by every process on this machine); blobs on local disk. */
async function embeddedAdapters(dataDir: string): Promise<Adapters> {
  await mkdir(dataDir, { recursive: true });
  const db = openSqliteDatabase(path.join(dataDir, 'transmute.db'));
  return { store: new SqliteStore(db), blobs: new LocalBlobStore(path.join(dataDir, 'blobs')), queueBackend: new SqliteBackend({ database: db }) };
}

/** MongoDB for state and the queue, GridFS for blobs, all on the store's one client (closed with the store). */
async function distributedAdapters(url: string): Promise<Adapters> {
  const store = await MongoStore.connect(url);
  return { store, blobs: new GridFsBlobStore(store.db), queueBackend: await createMongoQueueBackend(store.db) };
}

export async function createRuntime({ config, log, clock, plugins = standardPlugins }: RuntimeOptions): Promise<Runtime> {
  const registry = new Registry([...plugins, ...(await loadPluginModules(config.extraPlugins))]);
  await registry.checkEngines();
  const { store, blobs, queueBackend } = config.mongodbUrl ? await distributedAdapters(config.mongodbUrl) : await embeddedAdapters(config.dataDir);
  const queue = new Queue({
    backend: queueBackend,
    processEveryMs: config.queuePollMs,
    lockLifetimeMs: config.queueLockMs,
    log,
  });
  const services = createServices({
    store, blobs, registry, queue, log, ...(clock ? { clock } : {}),
    config: { publicUrl: config.publicUrl, workRoot: path.join(config.dataDir, 'work'), retentionMs: config.retentionMs, maxAttempts: config.maxAttempts,
      tokenSecret: config.tokenSecret ?? (await dataDirSecret(config.dataDir)) },
  });
  await queue.agenda.ready;
  return {
    config,
    services,
    queue,
    async startWorkers() {
      if (config.workers > 0) {
        await queue.startWorkers({ runner: services.runner, retention: services.retention, store, concurrency: config.workers });
      }
    },
    async close() {
      await services.inProcessJobs.stop(config.shutdownGraceMs);
      await queue.stop(config.shutdownGraceMs);
      await store.close();
    },
  };
}
