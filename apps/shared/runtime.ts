/**
 * Builds the runtime every app shares (server, worker, CLI): store, blobs, registry, queue and
 * services. Embedded mode (the default) uses SQLite + local disk; with POSTGRES_URL set, the
 * scale-out mode swaps in PostgreSQL + S3 (docs/SCALE-OUT.md); with MONGODB_URL, MongoDB + GridFS
 * (or S3 when S3_BUCKET is set). Nothing above the adapters changes.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { AgendaBackend, NotificationChannel } from 'agenda';
import { DEFAULT_MEMORY_MB, type Logger, type Plugin } from '../../core/contract/index.js';
import { admittedBy, pluginLicenses } from '../../core/contract/licenses.js';
import { loadPluginModules, pluginModules } from '../../core/contract/modules.js';
import { configureScopedConfinement, probeConfinement, type ConfinementStatus } from '../../core/engines/confine.js';
import { LibreOfficePool } from '../../core/engines/execution/libreoffice-pool.js';
import { configureEnginePaths, enginePaths } from '../../core/engines/paths.js';
import { configureFonts, fontSetup } from '../../core/engines/fonts.js';
import { SandboxPool } from '../../core/engines/execution/sandbox/pool.js';
import { LocalBlobStore } from '../../core/blobs/local.js';
import type { BlobStore } from '../../core/blobs/types.js';
import { Queue, retryStartup } from '../../core/queue/index.js';
import { SqliteBackend } from '../../core/queue/sqlite-backend/index.js';
import { Registry } from '../../core/registry/index.js';
import { createServices, type Services } from '../../core/services/index.js';
import { createMailTransport } from '../../core/services/mail-transport.js';
import type { Clock } from '../../core/services/clock.js';
import { SqliteStore, openSqliteDatabase } from '../../core/store/sqlite/index.js';
import type { Store } from '../../core/store/types.js';
import { standardPluginModules, standardPlugins } from '../../plugins/index.js';
import type { Config } from './config.js';
import { dataDirSecret } from './secret-key.js';
import { lockDataDirForApi } from './data-dir-lock.js';
import { diskCheck } from './disk-space.js';
import { memoryRates } from '../../core/store/memory/rates.js';
import { setMetricSources } from '../../core/telemetry/metrics.js';

export interface Runtime {
  config: Config;
  services: Services;
  queue: Queue;
  /** The processes plugin runs execute in. */
  sandbox: SandboxPool;
  /** Warm LibreOffice listeners, one pool per process, used by runs through the sandbox (OFFICE_POOL_SIZE). */
  office: LibreOfficePool;
  /** The store adapter, for health checks and operator tools (surfaces go through the services). */
  store: Store;
  /** Whether engines run confined and a jail can still be made (re-checked at most once a minute; /readyz). */
  confinement(): Promise<ConfinementStatus>;
  /** Start running jobs in this process (config.workers at once). */
  startWorkers(): Promise<void>;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  config: Config;
  log: Logger;
  clock?: Clock;
  plugins?: readonly Plugin[];
  /**
   * This process serves the API (counts requests). Embedded, it then holds DATA_DIR's API lock and counts in memory
   * (apps/shared/data-dir-lock.ts).
   */
  servesApi?: boolean;
}

interface Adapters {
  store: Store;
  blobs: BlobStore;
  queueBackend: AgendaBackend;
  /** Signals jobs saved by other processes (MongoDB with change streams); otherwise workers poll for them. */
  queueDispatch?: NotificationChannel;
  /** The saving process publishes on queueDispatch (PostgreSQL NOTIFY): API-only processes connect it too. */
  publishesDispatch?: boolean;
  /** Closes what the store does not (an S3 client). */
  closeBlobs?: () => void;
  /** Lets another API server use the DATA_DIR (embedded, once this one is closed). */
  releaseApiLock?: () => void;
}

/**
 * One SQLite file under DATA_DIR, shared by the store and the queue (and by every process on this machine); blobs on
 * local disk. The API server is alone on its DATA_DIR (the lock) and counts requests in memory: no write per request.
 */
async function embeddedAdapters(dataDir: string, servesApi: boolean): Promise<Adapters> {
  await mkdir(dataDir, { recursive: true });
  const lock = servesApi ? lockDataDirForApi(dataDir) : undefined;
  let db: ReturnType<typeof openSqliteDatabase>;
  try {
    db = openSqliteDatabase(path.join(dataDir, 'transmute.db'));
  } catch (error) {
    lock?.release();
    throw error;
  }
  return {
    store: new SqliteStore(db, lock ? { rates: memoryRates() } : {}),
    blobs: new LocalBlobStore(path.join(dataDir, 'blobs')),
    queueBackend: new SqliteBackend({ database: db }),
    ...(lock ? { releaseApiLock: () => lock.release() } : {}),
  };
}

/*
 * The scale-out adapters are imported when chosen: their drivers (mongodb, pg, the AWS SDK) weigh
 * tens of MB of heap in a process that never connects to them (the embedded default).
 */

