/**
 * The HTTP host: Fastify with the REST surface, health endpoints and one error handler that
 * maps service errors to the spec's statuses and hides the details of anything unexpected.
 */
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import fastifyCookie from '@fastify/cookie';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import type { Logger as Pino } from 'pino';
import { transcriptionStatus } from '../../core/engines/whisper.js';
import { HTTP_STATUS, type ServiceError, expectedError } from '../../core/services/index.js';
import { redactUrl } from '../shared/logging.js';
import { authenticateRequests, bearerChallenge } from './auth.js';
import { limitBodyIdle } from './body-idle.js';
import { graphqlRoutes } from './graphql/index.js';
import { guardJsonBodies } from './json-body.js';
import { observeRequests } from './observability.js';
import { trackRoutes } from './method-not-allowed.js';
import { operationRoutes } from './operations/routes.js';
import type { Runtime } from '../shared/runtime.js';
import { diskCheck } from '../shared/disk-space.js';
import { requestTempDir } from '../shared/temp-dir.js';
import { trpcRoutes } from './trpc/index.js';
import { webRoutes } from './web.js';

/** The most of an unread request body worth reading to keep its connection (see onSend below). */
const DRAIN_AT_MOST_BYTES = 1_000_000;

/**
 * How often Node checks its request deadlines (default 30 s): a body is refused at most this long past UPLOAD_MAX_S
 * (within upload-time.ts's margin); a tenth of a short deadline, so a test's few seconds are kept too.
 */
const deadlineCheckMs = (uploadMaxMs: number) => Math.min(30_000, Math.max(250, Math.round(uploadMaxMs / 10)));

const isFetchResponse = (payload: unknown): payload is Response =>
  Object.prototype.toString.call(payload) === '[object Response]';

const describeSeconds = (ms: number) =>
  ms >= 120_000 ? `${Math.round(ms / 60_000)} minutes` : `${Math.round(ms / 1000)} seconds`;

/**
 * The HTTP parser's own refusals, before or beside any route: the body not whole within UPLOAD_MAX_S (408), headers
 * too large (431), a malformed request (400); each as `{ error }` and the connection closed. Node's request timeout
 * closes the socket: the route reading the body sees it cut and deletes the files it staged (multipart.ts). An answer
 * already begun, or given before the body was whole (a refusal while the client kept sending), takes no second one:
 * the connection just ends.
 */
function answerClientErrors(uploadMaxMs: number, answeredEarly: WeakSet<Socket>) {
  const timedOut =
    `The request was not received whole within ${describeSeconds(uploadMaxMs)} (the server's limit for one ` +
    `request): nothing of it was kept; send large files by URL or over a faster connection`;
  return function onClientError(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket) {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const [status, message] =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, timedOut]
        : error.code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'The request headers are too large']
          : [400, 'Malformed HTTP request'];
    if (status === 408) this.log.info({ status }, 'request body not received in time: connection closed');
    const answering = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
    if (socket.writable && !answering?.headersSent && !answeredEarly.has(socket)) {
      const body = JSON.stringify({ error: message });
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy(error);
  };
}

