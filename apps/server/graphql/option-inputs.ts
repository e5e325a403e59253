/**
 * Typed input types for plugin options, generated from the registry: each plugin's zod options
 * schema (as JSON Schema, which the registry already derives) becomes `<PluginId>Options`.
 * `convert` and `batchConvert` take `options: JSON` (validated by the plugin's zod schema in the
 * services); these types document the shapes and give client code generators something to type
 * against. The extraction mutations take the same fields as arguments (optionArgs).
 * Shapes GraphQL cannot express become JSON.
 */
import type { CapabilityService } from '../../../core/services/capabilities.js';
import type { Builder } from './builder.js';
import type { JsonSchema } from '../json-schema.js';

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

function pascalCase(id: string): string {
  const name = id.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
  return /^[0-9]/.test(name) ? `P${name}` : name;
}

export const camelCase = (id: string) => pascalCase(id).replace(/^./, (c) => c.toLowerCase());

// Pothos types field configs from literal arguments; generated ones are checked at run time by GraphQL.
type AnyType = never;

function graphqlType(builder: Builder, schema: JsonSchema, name: string): AnyType | 'JSON' {
  switch (schema.type) {
    case 'integer':
      return 'Int' as AnyType;
    case 'number':
      return 'Float' as AnyType;
    case 'boolean':
      return 'Boolean' as AnyType;
    case 'string': {
      const values = schema.enum;
      const enumerable = values?.length && values.every((v) => typeof v === 'string' && GRAPHQL_NAME.test(v));
      return (enumerable ? builder.enumType(name, { values: values as string[] }) : 'String') as AnyType;
    }
    case 'object':
      return schema.properties && Object.keys(schema.properties).length ? (inputType(builder, schema, name) as AnyType) : 'JSON';
    case 'array': {
      const item = schema.items ? graphqlType(builder, schema.items, `${name}Item`) : 'JSON';
      return item === 'JSON' ? 'JSON' : ([item] as unknown as AnyType);
    }
    default:
      return 'JSON';
  }
}

/** One field of an options input type, or one argument of an extraction mutation. */
export interface OptionField {
  field: string;
  type: AnyType | 'JSON';
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
    description: fieldSchema.description,
    defaultValue: fieldSchema.default,
  }));
}

/** A field's type, nullability, description and default, as an input field or an argument takes them. */
export function inputValue({ type, required, description, defaultValue }: OptionField) {
  return { type: type as AnyType, required, ...(description ? { description } : {}), ...(defaultValue !== undefined ? { defaultValue: defaultValue as never } : {}) };
}

function inputType(builder: Builder, schema: JsonSchema, name: string, description?: string, fields = optionFields(builder, schema, name)) {
  return builder.inputType(name, {
    ...(description ?? schema.description ? { description: description ?? schema.description } : {}),
    fields: (t) => Object.fromEntries(fields.map((field) => [field.field, t.field(inputValue(field))])),
  });
}

export interface OptionInputs {
  /** Plugin id -> the name of its `<PluginId>Options` input type (plugins that have options). */
  names: ReadonlyMap<string, string>;
  /** Plugin id -> the fields of that type. */
  fields: ReadonlyMap<string, OptionField[]>;
}

/** Adds one input type per plugin that has options. */
export function addOptionInputs(builder: Builder, capabilities: CapabilityService): OptionInputs {
  const names = new Map<string, string>();
  const fieldsOf = new Map<string, OptionField[]>();
  for (const operation of capabilities.formats().operations) {
    const schema = operation.options as JsonSchema;
    if (!schema.properties || Object.keys(schema.properties).length === 0) continue;
    const name = `${pascalCase(operation.pluginId)}Options`;
    const usage = operation.kind === 'extract'
      ? `the arguments of the ${camelCase(operation.op ?? operation.pluginId)} mutation`
      : `\`options\` of ${operation.op ? `convert with op: "${operation.op}"` : `convert to ${operation.outputs.join(', ')}`}`;
    const fields = optionFields(builder, schema, name);
    inputType(builder, schema, name, `Options of ${operation.title} (${usage}).`, fields);
    names.set(operation.pluginId, name);
    fieldsOf.set(operation.pluginId, fields);
  }
  return { names, fields: fieldsOf };
}

/** Options types of tools with no plugin (the spec's fields of a tool not installed) are named after the tool. */
export function optionsTypeName(tool: string): string {
  return `${pascalCase(tool)}Options`;
}
