/** The GraphQL surface at /graphql: graphql-yoga on Fastify, over the same services as REST. */
import type { FastifyInstance } from 'fastify';
import { createYoga } from 'graphql-yoga';
import type { Services } from '../../../core/services/index.js';
import type { GraphQLContext } from './builder.js';
import { maskError } from './errors.js';
import { buildGraphQLSchema } from './schema.js';
import { principalOf, useApiKeyAndUploads, type ServerContext } from './uploads.js';

export async function graphqlRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const yoga = createYoga<ServerContext, GraphQLContext>({
    schema: buildGraphQLSchema(services.capabilities),
    graphqlEndpoint: '/graphql',
    // GraphiQL loads its scripts from a CDN, and these machines are offline.
    graphiql: false,
    landingPage: false,
    // Multipart requests are parsed by graphql-upload-ts (see uploads.ts), which applies the
    // plan's file size limit; JSON bodies are bounded by Fastify's bodyLimit.
    multipart: false,
    maxRequestBodySize: false,
    maskedErrors: { maskError },
    logging: {
      debug: () => {},
      info: () => {},
      warn: (...args) => app.log.warn({ detail: args }, 'graphql warning'),
      error: (error) => app.log.error({ err: error }, 'graphql error'),
    },
    plugins: [useApiKeyAndUploads(services)],
    context: ({ request }) => ({ services, principal: principalOf(request), signal: request.signal }),
  });

  app.route({
    url: '/graphql',
    method: ['GET', 'POST', 'OPTIONS'],
    handler: async (request, reply) => {
      const response = await yoga.handleNodeRequestAndResponse(request, reply, { req: request, reply });
      response.headers.forEach((value, key) => void reply.header(key, value));
      return reply.status(response.status).send(response.body);
    },
  });
}
