/** `npm start`: the embedded server (REST + workers in one process) on PORT. */
import { startTracing, stopTracing } from '../../core/telemetry/tracing.js';
import { loadConfig } from '../shared/config.js';
import { startServer } from './server.js';

const config = loadConfig();
// Only when OTEL_EXPORTER_OTLP_ENDPOINT is set (the SDK is not even loaded otherwise).
await startTracing('transmute-api');
const server = await startServer(config);
server.app.log.info(
  { url: config.publicUrl, dataDir: config.dataDir, workers: config.workers },
  'Transmute is serving',
);
for (const unavailable of server.runtime.services.capabilities.unavailable())
  server.app.log.warn(unavailable, 'plugin unavailable: engine missing');

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    stopping = true;
    server.app.log.info({ signal }, 'shutting down: finishing running jobs');
    server
      .close()
      .then(stopTracing)
      .then(
        () => process.exit(0),
        (err) => {
          server.app.log.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
  });
}
