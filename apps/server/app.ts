/**
 * The HTTP host: Fastify with the REST surface, health endpoints and one error handler that
 * maps service errors to the spec's statuses and hides the details of anything unexpected.
 */
import path from 'node:path';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import type { Logger as Pino } from 'pino';
import { HTTP_STATUS, ServiceError } from '../../core/services/index.js';
import { redactUrl } from '../shared/logging.js';
import { graphqlRoutes } from './graphql/index.js';
import { openapiRoutes } from './openapi.js';
import { restRoutes, setRateHeaders } from './rest/routes.js';
import type { Runtime } from '../shared/runtime.js';
import { trpcRoutes } from './trpc/index.js';

export async function buildApp(runtime: Runtime, log: Pino): Promise<FastifyInstance> {
  const { services } = runtime;
  const app = Fastify({
    loggerInstance: log as FastifyBaseLogger,
    // Uploads stream to disk; JSON bodies are small.
    bodyLimit: 1024 * 1024,
    trustProxy: true,
  });

  await app.register(multipart, { limits: { fileSize: 5_000_000_001 } });

  app.setErrorHandler((error: FastifyError | ServiceError, request, reply) => {
    if (error instanceof ServiceError) {
      if (error.detail.rate) setRateHeaders(reply, error.detail.rate);
      if (error.detail.retryAfterSeconds !== undefined) reply.header('Retry-After', error.detail.retryAfterSeconds);
      // Refuse the rest of an over-limit upload instead of reading it.
      if (error.code === 'PAYLOAD_TOO_LARGE') reply.header('Connection', 'close');
      return reply.status(HTTP_STATUS[error.code]).send({ error: error.message, ...(error.detail.code ? { code: error.detail.code } : {}) });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.status(status === 413 ? 413 : 400).send({ error: error.message });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ error: 'Internal server error; try again' });
  });
  app.setNotFoundHandler((request, reply) => reply.status(404).send({ error: `No route ${request.method} ${redactUrl(request.url)}` }));

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const check = (probe: () => Promise<void>) => probe().then(() => 'ok', (err: Error) => `error: ${err.message}`);
    const checks = { store: await check(() => services.store.ping()), queue: await check(() => runtime.queue.ping()) };
    const unavailable = services.capabilities.unavailable();
    const ready = checks.store === 'ok' && checks.queue === 'ok' && unavailable.length === 0;
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', checks, unavailable });
  });

  await app.register(restRoutes, { services });
  await app.register(graphqlRoutes, { services });
  await app.register(trpcRoutes, { services, spoolDir: path.join(runtime.config.dataDir, 'spool') });
  await app.register(openapiRoutes, { services, publicUrl: runtime.config.publicUrl });
  return app;
}
