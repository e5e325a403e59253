/** `npm start`: the embedded server (REST + workers in one process) on PORT. */
import { loadConfig } from '../shared/config.js';
import { startServer } from './server.js';

const config = loadConfig();
const server = await startServer(config);
server.app.log.info({ url: config.publicUrl, dataDir: config.dataDir, workers: config.workers }, 'Transmute is serving');
for (const unavailable of server.runtime.services.capabilities.unavailable()) server.app.log.warn(unavailable, 'plugin unavailable: engine missing');

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    stopping = true;
    server.app.log.info({ signal }, 'shutting down: finishing running jobs');
    server.close().then(
      () => process.exit(0),
      (err) => {
        server.app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
