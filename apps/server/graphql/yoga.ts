/**
 * The GraphQL surface's handler: graphql-yoga over the same services as REST, with the schema built
 * from the registry (loaded on the first request to /graphql: index.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createYoga, type Plugin } from 'graphql-yoga';
import { HTTP_STATUS, ServiceError, type Services } from '../../../core/services/index.js';
import type { CookiePolicy } from '../session-cookies.js';
import { useSignInForgeryGuard } from './account.js';
import { documentCaches } from './document-cache.js';
import type { GraphQLContext } from './builder.js';
import { maskErrorLogging, requestError } from './errors.js';
import { useRequestLimits } from './limits.js';
import { buildGraphQLSchema } from './schema.js';
import { multipartFailure, useUploads, type ServerContext } from './uploads.js';

/**
 * On a request without credentials, `principal` is a getter that raises the request's
 * authentication failure (401): set once the context is built (the context factory's result is
 * copied property by property, which would run a getter there).
 */
function usePrincipalGuard(): Plugin<GraphQLContext & ServerContext> {
  return {
    onContextBuilding:
      () =>
      ({ context }) => {
        if (context.viewer) return;
        const failure =
          context.req.authFailure ??
          new ServiceError('UNAUTHENTICATED', 'Missing API key: send Authorization: Bearer <API_KEY>');
        Object.defineProperty(context, 'principal', {
          configurable: true,
          enumerable: false,
          get: () => {
            throw requestError(failure);
          },
        });
      },
  };
}

export interface GraphQLOptions {
  services: Services;
  /** Where multipart files wait for their resolvers (apps/shared/temp-dir.ts). */
  tmpDir: string;
  cookies: CookiePolicy;
}

export type GraphQLHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

export function createGraphQLHandler(
  app: FastifyInstance,
  { services, tmpDir, cookies }: GraphQLOptions,
): GraphQLHandler {
  const yoga = createYoga<ServerContext, GraphQLContext>({
    schema: buildGraphQLSchema(services.capabilities),
    graphqlEndpoint: '/graphql',
    // GraphiQL loads its scripts from a CDN, and these machines are offline.
    graphiql: false,
    landingPage: false,
    // Multipart requests are read by uploads.ts, which applies the plan's file size limit; JSON
    // bodies are bounded by Fastify's bodyLimit.
    multipart: false,
    maxRequestBodySize: false,
    maskedErrors: { maskError: maskErrorLogging(app.log) },
    // Parsed documents remembered within a bound in bytes, not only in entries (document-cache.ts).
    parserAndValidationCache: documentCaches(),
    logging: {
      debug: () => {},
      info: () => {},
      warn: (...args) => app.log.warn({ detail: args }, 'graphql warning'),
      error: (error) => app.log.error({ err: error }, 'graphql error'),
    },
    // A browser's credentialed requests from other origins get no CORS grant (the session cookie is
    // for this origin's web app); API-key callers, which send no cookies, are answered as before.
    cors: { credentials: false },
    // The transport's hook (../auth.ts) authenticated the request; a failure is raised in GraphQL's terms.
    // Bounded requests (limits.ts): tokens, aliases, depth, directives and cost, and the rate weight.
    plugins: [useRequestLimits(), useSignInForgeryGuard(), useUploads(services, tmpDir), usePrincipalGuard()],
    context: ({ request, req, reply }) =>
      ({
        services,
        viewer: req.principal ?? null,
        signal: request.signal,
        http: { request: req, reply, cookies },
        ...(req.principal ? { principal: req.principal } : {}),
      }) as GraphQLContext,
  });

  return async (request, reply) => {
    const response = await yoga.handleNodeRequestAndResponse(request, reply, { req: request, reply });
    response.headers.forEach((value, key) => void reply.header(key, value));
    // A multipart body that failed fails the whole request, whatever the resolvers made of it.
    const failure = multipartFailure(request);
    const status = failure && response.status < 400 ? HTTP_STATUS[failure.code] : response.status;
    return reply.status(status).send(response.body);
  };
}
