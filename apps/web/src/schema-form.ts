/**
 * Option forms from the JSON Schemas the server publishes for each operation (`formats`): the
 * draft a form edits, and its conversion into the options object, validated against the schema
 * before anything is uploaded. Covers what the registry's zod schemas produce: numbers with
 * bounds, strings with lengths, enums, booleans, arrays of enum values, of strings or of numbers, nested
 * objects and a oneOf told apart by a constant property.
 */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  items?: JsonSchema;
  maxItems?: number;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  /** Set by the server on passwords: shown masked. */
  secret?: boolean;
}

/** What a form holds: strings for text and number inputs, booleans, string lists, nested drafts. */
export type Draft = { [name: string]: DraftValue };
export type DraftValue = string | boolean | string[] | Draft;

export type FieldKind =
  | { kind: 'number'; integer: boolean }
  | { kind: 'text'; secret: boolean }
  | { kind: 'select'; choices: string[] }
  | { kind: 'checkbox' }
  | { kind: 'checkboxes'; choices: string[] }
  /** One item a line: text, or (`numbers`) numbers checked against the items' bounds. */
  | { kind: 'lines'; numbers?: 'integer' | 'number' }
  | { kind: 'object'; schema: JsonSchema }
  | { kind: 'variant'; discriminator: string; variants: { value: string; schema: JsonSchema }[] }
  | { kind: 'json' };

const typeOf = (schema: JsonSchema): string | undefined =>
  Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;

/** The variants of a oneOf/anyOf of objects that one constant property tells apart, if it is one. */
function variantsOf(
  schema: JsonSchema,
): { discriminator: string; variants: { value: string; schema: JsonSchema }[] } | undefined {
  const options = schema.oneOf ?? schema.anyOf;
  if (!options?.length || !options.every((option) => option.properties)) return undefined;
  const first = options[0]!.properties!;
  const discriminator = Object.keys(first).find((key) =>
    options.every((option) => typeof option.properties![key]?.const === 'string'),
  );
  if (!discriminator) return undefined;
  return {
    discriminator,
    variants: options.map((option) => ({ value: option.properties![discriminator]!.const as string, schema: option })),
  };
}

export function fieldKind(schema: JsonSchema): FieldKind {
  const variants = variantsOf(schema);
  if (variants) return { kind: 'variant', ...variants };
  const type = typeOf(schema);
  if (schema.enum) return { kind: 'select', choices: schema.enum.map(String) };
  if (type === 'integer' || type === 'number') return { kind: 'number', integer: type === 'integer' };
  if (type === 'boolean') return { kind: 'checkbox' };
  if (type === 'string') return { kind: 'text', secret: schema.secret === true };
  if (type === 'array' && schema.items?.enum) return { kind: 'checkboxes', choices: schema.items.enum.map(String) };
  if (type === 'array' && typeOf(schema.items ?? {}) === 'string') return { kind: 'lines' };
  const itemType = type === 'array' ? typeOf(schema.items ?? {}) : undefined;
  if (itemType === 'integer' || itemType === 'number') return { kind: 'lines', numbers: itemType };
  if (type === 'object' && schema.properties) return { kind: 'object', schema };
  return { kind: 'json' };
}

/** Short field names people would not guess. */
const LABELS: Record<string, string> = { lang: 'Language', years_exp: 'Years of experience', linkedin: 'LinkedIn' };

/** Field names in words: `keepRunning` -> "Keep running", `wholeWord` -> "Whole word". */
export function labelOf(name: string): string {
  if (LABELS[name]) return LABELS[name];
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function initialDraft(schema: JsonSchema): Draft {
  const draft: Draft = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) draft[name] = initialValue(property);
  return draft;
}

function initialValue(schema: JsonSchema): DraftValue {
  const field = fieldKind(schema);
  const fallback = schema.default;
  switch (field.kind) {
    case 'checkbox':
      return fallback === true;
    case 'checkboxes':
    case 'lines':
      return Array.isArray(fallback) ? fallback.map(String) : [];
    case 'object':
      return initialDraft(field.schema);
    case 'variant':
      return { ...initialDraft(field.variants[0]!.schema), [field.discriminator]: field.variants[0]!.value };
    case 'json':
      return fallback === undefined ? '' : JSON.stringify(fallback);
    default:
      return fallback === undefined ? '' : String(fallback);
  }
}

export interface Built {
  value: Record<string, unknown>;
  /** Field path (dot-separated) -> what is wrong, in words. */
  errors: Record<string, string>;
}

/** The options object a draft stands for, and every field that does not satisfy the schema. */
export function buildOptions(schema: JsonSchema, draft: Draft, prefix = ''): Built {
  const value: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  const required = new Set(schema.required ?? []);
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const path = prefix ? `${prefix}.${name}` : name;
    const result = buildValue(property, draft[name], path, required.has(name));
    Object.assign(errors, result.errors);
    if (result.value !== undefined) value[name] = result.value;
  }
  return { value, errors };
}

