/**
 * The tRPC surface at /trpc on Fastify.
 *
 * Mounted with tRPC's own `resolveResponse` (what every tRPC adapter, the Fastify one included,
 * is built on) rather than `fastifyTRPCPlugin`, for one reason: the plugin lets tRPC read
 * FormData through the Fetch API, which holds whole files in memory. Here a multipart request's
 * `formData()` is answered by the HTTP surfaces' multipart reader, which stages the files
 * straight into the blob store (uploads.ts). Everything else is what the Fastify adapter does:
 * JSON bodies reach tRPC unparsed, the response is streamed back (SSE subscriptions included).
 * The caller comes from the transport's hook (../auth.ts), raised in tRPC's terms when missing.
 */
import type { IncomingMessage } from 'node:http';
import { incomingMessageToRequest } from '@trpc/server/adapters/node-http';
import { resolveResponse } from '@trpc/server/http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TRPCError } from '@trpc/server';
import { ServiceError, expectedError, type Services } from '../../../core/services/index.js';
import { principalOf, setRateHeaders } from '../auth.js';
import { BodyIdleError } from '../body-idle.js';
import { checkJsonBody } from '../json-body.js';
import { isMultipart, stageMultipart } from '../multipart.js';
import { createTrpcContext } from './context.js';
import { appRouterFor, formFileLimit } from './router.js';
import { toTRPCError } from './trpc.js';
import { discardUntaken, toFormData } from './uploads.js';

/** The most procedures one batched request may call (docs/API.md, "request limits"). */
export const TRPC_MAX_BATCH = 20;

/**
 * A batch's bound and weight: past TRPC_MAX_BATCH procedures it is refused (400) before any runs;
 * otherwise it counts against the rate limit as one request per procedure (the hook counted one).
 */
async function admitBatch(
  request: FastifyRequest<{ Params: { path: string } }>,
  reply: FastifyReply,
  services: Services,
): Promise<TRPCError | null> {
  const query = request.query as Record<string, unknown> | undefined;
  if (query?.batch !== '1') return null;
  const size = request.params.path.split(',').length;
  if (size > TRPC_MAX_BATCH) {
    return new TRPCError({
      code: 'BAD_REQUEST',
      message: `Batch of ${size} procedures refused: the limit is ${TRPC_MAX_BATCH} per request (maxBatchSize)`,
    });
  }
  if (!request.principal || size < 2) return null;
  try {
    setRateHeaders(reply, await services.rateLimits.charge(request.principal, size - 1));
    return null;
  } catch (thrown) {
    const error = expectedError(thrown, request.log);
    if (!error) throw thrown;
    if (error.detail.rate) setRateHeaders(reply, error.detail.rate);
    return toTRPCError(error);
  }
}

export async function trpcRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const appRouter = appRouterFor(services);
  // tRPC parses JSON itself (and accepts empty bodies); multipart bodies are read by formData() below.
  app.removeContentTypeParser('application/json');
  // Checked before tRPC parses it, as every JSON body is (json-body.ts).
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    try {
      checkJsonBody(request, body as string);
    } catch (err) {
      done(err as Error, undefined);
      return;
    }
    done(null, body);
  });

  /**
   * Answers the request through tRPC. `bodyFailure`: its JSON body failed before the route (body-idle.ts), which
   * tRPC answers for each procedure called, as it does a multipart body that failed (formData() below).
   */
  const answer = async (
    request: FastifyRequest<{ Params: { path: string } }>,
    reply: FastifyReply,
    bodyFailure?: ServiceError,
  ) => {
    const context = createTrpcContext(services, request.principal ?? request.authFailure, request.log);
    const refused = bodyFailure ? toTRPCError(bodyFailure) : await admitBatch(request, reply, services);
    const incoming = request.raw as IncomingMessage & { body?: unknown };
    if (typeof request.body === 'string') incoming.body = request.body;
    const multipart = !bodyFailure && isMultipart(request);
    // A multipart body is read by the reader below, and a failed body is not read again: the Fetch Request must not
    // start draining it.
    if (multipart || bodyFailure) incoming.body = '';
    const fetchRequest = incomingMessageToRequest(incoming, reply.raw, { maxBodySize: null });
    let form: FormData | undefined;
    if (multipart) {
      // Read lazily: tRPC asks for the input only after the procedure's authentication passed,
      // and the procedure's plan gate and file limit are checked before a byte is read.
      const formData = async () => {
        try {
          const principal = principalOf(request);
          const limit = formFileLimit(request.params.path, services, principal);
          form = toFormData(await stageMultipart(request, services.uploads, principal, limit));
          return form;
        } catch (error) {
          const expected = expectedError(error, request.log);
          throw expected ? toTRPCError(expected) : error;
        }
      };
      Object.defineProperty(fetchRequest, 'formData', { value: formData });
    }
    try {
      const response = await resolveResponse({
        router: appRouter,
        req: fetchRequest,
        path: request.params.path,
        error: refused,
        createContext: async () => context,
        onError: ({ error, path }) => {
          if (error.code === 'INTERNAL_SERVER_ERROR')
            request.log.error({ err: error.cause ?? error, path }, 'trpc error');
        },
        responseMeta: ({ errors }) => {
          const retryAfter = errors
            .map((e) => (e.cause instanceof ServiceError ? e.cause.detail.retryAfterSeconds : undefined))
            .find((s) => s !== undefined);
          return retryAfter === undefined ? {} : { headers: { 'Retry-After': String(retryAfter) } };
        },
      });
      return reply.send(response);
    } finally {
      // Files of a form the procedure refused before taking them.
      if (form) await discardUntaken(services.uploads, form);
    }
  };

  app.all<{ Params: { path: string } }>('/trpc/:path', {
    config: { auth: 'in-band' },
    errorHandler: (error, request, reply) => {
      if (!(error instanceof BodyIdleError)) throw error;
      return answer(request, reply, error);
    },
    handler: (request, reply) => answer(request, reply),
  });
}
