/**
 * Typed input types for plugin options, generated from the registry: each plugin's zod options
 * schema (as JSON Schema, which the registry already derives) becomes `<PluginId>Options`.
 * `convert` takes `options: JSON` (validated by the plugin's zod schema in the services); these
 * types document the shapes and give client code generators something to type against.
 * Shapes GraphQL cannot express become JSON.
 */
import type { Registry } from '../../../core/registry/index.js';
import type { Builder } from './builder.js';
import type { JsonSchema } from '../json-schema.js';

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

function pascalCase(id: string): string {
  const name = id.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
  return /^[0-9]/.test(name) ? `P${name}` : name;
}

const camelCase = (id: string) => pascalCase(id).replace(/^./, (c) => c.toLowerCase());

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

function inputType(builder: Builder, schema: JsonSchema, name: string, description?: string) {
  const required = new Set(schema.required ?? []);
  // Nested types are created before this one: Pothos resolves field thunks later.
  const fields = Object.entries(schema.properties ?? {}).map(([field, fieldSchema]) => ({
    field,
    type: graphqlType(builder, fieldSchema, `${name}${pascalCase(field)}`),
    required: required.has(field),
    description: fieldSchema.description,
    defaultValue: fieldSchema.default,
  }));
  return builder.inputType(name, {
    ...(description ?? schema.description ? { description: description ?? schema.description } : {}),
    fields: (t) =>
      Object.fromEntries(
        fields.map(({ field, type, required: isRequired, description: about, defaultValue }) => [
          field,
          t.field({ type: type as AnyType, required: isRequired, ...(about ? { description: about } : {}), ...(defaultValue !== undefined ? { defaultValue: defaultValue as never } : {}) }),
        ]),
      ),
  });
}

/** Adds one input type per plugin that has options; returns plugin id -> type name. */
export function addOptionInputs(builder: Builder, registry: Registry): Map<string, string> {
  const names = new Map<string, string>();
  for (const operation of registry.operations()) {
    const schema = operation.options as JsonSchema;
    if (!schema.properties || Object.keys(schema.properties).length === 0) continue;
    const name = `${pascalCase(operation.pluginId)}Options`;
    const usage = operation.kind === 'extract'
      ? `the arguments of the ${camelCase(operation.op ?? operation.pluginId)} mutation`
      : `\`options\` of ${operation.op ? `convert with op: "${operation.op}"` : `convert to ${operation.outputs.join(', ')}`}`;
    inputType(builder, schema, name, `Options of ${operation.title} (${usage}).`);
    names.set(operation.pluginId, name);
  }
  return names;
}
