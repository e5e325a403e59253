/**
 * The one mapping from a schema to a GraphQL scalar, for every generated type: object types read
 * from the wire zod (zod-objects.ts), the arguments of the operation table's fields
 * (operation-fields.ts) and the option input types (option-inputs.ts). Each reads the JSON Schema
 * zod derives, so a zod type maps the same wherever it appears.
 */
import { z } from 'zod';
import type { JsonSchema } from '../json-schema.js';

export type GraphQLScalar = 'Int' | 'Float' | 'Boolean' | 'String' | 'DateTime';

/** A zod schema as JSON Schema, as its input is written (defaults make a field optional). */
export const zodJsonSchema = (schema: z.ZodType): JsonSchema =>
  z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;

/** The variant of a nullable schema (`anyOf` with `null`, or a `type` list with 'null') that is not null. */
function nonNull(schema: JsonSchema): JsonSchema {
  const variants = ((schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined)?.filter(({ type }) => type !== 'null');
  if (variants?.length === 1) return nonNull(variants[0]!);
  const types = schema.type as string | string[] | undefined;
  return Array.isArray(types) ? { ...schema, type: types.find((name) => name !== 'null') } : schema;
}

/**
 * The GraphQL scalar of a schema (undefined for an object, an enum or anything else a caller
 * names), and whether it is a list of them. Integers, and numbers limited to whole values
 * (rotate-pdf's angle: 90, 180 or 270), are `Int`; `format: date-time` strings are `DateTime`.
 */
export function scalarOf(given: JsonSchema | undefined): { type?: GraphQLScalar; list: boolean } {
  if (!given) return { list: false };
  const schema = nonNull(given);
  switch (schema.type) {
    case 'array':
      return { ...scalarOf(schema.items), list: true };
    case 'integer':
      return { type: 'Int', list: false };
    case 'number':
      return { type: schema.enum?.length && schema.enum.every(Number.isInteger) ? 'Int' : 'Float', list: false };
    case 'boolean':
      return { type: 'Boolean', list: false };
    case 'string':
      // An enum is a type of its own, which the caller names (or makes, as the option inputs do).
      if (schema.enum) return { list: false };
      return { type: schema.format === 'date-time' ? 'DateTime' : 'String', list: false };
    default:
      return { list: false };
  }
}