/** The S3 bucket's blob store, with the close the store does not do. */
async function s3Blobs(s3: NonNullable<Config['s3']>): Promise<Pick<Adapters, 'blobs' | 'closeBlobs'>> {
  const { S3BlobStore } = await import('../../core/blobs/s3.js');
  const blobs = new S3BlobStore(s3);
  return { blobs, closeBlobs: () => blobs.close() };
}

/**
 * MongoDB for state and the queue, GridFS (or the S3 bucket) for blobs, all on the store's one client (closed with the
 * store).
 */
async function distributedAdapters(url: string, s3: Config['s3'], log: Logger): Promise<Adapters> {
  const [{ MongoStore }, { createMongoQueueBackend, mongoDispatchChannel }, { GridFsBlobStore }] = await Promise.all([
    import('../../core/store/mongo/index.js'),
    import('../../core/queue/mongo-backend/index.js'),
    import('../../core/blobs/gridfs.js'),
  ]);
  const store = await MongoStore.connect(url);
  const queueDispatch = await mongoDispatchChannel(store.db, log);
  return {
    store,
    ...(s3 ? await s3Blobs(s3) : { blobs: new GridFsBlobStore(store.db) }),
    queueBackend: await createMongoQueueBackend(store.db),
    ...(queueDispatch ? { queueDispatch } : {}),
  };
}

/** PostgreSQL for state (migrated at start) and the queue (LISTEN/NOTIFY dispatch), blobs in the S3 bucket. */
async function postgresAdapters(url: string, s3: NonNullable<Config['s3']>, log: Logger): Promise<Adapters> {
  const [{ PostgresStore }, { createPostgresQueueBackend, postgresDispatchChannel }] = await Promise.all([
    import('../../core/store/postgres/index.js'),
    import('../../core/queue/postgres-backend/index.js'),
  ]);
  // PostgreSQL may be restarting as this process starts: connecting and migrating are tried again meanwhile.
  const store = await retryStartup('PostgreSQL store', () => PostgresStore.connect(url), log);
  const queueBackend = await retryStartup('PostgreSQL queue', () => createPostgresQueueBackend(url), log);
  return {
    store,
    ...(await s3Blobs(s3)),
    queueBackend,
    queueDispatch: postgresDispatchChannel(url, log),
    publishesDispatch: true,
  };
}

function adaptersFor(config: Config, log: Logger, servesApi: boolean): Promise<Adapters> {
  if (config.postgresUrl && config.s3) return postgresAdapters(config.postgresUrl, config.s3, log);
  if (config.mongodbUrl) return distributedAdapters(config.mongodbUrl, config.s3, log);
  return embeddedAdapters(config.dataDir, servesApi);
}

const CONFINEMENT_RECHECK_MS = 60_000;

/**
 * Engines are confined unless ENGINE_SANDBOX=off; a process that cannot make jails refuses to
 * start rather than run clients' documents with the server's files and network in reach.
 */
async function engineConfinement(enabled: boolean, runsEngines: boolean): Promise<() => Promise<ConfinementStatus>> {
  if (!enabled) return async () => ({ mode: 'off' });
  // No plugin, no engine (the admin CLI): nothing to confine, nothing to refuse.
  if (!runsEngines) return async () => ({ mode: 'bwrap' });
  const first = await probeConfinement();
  if (!first.ok) {
    throw new Error(
      `Engines cannot run confined: ${first.reason}. Install bubblewrap and allow user namespaces ` +
        `(docs/SECURITY.md), or set ENGINE_SANDBOX=off to run them unconfined`,
    );
  }
  let last: { at: number; status: Promise<ConfinementStatus> } = {
    at: Date.now(),
    status: Promise.resolve({ mode: 'bwrap', working: true }),
  };
  return () => {
    if (Date.now() - last.at > CONFINEMENT_RECHECK_MS) {
      last = {
        at: Date.now(),
        status: probeConfinement().then((probe) =>
          probe.ok ? { mode: 'bwrap', working: true } : { mode: 'bwrap', working: false, reason: probe.reason },
        ),
      };
    }
    return last.status;
  };
}

