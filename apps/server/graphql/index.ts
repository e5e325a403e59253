/**
 * The GraphQL surface at /graphql, on Fastify. graphql-yoga, Pothos and the schema (yoga.ts) are
 * loaded and built on the first request: an API process whose clients use REST or tRPC alone never
 * holds them (about 10 MB of heap: README, "Memory of the API process").
 */
import { mkdir } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { HTTP_STATUS } from '../../../core/services/errors.js';
import { BodyIdleError } from '../body-idle.js';
import { extensionsOf } from './codes.js';
import type { GraphQLHandler, GraphQLOptions } from './yoga.js';

export async function graphqlRoutes(app: FastifyInstance, options: GraphQLOptions) {
  await mkdir(options.tmpDir, { recursive: true });
  let graphql: Promise<GraphQLHandler> | undefined;
  const loaded = () => {
    // A failure is kept: a schema that cannot be built will not build on the next request either,
    // and rebuilding it for every request would cost each one a schema's CPU.
    graphql ??= import('./yoga.js').then(({ createGraphQLHandler }) => createGraphQLHandler(app, options));
    return graphql;
  };
  app.route({
    url: '/graphql',
    method: ['GET', 'POST', 'OPTIONS'],
    config: { auth: 'in-band' },
    // A JSON body that stopped arriving fails before Yoga sees the request (body-idle.ts): answered as GraphQL
    // answers a multipart body that did (uploads.ts), an error of the whole request with its HTTP status.
    errorHandler: (error, _request, reply) => {
      if (!(error instanceof BodyIdleError)) throw error;
      return reply
        .status(HTTP_STATUS[error.code])
        .type('application/json; charset=utf-8')
        .send({ errors: [{ message: error.message, extensions: extensionsOf(error) }] });
    },
    handler: async (request, reply) => {
      let handle: GraphQLHandler;
      try {
        handle = await loaded();
      } catch (err) {
        // A schema that cannot be built (a third-party plugin's options Pothos cannot express) is
        // the server's fault, not the client's: say so plainly; REST and tRPC keep serving.
        request.log.error({ err }, 'the GraphQL schema could not be built');
        return reply
          .code(503)
          .send({ error: 'GraphQL is unavailable on this server: its schema could not be built (see the server log)' });
      }
      return handle(request, reply);
    },
  });
}
