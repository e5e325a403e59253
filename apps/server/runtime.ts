/**
 * Builds the runtime every app shares (server, worker, CLI): store, blobs, registry, queue and
 * services, in embedded (SQLite + disk) mode. Distributed mode swaps the adapters.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Logger, Plugin } from '../../core/contract/index.js';
import { LocalBlobStore } from '../../core/blobs/local.js';
import { Queue } from '../../core/queue/index.js';
import { SqliteBackend } from '../../core/queue/sqlite-backend/index.js';
import { Registry } from '../../core/registry/index.js';
import { createServices, type Services } from '../../core/services/index.js';
import type { Clock } from '../../core/services/clock.js';
import { SqliteStore, openSqliteDatabase } from '../../core/store/sqlite/index.js';
import { standardPlugins } from '../../plugins/index.js';
import type { Config } from './config.js';

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

export async function createRuntime({ config, log, clock, plugins = standardPlugins }: RuntimeOptions): Promise<Runtime> {
  if (config.mongodbUrl) throw new Error('MONGODB_URL is set, but distributed mode is not available in this build yet');
  const registry = new Registry([...plugins, ...(await loadPluginModules(config.extraPlugins))]);
  await registry.checkEngines();
  await mkdir(config.dataDir, { recursive: true });
  const db = openSqliteDatabase(path.join(config.dataDir, 'transmute.db'));
  const store = new SqliteStore(db);
  const blobs = new LocalBlobStore(path.join(config.dataDir, 'blobs'));
  const queue = new Queue({
    backend: new SqliteBackend({ database: db }),
    processEveryMs: config.queuePollMs,
    lockLifetimeMs: config.queueLockMs,
    log,
  });
  const services = createServices({
    store, blobs, registry, queue, log, ...(clock ? { clock } : {}),
    config: { publicUrl: config.publicUrl, workRoot: path.join(config.dataDir, 'work'), retentionMs: config.retentionMs, maxAttempts: config.maxAttempts },
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
      await queue.stop(config.shutdownGraceMs);
      await store.close();
    },
  };
}
