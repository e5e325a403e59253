/**
 * `npm run worker`: runs conversion jobs and serves no HTTP. Works in both modes: beside a server
 * on the same DATA_DIR (embedded: the processes share the SQLite file) or on any machine with
 * MONGODB_URL (distributed). Load the same PLUGINS as the server. Pair with a server started
 * with WORKERS=0 to keep conversions off the API process.
 */
import { startTracing, stopTracing } from '../../core/telemetry/tracing.js';
import { createPino, toLogger } from '../shared/logging.js';
import { loadConfig } from '../shared/config.js';
import { startMetricsServer } from '../shared/metrics-endpoint.js';
import { createRuntime } from '../shared/runtime.js';

const config = loadConfig();
const log = createPino(config);
if (config.workers < 1) {
  log.fatal('WORKERS is 0: a worker process must run at least one job at a time');
  process.exit(1);
}
await startTracing('transmute-worker');
const runtime = await createRuntime({ config, log: toLogger(log) });
await runtime.startWorkers();
// The worker's only HTTP: GET /metrics on METRICS_PORT (host: HOST).
const metricsServer = await startMetricsServer(config.metrics, config.host);
log.info(
  {
    mode: config.mongodbUrl ? 'distributed' : 'embedded',
    workers: config.workers,
    metrics: metricsServer?.url ?? 'off (METRICS_PORT unset)',
  },
  'worker running',
);
for (const unavailable of runtime.services.capabilities.unavailable())
  log.warn(unavailable, 'plugin unavailable: engine missing');

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    stopping = true;
    log.info({ signal, graceMs: config.shutdownGraceMs }, 'shutting down: finishing running jobs');
    Promise.resolve(metricsServer?.close())
      .then(() => runtime.close())
      .then(stopTracing)
      .then(
        () => process.exit(0),
        (err: unknown) => {
          log.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
  });
}
