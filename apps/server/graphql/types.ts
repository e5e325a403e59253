/**
 * The types the GraphQL type files share: the context, the Pothos builder's type and the Job
 * view. Apart from builder.ts and job.ts so the files that take them import no cycle.
 */
import type { InputTypeParam } from '@pothos/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FileUpload } from 'graphql-upload-ts';
import type { AcceptedJob, JobStatus } from '../../../schema/index.js';
import type { Principal, Services } from '../../../core/services/index.js';
import type { CookiePolicy } from '../session-cookies.js';

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
  // Object fields are non-null unless marked; root fields are nullable so one failing field does not null the whole
  // answer.
  DefaultFieldNullability: false;
  // Types are also referred to by name (the operation table's sections, the generated option inputs): any name is a
  // type whose shape is checked by the resolvers that serve it, and by GraphQL when the schema is built.
  Objects: Record<string, unknown>;
  Inputs: Record<string, unknown>;
  Scalars: {
    JSON: { Input: unknown; Output: unknown };
    Upload: { Input: Promise<FileUpload>; Output: never };
    DateTime: { Input: Date; Output: Date | string };
  };
}

/** A GraphQL type by name, or a list of it (`'Job'`, `['WebhookEndpoint']`), as the generated fields name them. */
export type TypeName = string | [string];

/** An input type by name or ref, or a list of it (the generated option inputs). */
export type InputTypeName = InputTypeParam<PothosSchemaTypes.ExtendDefaultTypes<SchemaTypes>>;

export type Builder = PothosSchemaTypes.SchemaBuilder<PothosSchemaTypes.ExtendDefaultTypes<SchemaTypes>>;

/** A job as the Job type shows it: just accepted, or its status. */
export type JobView = { jobId: string } & (Omit<AcceptedJob, 'statusUrl'> | JobStatus);
