/** The JSON and DateTime scalars. The JSON scalar: any JSON value, for JSON Schemas and open-ended values. */
import { GraphQLError, Kind, valueFromASTUntyped } from 'graphql';
import type { Builder } from './types.js';

export function addJsonScalar(builder: Builder) {
  builder.scalarType('JSON', {
    description: 'Any JSON value.',
    serialize: (value) => value,
    parseValue: (value) => value,
    parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables),
  });
}

/** A date-time as an RFC 3339 string in UTC (as REST sends it); read from an ISO string. */
export function addDateTimeScalar(builder: Builder) {
  const parse = (value: unknown) => {
    const date = typeof value === 'string' ? new Date(value) : undefined;
    if (!date || Number.isNaN(date.getTime())) throw new GraphQLError('DateTime must be an ISO 8601 date-time string');
    return date;
  };
  builder.scalarType('DateTime', {
    description: 'A date-time: an RFC 3339 string in UTC, e.g. "2026-01-31T12:00:00.000Z".',
    // Strings are the services' own ISO date-times, sent as REST sends them.
    serialize: (value) => (value instanceof Date ? value.toISOString() : String(value)),
    parseValue: parse,
    parseLiteral: (ast) => parse(ast.kind === Kind.STRING ? ast.value : undefined),
  });
}
