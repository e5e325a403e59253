/**
 * GraphQL object types made from the wire zod (issue 24): the output schema REST serialises with
 * is the one the GraphQL type is read from, so a field cannot drift between the two. Each field's
 * type comes from its zod (integers `Int`, other numbers `Float`, `format: date-time` strings
 * `DateTime`, arrays lists, optional or nullable ones nullable), its description from
 * `.meta({ description })`. Nested objects are named by the caller (`types`), and fields GraphQL
 * computes beside the wire (`extra`) are declared by Pothos as usual.
 */
import { z } from 'zod';
import type { Builder, SchemaTypes } from './builder.js';
import { scalarOf, zodJsonSchema } from './scalars.js';

// Pothos types expose() from literal field names; these come from the zod shape and are checked by GraphQL.
type AnyType = never;
type FieldBuilder = PothosSchemaTypes.ObjectFieldBuilder<
  PothosSchemaTypes.ExtendDefaultTypes<SchemaTypes>,
  Record<string, unknown>
>;

/** A nested object's or list item's GraphQL type, by field name (`history: 'HistoryRecord'`). */
export type NamedTypes = Record<string, string>;

interface ZodObjectType {
  description: string;
  /** The GraphQL type of each field whose zod is an object (or a list of objects), by field name. */
  types?: NamedTypes;
  /**
   * Descriptions of fields whose zod is a shared object (a component of the OpenAPI document, which
   * a `.meta()` would copy), by field name.
   */
  descriptions?: Record<string, string>;
  /** Wire fields GraphQL does not show. */
  omit?: string[];
  /** Fields GraphQL adds beside the wire's (computed from the context). */
  extra?: (t: FieldBuilder) => Record<string, unknown>;
}

const descriptionOf = (schema: z.ZodType): string | undefined => z.globalRegistry.get(schema)?.description;

/** A field's GraphQL type, whether it is nullable, and its description (outermost first). */
function fieldOf(
  name: string,
  schema: z.ZodType,
  typeName: string,
  given: Pick<ZodObjectType, 'types' | 'descriptions'>,
) {
  const types = given.types ?? {};
  let current = schema;
  let nullable = false;
  let description = given.descriptions?.[name] ?? descriptionOf(current);
  while (current instanceof z.ZodOptional || current instanceof z.ZodNullable || current instanceof z.ZodDefault) {
    if (!(current instanceof z.ZodDefault)) nullable = true;
    current = current.unwrap() as z.ZodType;
    description ??= descriptionOf(current);
  }
  const list = current instanceof z.ZodArray;
  const item = (list ? (current as z.ZodArray<z.ZodType>).element : current) as z.ZodType;
  const type = types[name] ?? scalarOf(zodJsonSchema(item)).type;
  if (!type) throw new Error(`GraphQL: ${typeName}.${name} needs a named type`);
  if (!description) throw new Error(`GraphQL: ${typeName}.${name} needs a description (.meta({ description }))`);
  return { type: list ? [type] : type, nullable, description };
}

/** Declares the GraphQL object type `name` with the fields of a wire zod object. */
export function addZodObject<Shape extends z.ZodRawShape>(
  builder: Builder,
  name: string,
  schema: z.ZodObject<Shape>,
  { description, types = {}, descriptions = {}, omit = [], extra }: ZodObjectType,
) {
  return builder.objectRef<z.output<typeof schema>>(name).implement({
    description,
    fields: (t) => {
      const fieldBuilder = t as unknown as FieldBuilder;
      const fields = Object.fromEntries(
        Object.entries(schema.shape)
          .filter(([field]) => !omit.includes(field))
          .map(([field, fieldSchema]) => {
            const { type, nullable, description } = fieldOf(field, fieldSchema as z.ZodType, name, {
              types,
              descriptions,
            });
            const options = { type: type as AnyType, nullable: nullable as AnyType, description };
            return [field, fieldBuilder.expose(field as never, options)];
          }),
      );
      return { ...fields, ...extra?.(fieldBuilder) } as never;
    },
  });
}
