/** The JSON scalar: any JSON value, for plugin options and JSON Schemas. */
import { valueFromASTUntyped } from 'graphql';
import { badRequest } from '../../../core/services/errors.js';
import type { Builder } from './builder.js';

/** An `options: JSON` argument (convert, batchConvert): an object, or nothing. */
export function optionsObject(value: unknown): Record<string, unknown> {
  if (value == null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw badRequest('options must be a JSON object');
  return value as Record<string, unknown>;
}

export function addJsonScalar(builder: Builder) {
  builder.scalarType('JSON', {
    description: 'Any JSON value.',
    serialize: (value) => value,
    parseValue: (value) => value,
    parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables),
  });
}
