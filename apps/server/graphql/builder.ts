/**
 * The Pothos builder and the GraphQL context. The schema depends on the registry (option input
 * types are generated from it), so each type file exports a function that adds its type and
 * root fields to a builder, and schema.ts assembles them.
 */
import SchemaBuilder from '@pothos/core';
import { GraphQLUpload } from 'graphql-upload-ts';
import { addDateTimeScalar, addJsonScalar } from './json.js';
import type { Builder, SchemaTypes } from './types.js';

export type { Builder, GraphQLContext, SchemaTypes } from './types.js';

export function createBuilder(): Builder {
  const builder = new SchemaBuilder<SchemaTypes>({ defaultFieldNullability: false });
  builder.addScalarType('Upload', GraphQLUpload, {
    description:
      'A file sent by the GraphQL multipart request spec ' +
      '(https://github.com/jaydenseric/graphql-multipart-request-spec).',
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
