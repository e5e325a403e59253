/**
 * The Pothos builder and the GraphQL context. The schema depends on the registry (option input
 * types are generated from it), so each type file exports a function that adds its type and
 * root fields to a builder, and schema.ts assembles them.
 */
import SchemaBuilder from '@pothos/core';
import { GraphQLUpload, type FileUpload } from 'graphql-upload-ts';
import type { Principal, Services } from '../../../core/services/index.js';
import { addJsonScalar } from './json.js';

export interface GraphQLContext {
  services: Services;
  principal: Principal;
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
  };
}

export type Builder = PothosSchemaTypes.SchemaBuilder<PothosSchemaTypes.ExtendDefaultTypes<SchemaTypes>>;

export function createBuilder(): Builder {
  const builder = new SchemaBuilder<SchemaTypes>({ defaultFieldNullability: false });
  builder.addScalarType('Upload', GraphQLUpload, {
    description: 'A file sent by the GraphQL multipart request spec (https://github.com/jaydenseric/graphql-multipart-request-spec).',
  });
  addJsonScalar(builder);
  builder.queryType({});
  builder.mutationType({});
  builder.subscriptionType({});
  return builder;
}
