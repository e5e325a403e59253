/**
 * GraphQL object types, interfaces and enums made from the wire zod: the output schema
 * REST serialises with is the one the GraphQL type is read from, so a field cannot drift between
 * the two. Each field's type comes from its zod (graphql/scalars.ts: integers `Int`, other numbers
 * `Float`, `format: date-time` strings `DateTime`, arrays lists, optional or nullable ones nullable),
 * its description from `.meta({ description })`. A snake_case wire field (REST's `years_exp`) is
 * camelCase here, its description saying the REST name. Nested objects and enums are named by the
 * caller (`types`), and fields GraphQL computes beside the wire (`extra`) are declared by Pothos as usual.
 */
import type { InterfaceParam } from '@pothos/core';
import { z } from 'zod';
import type { Builder, SchemaTypes } from './builder.js';
import type { TypeName } from './types.js';
import { scalarOf, zodJsonSchema } from './scalars.js';

/** The builder's types. */
type Types = PothosSchemaTypes.ExtendDefaultTypes<SchemaTypes>;

export type FieldBuilder<Parent = Record<string, unknown>> = PothosSchemaTypes.ObjectFieldBuilder<
  PothosSchemaTypes.ExtendDefaultTypes<SchemaTypes>,
  Parent
>;

/**
 * A nested object's, list item's or enum's GraphQL type, by field name (`history: 'HistoryRecord'`).
 * 'JSON' takes the whole field as one JSON value, list or not.
 */
export type NamedTypes = Record<string, string>;

export interface ZodFields<Parent = Record<string, unknown>> {
  /** The GraphQL type of each field whose zod is an object, an enum (or a list of them), by field name. */
  types?: NamedTypes;
  /**
   * Descriptions of fields whose zod is a shared object (a component of the OpenAPI document, which
   * a `.meta()` would copy), or that GraphQL words differently, by (wire) field name.
   */
  descriptions?: Record<string, string>;
  /** Wire fields GraphQL does not show. */
  omit?: string[];
  /** Where the wire object is in the parent (default: the parent itself); null makes every field null. */
  from?: (parent: Parent) => Record<string, unknown> | null | undefined;
  /** Fields GraphQL adds beside the wire's (computed from the context). */
  extra?: (t: FieldBuilder<Parent>) => Record<string, unknown>;
}

interface ZodObjectType<Parent> extends ZodFields<Parent> {
  description: string;
}

const descriptionOf = (schema: z.ZodType): string | undefined => z.globalRegistry.get(schema)?.description;

/** REST's snake_case field name as GraphQL's camelCase one. */
export const camelField = (name: string) => name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

/** A field's GraphQL type, whether it is nullable, and its description (outermost first). */
function fieldOf(name: string, schema: z.ZodType, typeName: string, given: Pick<ZodFields, 'types' | 'descriptions'>) {
  const types = given.types ?? {};
  let current = schema;
  let nullable = false;
  let description = descriptionOf(current);
  while (current instanceof z.ZodOptional || current instanceof z.ZodNullable || current instanceof z.ZodDefault) {
    if (!(current instanceof z.ZodDefault)) nullable = true;
    current = current.unwrap() as z.ZodType;
    description ??= descriptionOf(current);
  }
  const renamed = camelField(name) !== name;
  if (description && renamed) description = `${description.replace(/\.$/, '')} (REST: ${name}).`;
  description = given.descriptions?.[name] ?? description;
  const list = current instanceof z.ZodArray && types[name] !== 'JSON';
  const item = (list ? (current as z.ZodArray<z.ZodType>).element : current) as z.ZodType;
  const type = types[name] ?? scalarOf(zodJsonSchema(item)).type;
  if (!type) throw new Error(`GraphQL: ${typeName}.${name} needs a named type`);
  if (!description) throw new Error(`GraphQL: ${typeName}.${name} needs a description (.meta({ description }))`);
  return { type: list ? [type] : type, nullable, description };
}

/** The GraphQL fields of a wire zod object, on an object or interface type named `typeName`. */
function zodFields<Parent>(
  t: FieldBuilder,
  typeName: string,
  schema: z.ZodObject,
  { types = {}, descriptions = {}, omit = [], from, extra }: ZodFields<Parent>,
) {
  const source = (parent: unknown) => (from ? from(parent as Parent) : (parent as Record<string, unknown>));
  const fields = Object.entries(schema.shape)
    .filter(([field]) => !omit.includes(field))
    .map(([field, fieldSchema]) => {
      const { type, nullable, description } = fieldOf(field, fieldSchema as z.ZodType, typeName, {
        types,
        descriptions,
      });
      const options = { type: type as TypeName, nullable, description };
      // Read from the parent, or from inside it (`from`), under its GraphQL name (camelCase).
      return [camelField(field), t.field({ ...options, resolve: (parent) => source(parent)?.[field] ?? null })];
    });
  return { ...Object.fromEntries(fields), ...extra?.(t as unknown as FieldBuilder<Parent>) };
}

/** Declares the GraphQL object type `name` (implementing `interfaces`) with the fields of a wire zod object. */
export function addZodObject<Shape extends z.ZodRawShape, Parent = z.output<z.ZodObject<Shape>>>(
  builder: Builder,
  name: string,
  schema: z.ZodObject<Shape>,
  { description, interfaces, ...fields }: ZodObjectType<Parent> & { interfaces?: InterfaceParam<Types>[] },
) {
  return builder.objectRef<Parent>(name).implement({
    description,
    ...(interfaces ? { interfaces } : {}),
    fields: (t) => zodFields(t as unknown as FieldBuilder, name, schema, fields),
  });
}

/** Declares the GraphQL interface `name` with the fields of a wire zod object. */
export function addZodInterface<Parent>(
  builder: Builder,
  name: string,
  schema: z.ZodObject,
  { description, resolveType, ...fields }: ZodObjectType<Parent> & { resolveType: (parent: Parent) => string },
) {
  return builder.interfaceRef<Parent>(name).implement({
    description,
    resolveType,
    fields: (t) => zodFields(t as unknown as FieldBuilder, name, schema, fields),
  });
}

/** Declares the GraphQL enum `name` with the values of a zod enum, each described (every value must be). */
export function addZodEnum<Values extends string>(
  builder: Builder,
  name: string,
  schema: z.ZodEnum<Record<Values, Values>>,
  { description, values }: { description: string; values: Record<Values, string> },
) {
  return builder.enumType(name, {
    description,
    values: Object.fromEntries(schema.options.map((value) => [value, { description: values[value as Values] }])) as {
      [V in Values]: { description: string };
    },
  });
}
