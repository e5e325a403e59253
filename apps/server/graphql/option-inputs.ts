/**
 * Typed input types for plugin options, generated from the registry: each plugin's zod options
 * schema (as JSON Schema, which the registry already derives) becomes `<PluginId>Options`.
 * `convert` and `batchConvert` take them through the `@oneOf` input `ConvertOptions`, one field per
 * conversion or tool plugin (its id in camelCase); the values are decoded by operations/options.ts
 * and validated by the services with the plugin's zod schema. The extraction mutations take the
 * same fields as arguments (optionArgs).
 * A union of object shapes (split-pdf's `split`) becomes one input with every variant's fields.
 */
import type { z } from 'zod';
import type { CapabilityService } from '../../../core/services/capabilities.js';
import type { Builder } from './builder.js';
import type { InputTypeName, TypeName } from './types.js';
import type { JsonSchema } from '../json-schema.js';
import { camelCase, pascalCase } from '../naming.js';
import { scalarOf, zodJsonSchema } from './scalars.js';

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** The variants of a union of object shapes (zod's discriminated union), merged into one object. */
function mergedVariants(schema: JsonSchema): JsonSchema | undefined {
  const variants = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (!variants?.length || !variants.every((variant) => variant.type === 'object' && variant.properties))
    return undefined;
  const properties: Record<string, JsonSchema> = {};
  for (const variant of variants) {
    for (const [field, fieldSchema] of Object.entries(variant.properties!)) {
      const values = [
        ...((properties[field]?.enum as unknown[]) ?? []),
        ...('const' in fieldSchema ? [fieldSchema.const] : (fieldSchema.enum ?? [])),
      ];
      properties[field] = values.length
        ? { ...fieldSchema, const: undefined, enum: [...new Set(values)] }
        : fieldSchema;
    }
  }
  // A field is required only when every variant requires it; the plugin's schema checks the rest.
  const required = Object.keys(properties).filter((field) =>
    variants.every((variant) => variant.required?.includes(field)),
  );
  return { type: 'object', properties, required, ...(schema.description ? { description: schema.description } : {}) };
}

function graphqlType(builder: Builder, schema: JsonSchema, name: string): InputTypeName {
  const merged = mergedVariants(schema);
  if (merged) return inputType(builder, merged, name);
  const values = schema.enum;
  if (schema.type === 'string' && values?.length && values.every((v) => typeof v === 'string' && GRAPHQL_NAME.test(v)))
    // JSON Schema describes the field, not each value: the field's description explains them.
    return builder.enumType(name, {
      description: schema.description ?? `The values of \`${name}\`.`,
      values: Object.fromEntries(
        (values as string[]).map((value) => [value, { description: `\`${value}\` (see the field's description).` }]),
      ),
    });
  const scalar = scalarOf(schema);
  if (scalar.type) return scalar.list ? [scalar.type] : scalar.type;
  switch (schema.type) {
    case 'string':
      return 'String'; // values GraphQL cannot name (`image/png`): the plugin's schema checks them
    case 'object':
      return schema.properties && Object.keys(schema.properties).length ? inputType(builder, schema, name) : 'JSON';
    case 'array': {
      const item = schema.items ? graphqlType(builder, schema.items, `${name}Item`) : 'JSON';
      return item === 'JSON' || Array.isArray(item) ? 'JSON' : [item];
    }
    default:
      return 'JSON';
  }
}

/** One field of an options input type, or one argument of an extraction mutation. */
export interface OptionField {
  field: string;
  type: InputTypeName;
  required: boolean;
  description?: string;
  defaultValue?: unknown;
}

/** The fields of an options JSON Schema; nested object and enum types are added as `<name><Field>`. */
export function optionFields(builder: Builder, schema: JsonSchema, name: string): OptionField[] {
  const required = new Set(schema.required ?? []);
  // Nested types are created before the type using them: Pothos resolves field thunks later.
  return Object.entries(schema.properties ?? {}).map(([field, fieldSchema]) => ({
    field,
    type: graphqlType(builder, fieldSchema, `${name}${pascalCase(field)}`),
    required: required.has(field),
    // A nested field without a description of its own (margin.top) is described by where it is.
    description: fieldSchema.description ?? `\`${field}\` of ${name}.`,
    defaultValue: fieldSchema.default,
  }));
}

/** A field's type, nullability, description and default, as an input field or an argument takes them. */
export function inputValue({ type, required, description, defaultValue }: OptionField) {
  return {
    type,
    required,
    ...(description ? { description } : {}),
    ...(defaultValue !== undefined ? { defaultValue } : {}),
  };
}

function inputType(
  builder: Builder,
  schema: JsonSchema,
  name: string,
  description?: string,
  fields = optionFields(builder, schema, name),
) {
  return builder.inputType(name, {
    ...((description ?? schema.description) ? { description: description ?? schema.description } : {}),
    fields: (t) => Object.fromEntries(fields.map((field) => [field.field, t.field(inputValue(field))])),
  });
}

/** An input type made from a zod object: its fields, nested types and descriptions. */
export function zodInputType(builder: Builder, schema: z.ZodType, name: string, description: string) {
  return inputType(builder, zodJsonSchema(schema), name, description);
}

export interface OptionInputs {
  /** Plugin id -> the name of its `<PluginId>Options` input type (plugins that have options). */
  names: ReadonlyMap<string, string>;
  /** Plugin id -> its field of `ConvertOptions` (conversion and tool plugins that have options). */
  convertFields: ReadonlyMap<string, string>;
  /** Plugin id -> the fields of that type. */
  fields: ReadonlyMap<string, OptionField[]>;
}

/** Adds one input type per plugin that has options. */
export function addOptionInputs(builder: Builder, capabilities: CapabilityService): OptionInputs {
  const names = new Map<string, string>();
  const convertFields = new Map<string, string>();
  const fieldsOf = new Map<string, OptionField[]>();
  for (const operation of capabilities.formats().operations) {
    const schema = operation.options as JsonSchema;
    if (!schema.properties || Object.keys(schema.properties).length === 0) continue;
    const name = `${pascalCase(operation.pluginId)}Options`;
    const usage =
      operation.kind === 'extract'
        ? `the arguments of the ${camelCase(operation.op ?? operation.pluginId)} mutation`
        : `\`options\` of ` +
          `${operation.op ? `convert with op: "${operation.op}"` : `convert to ${operation.outputs.join(', ')}`}`;
    const fields = optionFields(builder, schema, name);
    inputType(builder, schema, name, `Options of ${operation.title} (${usage}).`, fields);
    names.set(operation.pluginId, name);
    fieldsOf.set(operation.pluginId, fields);
    if (operation.kind !== 'extract') convertFields.set(operation.pluginId, camelCase(operation.pluginId));
  }
  builder.inputType('ConvertOptions', {
    isOneOf: true,
    description:
      'The options of one conversion or tool op (convert, batchConvert): exactly one field, the plugin that runs it ' +
      '(`formats.operations.optionsField`), e.g. {imageResize: {resize: {width: 200}}} with op: "resize".',
    fields: (t) =>
      convertFields.size
        ? Object.fromEntries(
            [...convertFields].map(([pluginId, field]) => [
              field,
              t.field({ type: names.get(pluginId) as TypeName, description: `Options of the ${pluginId} plugin.` }),
            ]),
          )
        : // An input type needs a field: a registry where no conversion or op takes options (a partial
          // install) gets one that is always refused.
          {
            none: t.boolean({ description: 'No installed conversion or tool op takes options: leave `options` out.' }),
          },
  });
  return { names, convertFields, fields: fieldsOf };
}
