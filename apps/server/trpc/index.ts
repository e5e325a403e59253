/**
 * The tRPC surface at /trpc on Fastify.
 *
 * Mounted with tRPC's own `resolveResponse` (what every tRPC adapter, the Fastify one included,
 * is built on) rather than `fastifyTRPCPlugin`, for one reason: the plugin lets tRPC read
 * FormData through the Fetch API, which holds whole files in memory. Here a multipart request's
 * `formData()` is answered by spool.ts instead, after the key is checked. Everything else is
 * what the Fastify adapter does: JSON bodies reach tRPC unparsed, the response is streamed back
 * (SSE subscriptions included).
 */
import type { IncomingMessage } from 'node:http';
import { incomingMessageToRequest } from '@trpc/server/adapters/node-http';
import { resolveResponse } from '@trpc/server/http';
import type { FastifyInstance } from 'fastify';
import { ServiceError, type Services } from '../../../core/services/index.js';
import { setRateHeaders } from '../rest/routes.js';
import { createTrpcContext } from './context.js';
import { appRouterFor, formFileLimit } from './router.js';
import { spoolFormData } from './spool.js';
import { toTRPCError } from './trpc.js';

export async function trpcRoutes(app: FastifyInstance, { services, spoolDir }: { services: Services; spoolDir: string }) {
  // tRPC parses JSON itself (and accepts empty bodies); multipart stays with @fastify/multipart.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.all<{ Params: { path: string } }>('/trpc/:path', async (request, reply) => {
    const context = createTrpcContext(services, request.headers.authorization, (rate) => setRateHeaders(reply, rate));
    const incoming = request.raw as IncomingMessage & { body?: unknown };
    if (typeof request.body === 'string') incoming.body = request.body;
    // A multipart body is read by spool.ts; the Fetch Request must not start draining it.
    if (request.isMultipart()) incoming.body = '';
    const fetchRequest = incomingMessageToRequest(incoming, reply.raw, { maxBodySize: null });
    if (request.isMultipart()) {
      // Read lazily: tRPC asks for the input only after the procedure's authentication passed,
      // and the procedure's plan gate and file limit are checked before a byte is read.
      const formData = async () => {
        const principal = await context.authenticate();
        const { maxFileBytes } = services.accounts.limitsOf(principal.account);
        try {
          const { maxFiles, tooMany } = formFileLimit(request.params.path, services, principal);
          return await spoolFormData(request, reply, { dir: spoolDir, maxFileBytes, maxFiles, tooMany });
        } catch (error) {
          throw error instanceof ServiceError ? toTRPCError(error) : error;
        }
      };
      Object.defineProperty(fetchRequest, 'formData', { value: formData });
    }
    const response = await resolveResponse({
      router: appRouterFor(services),
      req: fetchRequest,
      path: request.params.path,
      error: null,
      createContext: async () => context,
      onError: ({ error, path }) => {
        if (error.code === 'INTERNAL_SERVER_ERROR') request.log.error({ err: error.cause ?? error, path }, 'trpc error');
      },
      responseMeta: ({ errors }) => {
        const retryAfter = errors.map((e) => (e.cause instanceof ServiceError ? e.cause.detail.retryAfterSeconds : undefined)).find((s) => s !== undefined);
        return retryAfter === undefined ? {} : { headers: { 'Retry-After': String(retryAfter) } };
      },
    });
    return reply.send(response);
  });
}