export async function createRuntime({
  config,
  log,
  clock,
  plugins = standardPlugins,
  servesApi = false,
}: RuntimeOptions): Promise<Runtime> {
  const offered = [...plugins, ...(await loadPluginModules(config.extraPlugins))];
  const admitted = offered.filter((plugin) => admittedBy(config.licensePolicy, plugin));
  for (const plugin of offered.filter((p) => !admitted.includes(p))) {
    log.info('plugin left out by PLUGIN_LICENSES', {
      plugin: plugin.id,
      policy: config.licensePolicy,
      licenses: pluginLicenses(plugin),
    });
  }
  const registry = new Registry(admitted);
  configureEnginePaths(config.enginePaths);
  // Before any engine starts: LibreOffice, Chromium and Ghostscript read the fontconfig file it writes.
  configureFonts(config.fontsDir);
  const confinement = await engineConfinement(config.engineSandbox, admitted.length > 0);
  // This process runs no plugin, but measures uploads with engines (ffprobe, pdfinfo): those calls are jailed too.
  configureScopedConfinement(config.engineSandbox && admitted.length > 0);
  await registry.checkEngines();
  const adapters = await adaptersFor(config, log, servesApi);
  const { store, blobs, queueBackend, queueDispatch, publishesDispatch, closeBlobs } = adapters;
  const queue = new Queue({
    backend: queueBackend,
    ...(queueDispatch ? { dispatch: queueDispatch } : {}),
    processEveryMs: config.queuePollMs,
    lockLifetimeMs: config.queueLockMs,
    log,
  });
  // Runs execute in sandbox processes that import the plugin's own module: a standard family or
  // a PLUGINS= module (a plugin given here as an object must come from one of those).
  const modules = await pluginModules([
    ...standardPluginModules,
    ...config.extraPlugins.map((m) => (m.startsWith('.') ? path.resolve(m) : m)),
  ]);
  // Engines run in the pools' processes, which take the setting explicitly: this process runs none.
  const office = new LibreOfficePool({ ...config.officePool, confine: config.engineSandbox, log });
  const sandbox = new SandboxPool({
    moduleOf: (pluginId) => modules.get(pluginId),
    preload: [...new Set(registry.plugins.map((p) => modules.get(p.id)).filter((m): m is string => m !== undefined))],
    enginePaths: enginePaths(),
    fonts: fontSetup(),
    outbound: { allowPrivate: config.importAllowPrivate },
    ...(config.officePool.size > 0 ? { office: office.convert } : {}),
    // One slot beyond the queue's: jobs carrying a password run in the process that accepted them.
    size: config.workers + 1,
    confine: config.engineSandbox,
    heapMb: Math.max(...registry.plugins.map((p) => p.limits.memoryMb ?? DEFAULT_MEMORY_MB), DEFAULT_MEMORY_MB),
    log,
  });
  const mail = createMailTransport({
    smtpUrl: config.smtpUrl,
    outboxDir: path.join(config.dataDir, 'outbox'),
    from: config.mailFrom,
    log,
  });
  const services = createServices({
    store,
    blobs,
    registry,
    queue,
    webhookQueue: queue,
    executor: sandbox,
    mail,
    log,
    ...(clock ? { clock } : {}),
    config: {
      publicUrl: config.publicUrl,
      workRoot: path.join(config.dataDir, 'work'),
      retentionMs: config.retentionMs,
      uploadMaxMs: config.uploadMaxMs,
      uploadIdleMs: config.uploadIdleMs,
      maxAttempts: config.maxAttempts,
      tokenSecret: config.tokenSecret ?? (await dataDirSecret(config.dataDir)),
      webhooksAllowPrivate: config.webhooksAllowPrivate,
      importAllowPrivate: config.importAllowPrivate,
      importTimeoutMs: config.importTimeoutMs,
      exportLeaseMs: config.exportLeaseMs,
      runsJobs: config.workers > 0,
    },
  });
  await queue.agenda.ready;
  // Gauges read the pools and the store's queue at scrape time (core/telemetry/metrics.ts).
  const answers = (probe: () => Promise<void>) =>
    probe().then(
      () => true,
      () => false,
    );
  setMetricSources(
    {
      sandbox: () => sandbox.status(),
      office: () => office.status(),
      queue: () => store.jobs.jobs.waitingByPlugin(),
      readiness: async () => ({
        store: await answers(() => store.ping()),
        queue: await answers(() => queue.ping()),
        engines: services.capabilities.unavailable().length === 0,
        disk: (await diskCheck(config.dataDir, config.diskMinFreeMb)) === 'ok',
      }),
    },
    registry.plugins.map((p) => p.id),
  );
  // An API-only process still tells workers elsewhere about the jobs it accepts.
  if (publishesDispatch && config.workers === 0) await queue.signalOnly();
  return {
    config,
    services,
    queue,
    sandbox,
    office,
    store,
    confinement,
    async startWorkers() {
      if (config.workers > 0) {
        // Exports a dead process held (kill -9) fail now rather than at the first sweep (ExportService).
        await retryStartup('abandoned exports', () => services.exports.failAbandoned(), log);
        sandbox.warm(config.workers);
        // Otherwise listeners start on a process's first office conversion.
        if (config.officePool.warm) void office.warm();
        const plugins = registry.plugins.map((p) => ({ id: p.id, concurrency: p.limits.concurrency }));
        await queue.startWorkers({
          runner: services.runner,
          retention: services.retention,
          store: { jobs: store.jobs },
          concurrency: config.workers,
          plugins,
          webhooks: services.webhooks,
        });
      }
    },
    async close() {
      try {
        setMetricSources({});
        await services.inProcessJobs.stop(config.shutdownGraceMs);
        await queue.stop(config.shutdownGraceMs);
        // Exports under way finish; those of jobs still unfinished fail (their credentials go with this process).
        await services.exports.stop();
        await sandbox.close();
        await office.close();
        await mail.close();
        closeBlobs?.();
        await store.close();
      } finally {
        // A close that failed half-way must not keep a server restarted in this process off the DATA_DIR.
        adapters.releaseApiLock?.();
      }
    },
  };
}
