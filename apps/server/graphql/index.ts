/**
 * The GraphQL surface at /graphql, on Fastify. graphql-yoga, Pothos and the schema (yoga.ts) are
 * loaded and built on the first request: an API process whose clients use REST or tRPC alone never
 * holds them (about 10 MB of heap: README, "Memory of the API process").
 */
import { mkdir } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import type { GraphQLHandler, GraphQLOptions } from './yoga.js';

export async function graphqlRoutes(app: FastifyInstance, options: GraphQLOptions) {
  await mkdir(options.tmpDir, { recursive: true });
  let graphql: Promise<GraphQLHandler> | undefined;
  const loaded = () => {
    graphql ??= import('./yoga.js').then(
      ({ createGraphQLHandler }) => createGraphQLHandler(app, options),
      (err: unknown) => {
        graphql = undefined; // the next request tries again
        throw err;
      },
    );
    return graphql;
  };
  app.route({
    url: '/graphql',
    method: ['GET', 'POST', 'OPTIONS'],
    config: { auth: 'in-band' },
    handler: async (request, reply) => (await loaded())(request, reply),
  });
}
