/**
 * Options on the wire: REST multipart sends every field as a string (JSON strings for object
 * fields such as `resize`), GraphQL and tRPC send values. Decoding is driven by the plugin's own
 * zod schema, so a new plugin's options work on every surface without touching them.
 */
import type { z } from 'zod';
import type { OptionsSchema } from './index.js';

export type OptionsResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** The zod type under optional/default/nullable wrappers. */
export function baseType(schema: z.ZodType): z.ZodType {
  let current = schema as z.ZodType & { def: { type: string; innerType?: z.ZodType } };
  while (
    ['optional', 'default', 'prefault', 'nullable', 'readonly', 'catch'].includes(current.def.type) &&
    current.def.innerType
  ) {
    current = current.def.innerType as typeof current;
  }
  return current;
}

/** The JSON type a wire string of this field is decoded to. */
export function wireKind(schema: z.ZodType): 'integer' | 'number' | 'boolean' | 'json' | 'string' {
  const base = baseType(schema) as z.ZodType & { def: { type: string }; isInt?: boolean };
  const type = base.def.type;
  if (type === 'int' || type === 'bigint' || (type === 'number' && base.isInt === true)) return 'integer';
  if (type === 'number') return 'number';
  if (type === 'boolean') return 'boolean';
  if (type === 'object' || type === 'array' || type === 'record' || type === 'tuple' || type === 'union') return 'json';
  return 'string';
}

/**
 * Numbers on the wire are written in decimal digits, nothing else: `Number()` would also take
 * `0x32`, `1e2`, `+50`, `Infinity` and `''`. Whitespace around the value is trimmed (a form
 * field may carry a trailing newline); an integer field takes no fraction, not even `50.0`.
 */
const DECIMAL_INTEGER = /^-?\d+$/;
const DECIMAL_NUMBER = /^-?(?:\d+(?:\.\d+)?|\.\d+)$/;

function decodeString(field: string, raw: string, kind: ReturnType<typeof wireKind>): OptionsResult<unknown> {
  switch (kind) {
    case 'integer': {
      const text = raw.trim();
      return DECIMAL_INTEGER.test(text)
        ? { ok: true, value: Number(text) }
        : { ok: false, error: `Invalid ${field}: must be a whole number in decimal digits` };
    }
    case 'number': {
      const text = raw.trim();
      return DECIMAL_NUMBER.test(text)
        ? { ok: true, value: Number(text) }
        : { ok: false, error: `Invalid ${field}: must be a number in decimal digits` };
    }
    case 'boolean':
      if (raw === 'true' || raw === 'false') return { ok: true, value: raw === 'true' };
      return { ok: false, error: `${field} must be true or false` };
    case 'json':
      try {
        return { ok: true, value: JSON.parse(raw) };
      } catch {
        return { ok: false, error: `${field} must be a JSON string` };
      }
    default:
      return { ok: true, value: raw };
  }
}

/** First zod issue as one human sentence, naming the field. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid options';
  const where = issue.path.map(String).join('.');
  return where ? `${where}: ${issue.message}` : issue.message;
}

/**
 * Validate options for one operation. `raw` holds the fields the client sent beside file/to/op;
 * strings are decoded by the field's type when `fromStrings` is set. Unknown fields are refused,
 * so a typo never silently falls back to a default.
 */
export function parseOptions<O extends OptionsSchema>(
  schema: O,
  raw: Record<string, unknown>,
  { fromStrings, operation }: { fromStrings: boolean; operation: string },
): OptionsResult<z.output<O>> {
  const shape = schema.shape;
  const decoded: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    // Own fields only: `__proto__` or `constructor` must not find Object.prototype's.
    const fieldSchema = (Object.hasOwn(shape, field) ? shape[field] : undefined) as z.ZodType | undefined;
    if (!fieldSchema) return { ok: false, error: `Field '${field}' does not apply to ${operation}` };
    if (fromStrings && typeof value === 'string') {
      const result = decodeString(field, value, wireKind(fieldSchema));
      if (!result.ok) return result;
      decoded[field] = result.value;
    } else decoded[field] = value;
  }
  const parsed = schema.safeParse(decoded);
  if (!parsed.success) return { ok: false, error: `Invalid ${describeIssue(parsed.error)}` };
  return { ok: true, value: parsed.data };
}