export async function buildApp(runtime: Runtime, log: Pino): Promise<FastifyInstance> {
  const { services } = runtime;
  /** Connections whose request was answered before its body was whole: the request timeout adds no second answer. */
  const answeredEarly = new WeakSet<Socket>();
  const app = Fastify({
    loggerInstance: log as FastifyBaseLogger,
    // Uploads stream to disk; JSON bodies are small.
    bodyLimit: 1024 * 1024,
    // A tRPC batch names its procedures in one path parameter (`/trpc/a.b,c.d,...`): long enough for
    // the batch limit (trpc/index.ts), which answers past it with a 400 naming the limit.
    routerOptions: { maxParamLength: 2048 },
    trustProxy: runtime.config.trustProxy,
    // UPLOAD_MAX_S: Node's request timeout counts from a request's first byte until its body is whole, and stops
    // there: a waiting answer (`Prefer: wait`), a subscription or an idle keep-alive connection is never cut by it.
    requestTimeout: runtime.config.uploadMaxMs,
    http: {
      connectionsCheckingInterval: deadlineCheckMs(runtime.config.uploadMaxMs),
      // Node's 60 s for the headers, never more than the whole request's: Node 20 swaps the two timeouts when the
      // headers' is the longer, which would stretch a short UPLOAD_MAX_S to 60 s.
      headersTimeout: Math.min(60_000, runtime.config.uploadMaxMs),
    },
    clientErrorHandler: answerClientErrors(runtime.config.uploadMaxMs, answeredEarly),
  });

  observeRequests(app, runtime.config);
  // Multipart bodies are left unread here: the routes read them (multipart.ts) once the caller
  // and the operation's limits are known.
  app.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null));
  // Every other body (JSON on the three surfaces, text) is read by Fastify's parsers under the same UPLOAD_IDLE_S
  // as multipart ones: a body that stops sending is a 408 (body-idle.ts), on every route.
  limitBodyIdle(app, services.uploads.bodyIdleMs());
  // An answer given before the body was read to its end (a refusal, a malformed body): Node reads
  // and drops the rest so the client, still sending, gets the answer. A large rest (or one of
  // unknown length) is not worth reading: the connection ends instead.
  // A callback hook, not an async one: it runs on every answer, and a promise per answer shows in the poll's profile.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!request.raw.complete) {
      const { socket } = request.raw;
      answeredEarly.add(socket);
      request.raw.once('end', () => answeredEarly.delete(socket));
      const declared = Number(request.headers['content-length']);
      // A fetch Response (tRPC's) brings its status: Fastify applies it only after this hook.
      const status = isFetchResponse(payload) ? payload.status : reply.statusCode;
      // A 408 is a body that stopped coming: nothing more is worth waiting for.
      if (status === 413 || status === 408 || !(declared <= DRAIN_AT_MOST_BYTES)) reply.header('Connection', 'close');
      // Keeping the connection: read the rest ourselves (Node does not drain a body a reader had
      // started on), or the next request on this connection would never be read.
      else request.raw.resume();
    }
    done(null, payload);
  });

  app.setErrorHandler((error: FastifyError | ServiceError, request, reply) => {
    // Every error answers `{ error }` in JSON, whatever the route had set for its file: a download's object is read
    // once the answer has begun, so its store's failure arrives after the file's headers (without this, Fastify
    // could not send the object as application/octet-stream and answered its own 500).
    reply.removeHeader('Content-Disposition').removeHeader('Content-Length').type('application/json; charset=utf-8');
    // A backend that did not answer is a 503 with Retry-After, logged as a warning (core/services/unavailable.ts).
    const expected = expectedError(error, request.log);
    if (expected) {
      if (expected.detail.retryAfterSeconds !== undefined)
        reply.header('Retry-After', expected.detail.retryAfterSeconds);
      if (expected.code === 'UNAUTHENTICATED') reply.header('WWW-Authenticate', bearerChallenge(request));
      return reply
        .status(HTTP_STATUS[expected.code])
        .send({ error: expected.message, ...(expected.detail.code ? { code: expected.detail.code } : {}) });
    }
    const status = (error as FastifyError).statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.status(status === 413 ? 413 : 400).send({ error: error.message });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ error: 'Internal server error; try again' });
  });
  const methodNotAllowed = trackRoutes(app);
  app.setNotFoundHandler(
    (request, reply) =>
      methodNotAllowed(request, reply) ??
      reply.status(404).send({ error: `No route ${request.method} ${redactUrl(request.url)}` }),
  );

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const check = (probe: () => Promise<void>) =>
      probe().then(
        () => 'ok',
        (err: Error) => `error: ${err.message}`,
      );
    const checks = {
      store: await check(() => runtime.store.ping()),
      queue: await check(() => runtime.queue.ping()),
      // A full DATA_DIR fails uploads and runs (507): not ready while space is low (DISK_MIN_FREE_MB).
      disk: await diskCheck(runtime.config.dataDir, runtime.config.diskMinFreeMb),
    };
    const unavailable = services.capabilities.unavailable();
    // Engines that can no longer be confined would run clients' documents bare: not ready.
    const confinement = await runtime.confinement();
    const ready =
      checks.store === 'ok' &&
      checks.queue === 'ok' &&
      checks.disk === 'ok' &&
      unavailable.length === 0 &&
      confinement.working !== false;
    // The sandbox and office pools' states are informative: processes start on demand, so none is
    // not an outage, and an office pool fallen back to cold soffice still converts (office.mode).
    return reply.status(ready ? 200 : 503).send({
      status: ready ? 'ready' : 'not ready',
      checks,
      unavailable,
      confinement,
      sandbox: runtime.sandbox.status(),
      office: runtime.office.status(),
      transcription: transcriptionStatus(runtime.config.whisper),
    });
  });

  // Browser sessions (auth.ts, session-cookies.ts): cookies parsed before the authentication hook.
  await app.register(fastifyCookie);
  const cookies = { publicUrl: runtime.config.publicUrl };
  // The three surfaces share one authentication path: the hook of this scope (auth.ts).
  await app.register(async (surfaces) => {
    surfaces.addHook('onRequest', authenticateRequests(services, cookies));
    // JSON bodies: bounded for callers without credentials, and their nesting checked, before parsing (json-body.ts).
    guardJsonBodies(surfaces);
    // REST and the OpenAPI document, both generated from the operation table (operations/).
    await surfaces.register(operationRoutes, { services, publicUrl: runtime.config.publicUrl });
    await surfaces.register(graphqlRoutes, { services, tmpDir: requestTempDir(runtime.config.dataDir), cookies });
    await surfaces.register(trpcRoutes, { services });
  });
  await app.register(webRoutes);
  return app;
}
