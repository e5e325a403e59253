/**
 * The options of a convert or batch submit, decoded in one place for every surface. Each
 * surface carries them its own way: REST as one text form field per option, tRPC as one JSON object
 * string in `options`, GraphQL as the `@oneOf` input ConvertOptions (one plugin's typed fields). All
 * come out as the services take them, and the services check the values with the plugin's own zod
 * (core/contract/options.ts), so the rules and the wording of a refusal are the same everywhere.
 */
import { badRequest } from '../../../core/services/errors.js';

/** Options as ConvertRequest and BatchRequest take them. */
export interface SubmittedOptions {
  /** Per-op fields as sent. */
  fields: Record<string, unknown>;
  /** Wire strings (a form's fields): the plugin's zod decodes each by its field's type. */
  fieldsAreStrings: boolean;
  /** The plugin the fields were written for (GraphQL): refused when another plugin runs the job. */
  optionsFor?: string;
}

/** No options: the plugin's defaults. */
export const NO_OPTIONS: SubmittedOptions = Object.freeze({ fields: {}, fieldsAreStrings: false });

const NOT_AN_OBJECT = 'options must be a JSON object string';

/** REST: every form field beside the file, `to`, `op` and the transport fields is an option, as text. */
export function formOptions(fields: Record<string, string>): SubmittedOptions {
  return { fields, fieldsAreStrings: true };
}

/** tRPC: the op's options as one JSON object string (absent or blank: none). */
export function jsonOptions(raw: string | undefined): SubmittedOptions {
  if (raw === undefined || raw.trim() === '') return { fields: {}, fieldsAreStrings: false };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw badRequest(NOT_AN_OBJECT);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest(NOT_AN_OBJECT);
  return { fields: value as Record<string, unknown>, fieldsAreStrings: false };
}

/**
 * GraphQL: the plugin and fields a ConvertOptions value selects (none when the argument is left
 * out). `convertFields` maps each plugin id to its field of ConvertOptions.
 */
export function oneOfOptions(
  value: Record<string, unknown> | null | undefined,
  convertFields: ReadonlyMap<string, string>,
): SubmittedOptions {
  const chosen = Object.entries(value ?? {}).filter(([, fields]) => fields != null);
  if (chosen.length === 0) return { fields: {}, fieldsAreStrings: false };
  // GraphQL already refuses more than one field (@oneOf); a field of no plugin cannot be sent either.
  const [field, fields] = chosen[0]!;
  const pluginId = [...convertFields].find(([, name]) => name === field)?.[0];
  if (!pluginId || chosen.length > 1) throw badRequest('options takes exactly one plugin field');
  return { fields: withoutNulls(fields) as Record<string, unknown>, fieldsAreStrings: false, optionsFor: pluginId };
}

/** GraphQL extraction mutations: the tool's options as arguments; those sent as null are left out (defaults apply). */
export function argumentOptions(args: Record<string, unknown>): SubmittedOptions {
  return { fields: withoutNulls(args) as Record<string, unknown>, fieldsAreStrings: false };
}

/** GraphQL: an input object (an export) without the fields sent as null, as if left out. */
export const inputObject = (value: unknown): unknown => (value == null ? undefined : withoutNulls(value));

/**
 * GraphQL: a typed pipeline (PipelineInput) as the request every surface sends: each step's options,
 * one plugin's field of ConvertOptions or ExtractOptions, become fields of the step.
 */
export function pipelineFromInput(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const { steps, ...request } = withoutNulls(value) as { steps?: Array<Record<string, unknown>> };
  const chosen = (options: unknown) => Object.values((options ?? {}) as Record<string, unknown>)[0] as object;
  return {
    ...request,
    steps: steps?.map(({ options, extractOptions, ...step }) => ({
      ...step,
      ...chosen(options),
      ...chosen(extractOptions),
    })),
  };
}

/** An input value without the fields sent as null: the plugin's defaults apply to them, as to fields left out. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, field]) => field != null)
      .map(([key, field]) => [key, withoutNulls(field)]),
  );
}

/** A number written in decimal digits (as a form's number fields are read). */
const DECIMAL_NUMBER = /^-?(?:\d+(?:\.\d+)?|\.\d+)$/;

/**
 * `quality` given beside the options (a batch on tRPC, as text, or GraphQL, as an Int): one more
 * option, refused when the options carry it too.
 */
export function withQuality(options: SubmittedOptions, quality: string | number | null | undefined): SubmittedOptions {
  if (quality == null) return options;
  if (options.fields.quality !== undefined) throw badRequest('quality is given twice: in options and on its own');
  const fields = { ...options.fields };
  if (typeof quality === 'number' || options.fieldsAreStrings) fields.quality = quality;
  // Alone, the text is decoded by the plugin like a form field; beside typed values, here.
  else if (Object.keys(fields).length === 0) return { ...options, fields: { quality }, fieldsAreStrings: true };
  else if (DECIMAL_NUMBER.test(quality.trim())) fields.quality = Number(quality.trim());
  else throw badRequest('Invalid quality: must be a number in decimal digits');
  return { ...options, fields };
}
