/**
 * The Pothos builder and the GraphQL context. The schema depends on the registry (option input
 * types are generated from it), so each type file exports a function that adds its type and
 * root fields to a builder, and schema.ts assembles them.
 */
import SchemaBuilder from '@pothos/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLUpload, type FileUpload } from 'graphql-upload-ts';
import type { Principal, Services } from '../../../core/services/index.js';
import type { CookiePolicy } from '../session-cookies.js';
import { addDateTimeScalar, addJsonScalar } from './json.js';

export interface GraphQLContext {
  services: Services;
  /**
   * The caller (API key or browser session). Reading it on a request without credentials raises
   * UNAUTHENTICATED with HTTP 401, as before sessions: only the fields that allow anonymous
   * callers (me, signUp, signIn, verifyEmail, formats...) read `viewer` instead.
   */
  principal: Principal;
  /** The caller, or null on a request without credentials. */
  viewer: Principal | null;
  /** The HTTP exchange, for the fields that set or clear the session cookies. */
  http: { request: FastifyRequest; reply: FastifyReply; cookies: CookiePolicy };
  /** Aborted when the client goes away (ends subscriptions). */
  signal: AbortSignal;
}

export interface SchemaTypes {
  Context: GraphQLContext;
  // Object fields are non-null unless marked; root fields are nullable so one failing field does not null the whole answer.
  DefaultFieldNullability: false;
  Scalars: {
    JSON: { Input: unknown; Output: unknown };
    Upload: { Input: Promise<FileUpload>; Output: never };
    DateTime: { Input: Date; Output: Date | string };
  };
}

export type Builder = PothosSchemaTypes.SchemaBuilder<PothosSchemaTypes.ExtendDefaultTypes<SchemaTypes>>;

export function createBuilder(): Builder {
  const builder = new SchemaBuilder<SchemaTypes>({ defaultFieldNullability: false });
  builder.addScalarType('Upload', GraphQLUpload, {
    description:
      'A file sent by the GraphQL multipart request spec (https://github.com/jaydenseric/graphql-multipart-request-spec).',
  });
  addJsonScalar(builder);
  addDateTimeScalar(builder);
  builder.queryType({
    description: 'Reads: jobs, batches, extraction results, the account and what this server converts.',
  });
  builder.mutationType({
    description: 'Conversions, tools, extractions, and changes to the account, its keys and webhooks.',
  });
  builder.subscriptionType({ description: 'Live updates over Server-Sent Events or WebSocket.' });
  return builder;
}
