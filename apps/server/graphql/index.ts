/** The GraphQL surface at /graphql: graphql-yoga on Fastify, over the same services as REST. */
import { mkdir } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { createYoga } from 'graphql-yoga';
import { HTTP_STATUS, type Services } from '../../../core/services/index.js';
import { principalOf } from '../auth.js';
import type { GraphQLContext } from './builder.js';
import { maskError } from './errors.js';
import { buildGraphQLSchema } from './schema.js';
import { multipartFailure, useUploads, type ServerContext } from './uploads.js';

/** `tmpDir`: where multipart files wait for their resolvers (apps/shared/temp-dir.ts). */
export async function graphqlRoutes(app: FastifyInstance, { services, tmpDir }: { services: Services; tmpDir: string }) {
  await mkdir(tmpDir, { recursive: true });
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
    maskedErrors: { maskError },
    logging: {
      debug: () => {},
      info: () => {},
      warn: (...args) => app.log.warn({ detail: args }, 'graphql warning'),
      error: (error) => app.log.error({ err: error }, 'graphql error'),
    },
    // The transport's hook (../auth.ts) authenticated the request; a failure is raised in GraphQL's terms.
    plugins: [useUploads(services, tmpDir)],
    context: ({ request, req }) => ({ services, principal: principalOf(req), signal: request.signal }),
  });

  app.route({
    url: '/graphql',
    method: ['GET', 'POST', 'OPTIONS'],
    config: { auth: 'in-band' },
    handler: async (request, reply) => {
      const response = await yoga.handleNodeRequestAndResponse(request, reply, { req: request, reply });
      response.headers.forEach((value, key) => void reply.header(key, value));
      // A multipart body that failed fails the whole request, whatever the resolvers made of it.
      const failure = multipartFailure(request);
      const status = failure && response.status < 400 ? HTTP_STATUS[failure.code] : response.status;
      return reply.status(status).send(response.body);
    },
  });
}