function buildValue(
  schema: JsonSchema,
  raw: DraftValue | undefined,
  path: string,
  required: boolean,
): { value?: unknown; errors: Record<string, string> } {
  const field = fieldKind(schema);
  const fail = (message: string) => ({ errors: { [path]: message } });
  const missing = () => (required ? fail('Required.') : { errors: {} });
  switch (field.kind) {
    case 'checkbox':
      return { value: raw === true, errors: {} };
    case 'number': {
      const text = typeof raw === 'string' ? raw.trim() : '';
      if (text === '') return missing();
      const number = Number(text);
      if (!Number.isFinite(number)) return fail('Enter a number.');
      if (field.integer && !Number.isInteger(number)) return fail('Enter a whole number.');
      const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema;
      if (minimum !== undefined && maximum !== undefined && (number < minimum || number > maximum))
        return fail(`Enter a value from ${minimum} to ${maximum}.`);
      if (minimum !== undefined && number < minimum) return fail(`Enter at least ${minimum}.`);
      if (maximum !== undefined && number > maximum) return fail(`Enter at most ${maximum}.`);
      if (exclusiveMinimum !== undefined && number <= exclusiveMinimum)
        return fail(`Enter more than ${exclusiveMinimum}.`);
      if (exclusiveMaximum !== undefined && number >= exclusiveMaximum)
        return fail(`Enter less than ${exclusiveMaximum}.`);
      return { value: number, errors: {} };
    }
    case 'text':
    case 'select': {
      const text = typeof raw === 'string' ? raw : '';
      if (text === '') return missing();
      if (field.kind === 'select' && !field.choices.includes(text))
        return fail(`Choose one of ${field.choices.join(', ')}.`);
      if (schema.minLength !== undefined && text.length < schema.minLength)
        return fail(`Enter at least ${schema.minLength} characters.`);
      if (schema.maxLength !== undefined && text.length > schema.maxLength)
        return fail(`Enter at most ${schema.maxLength} characters.`);
      return { value: text, errors: {} };
    }
    case 'checkboxes':
    case 'lines': {
      const items = (Array.isArray(raw) ? raw : []).map((item) => item.trim()).filter(Boolean);
      if (schema.maxItems !== undefined && items.length > schema.maxItems)
        return fail(`Give at most ${schema.maxItems}.`);
      if (field.kind === 'lines' && field.numbers) return numberLines(schema.items ?? {}, items, field.numbers, fail);
      const { minLength, maxLength } = schema.items ?? {};
      const bad = items.find(
        (item) =>
          (minLength !== undefined && item.length < minLength) || (maxLength !== undefined && item.length > maxLength),
      );
      if (bad !== undefined) return fail(`Each line must be ${minLength ?? 0} to ${maxLength ?? '∞'} characters.`);
      if (items.length === 0 && required) return fail('Required.');
      return { value: items, errors: {} };
    }
    case 'object': {
      const built = buildOptions(field.schema, isDraft(raw) ? raw : {}, path);
      if (!required && Object.keys(built.value).length === 0 && Object.keys(built.errors).length === 0)
        return { errors: {} };
      return built;
    }
    case 'variant': {
      const draft = isDraft(raw) ? raw : {};
      const chosen =
        field.variants.find((variant) => variant.value === draft[field.discriminator]) ?? field.variants[0]!;
      const built = buildOptions(chosen.schema, draft, path);
      return { value: { ...built.value, [field.discriminator]: chosen.value }, errors: built.errors };
    }
    case 'json': {
      const text = typeof raw === 'string' ? raw.trim() : '';
      if (text === '') return missing();
      try {
        return { value: JSON.parse(text), errors: {} };
      } catch {
        return fail('Enter valid JSON.');
      }
    }
  }
}

/** A list of numbers, one a line, each within the items' bounds. */
function numberLines(
  items: JsonSchema,
  lines: string[],
  kind: 'integer' | 'number',
  fail: (message: string) => { errors: Record<string, string> },
): { value?: unknown; errors: Record<string, string> } {
  const { minimum, maximum } = items;
  const what = kind === 'integer' ? 'a whole number' : 'a number';
  const range = minimum !== undefined && maximum !== undefined ? ` from ${minimum} to ${maximum}` : '';
  const numbers = lines.map(Number);
  const bad = numbers.some(
    (number) =>
      !Number.isFinite(number) ||
      (kind === 'integer' && !Number.isInteger(number)) ||
      (minimum !== undefined && number < minimum) ||
      (maximum !== undefined && number > maximum),
  );
  return bad ? fail(`Each line must be ${what}${range}.`) : { value: numbers, errors: {} };
}

export function isDraft(value: DraftValue | undefined): value is Draft {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
