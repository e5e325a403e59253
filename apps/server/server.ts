/** Starts a complete server (HTTP + workers in embedded mode); used by main.ts and the tests. */
import type { FastifyInstance } from 'fastify';
import type { Plugin } from '../../core/contract/index.js';
import type { Clock } from '../../core/services/clock.js';
import { buildApp } from './app.js';
import { createPino, toLogger } from '../shared/logging.js';
import type { Config } from '../shared/config.js';
import { createRuntime, type Runtime } from '../shared/runtime.js';
import { startTempSweeper } from '../shared/temp-dir.js';
import { startMetricsServer } from '../shared/metrics-endpoint.js';

export interface RunningServer {
  app: FastifyInstance;
  runtime: Runtime;
  url: string;
  /** The METRICS_PORT listener's base URL, when METRICS_PORT is set. */
  metricsUrl?: string;
  close(): Promise<void>;
}

export async function startServer(
  config: Config,
  options: { clock?: Clock; plugins?: readonly Plugin[] } = {},
): Promise<RunningServer> {
  const pinoLogger = createPino(config);
  const runtime = await createRuntime({ config, log: toLogger(pinoLogger), servesApi: true, ...options });
  const app = await buildApp(runtime, pinoLogger);
  await runtime.startWorkers();
  let address: string;
  try {
    address = await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    // A port taken meanwhile: what was started goes (workers, the store's lock on DATA_DIR), so a caller may retry.
    try {
      await app.close();
    } finally {
      await runtime.close();
    }
    throw err;
  }
  const metricsServer = await startMetricsServer(config.metrics, config.host);
  // Request temp files a killed process left behind go now; abandoned ones as they age.
  const stopSweeper = startTempSweeper(config.dataDir, (err) => pinoLogger.warn({ err }, 'temp sweep failed'));
  let closed = false;
  return {
    app,
    runtime,
    url: address.replace('0.0.0.0', '127.0.0.1').replace('[::]', '127.0.0.1'),
    ...(metricsServer ? { metricsUrl: metricsServer.url } : {}),
    async close() {
      if (closed) return;
      closed = true;
      stopSweeper();
      await metricsServer?.close();
      await app.close();
      await runtime.close();
    },
  };
}
