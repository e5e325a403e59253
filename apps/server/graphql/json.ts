/** The JSON scalar: any JSON value, for JSON Schemas and open-ended values. */
import { valueFromASTUntyped } from 'graphql';
import type { Builder } from './builder.js';

export function addJsonScalar(builder: Builder) {
  builder.scalarType('JSON', {
    description: 'Any JSON value.',
    serialize: (value) => value,
    parseValue: (value) => value,
    parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables),
  });
}
