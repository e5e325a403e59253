/**
 * The documented multipart forms: the convert form's `to`, `op` and option fields from the
 * registry (named as on the wire; object-valued fields travel as JSON strings), and the fields
 * beyond the spec (`url`, `export`, `webhookUrl`, marked `x-beyond-spec`).
 */
import type { Registry } from '../../../core/registry/index.js';
import { MERGE_OP } from '../../../core/services/jobs.js';
import type { JsonSchema } from '../json-schema.js';
import type { FormShape } from './operation.js';

export const BEYOND = { 'x-beyond-spec': true } as const;

/** The `webhookUrl` argument of the GraphQL submits. */
export const WEBHOOK_URL_DESCRIPTION =
  'Beyond the spec (Pro and up): also send the event of this request (job.done/job.failed, batch.done or ' +
  'extraction.done) to this https URL, signed with the account default webhook secret.';

export const URL_FIELD: JsonSchema = {
  type: 'string',
  format: 'uri',
  ...BEYOND,
  description:
    "Instead of 'file': an https URL the server fetches the file from (at most 5 redirects; the plan's size limit; " +
    'name from Content-Disposition or the path; private addresses only with IMPORT_ALLOW_PRIVATE=1).',
};

export const EXPORT_FIELD: JsonSchema = {
  type: 'string',
  contentMediaType: 'application/json',
  ...BEYOND,
  description:
    'Also upload the output to S3-compatible storage: {"type":"s3","bucket","key","region","endpoint"?,' +
    '"accessKeyId","secretAccessKey","sessionToken"?,"forcePathStyle"?}. The credentials serve this job only and ' +
    'are never stored. The job status then carries export {status, location, etag, error}.',
};

/** The same field on a batch: the ZIP goes up once every job has finished. */
export const BATCH_EXPORT_FIELD: JsonSchema = {
  ...EXPORT_FIELD,
  description:
    "Also upload the batch's ZIP to S3-compatible storage once every job has finished (same object as convert's " +
    '`export`). The credentials serve this batch only and are never stored. The batch status then carries export ' +
    '{status, location, etag, error}.',
};

/** The submits' extra form field. */
export const WEBHOOK_URL_FIELD: JsonSchema = {
  type: 'string',
  format: 'uri',
  description:
    "Beyond the spec (Pro and up): also send this request's event (job.done or job.failed; batch.done; " +
    'extraction.done) to this https URL, signed with the account default webhook secret ' +
    '(POST /api/v1/webhooks/default-secret). Checked like a registered endpoint.',
  ...BEYOND,
};

/** `Prefer: wait=N` on convert and pipelines. */
export const PREFER_WAIT = {
  name: 'Prefer',
  example: 'wait=10',
  beyondSpec: true,
  description:
    'RFC 7240 `wait=N` (N <= 60): a job that finishes within N seconds is answered with the accepted fields plus ' +
    'its final status (downloadUrl, or result), with `Preference-Applied: wait=N`; otherwise the usual accepted ' +
    'answer comes at N seconds.',
};

/**
 * An option field's schema in standard keywords: a field the plugin marks `secret` (a password:
 * never stored or logged) becomes `format: password` and `writeOnly`, which clients understand.
 */
export function standardKeywords(schema: JsonSchema): JsonSchema {
  const { secret, ...rest } = schema;
  return secret === true ? { ...rest, format: 'password', writeOnly: true } : rest;
}

/** An option field as a form field: objects and arrays travel as JSON strings. */
export function formField(schema: JsonSchema, description = schema.description): JsonSchema {
  const { description: _own, ...shape } = schema;
  const about = description ? { description } : {};
  return shape.type === 'object' || shape.type === 'array'
    ? { type: 'string', contentMediaType: 'application/json', contentSchema: shape, ...about }
    : { ...shape, ...about };
}

const jsonFieldsOf = (schema: JsonSchema) =>
  Object.entries(schema.properties ?? {})
    .filter(([, field]) => field.contentMediaType === 'application/json')
    .map(([name]) => name);

/**
 * The option fields every conversion and tool op takes, merged by name (a field several ops take is
 * documented once, naming them; its default only when they agree).
 */
function optionFields(registry: Registry): Record<string, JsonSchema> {
  const fields = new Map<string, { schema: JsonSchema; usedBy: string[]; defaults: Set<string> }>();
  for (const operation of registry.operations().filter((candidate) => candidate.kind !== 'extract')) {
    for (const [name, schema] of Object.entries((operation.options as JsonSchema).properties ?? {})) {
      const field = fields.get(name) ?? { schema, usedBy: [], defaults: new Set<string>() };
      field.usedBy.push(operation.op ? `op ${operation.op}` : `${operation.title}`);
      field.defaults.add(JSON.stringify(schema.default));
      fields.set(name, field);
    }
  }
  return Object.fromEntries(
    [...fields]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, { schema, usedBy, defaults }]) => {
        const { default: defaultValue, ...shape } = standardKeywords(schema);
        const about = `${shape.description ? `${shape.description} ` : ''}Applies to: ${usedBy.join(', ')}.`;
        const sameDefault = defaults.size === 1 && defaultValue !== undefined ? { default: defaultValue } : {};
        const wire = formField(shape, about);
        return [name, wire.contentMediaType ? wire : { ...wire, ...sameDefault }];
      }),
  );
}

/** The convert form: `file` (or `url`), `to` and `op`, then every option field some operation takes. */
export function convertForm(registry: Registry): FormShape {
  const targets = new Set(Object.values(registry.conversionTable()).flat());
  for (const operation of registry.operations())
    if (operation.kind === 'tool') for (const format of operation.inputs) targets.add(format);
  const schema: JsonSchema = {
    type: 'object',
    required: ['file', 'to'],
    properties: {
      file: {
        type: 'string',
        contentMediaType: 'application/octet-stream',
        description: "The file to convert; its name's extension declares its format (checked against its content).",
      },
      to: {
        type: 'string',
        enum: [...targets].sort(),
        description: 'Output format, lower-case extension. For an in-place op, the input format.',
      },
      // merge-pdf is served by POST /api/pdf/merge only, never as a convert op.
      op: {
        type: 'string',
        enum: registry.opNames().filter((op) => op !== MERGE_OP),
        description: 'Tool operation; omit for a plain conversion.',
      },
      ...optionFields(registry),
      webhookUrl: WEBHOOK_URL_FIELD,
      url: URL_FIELD,
      export: EXPORT_FIELD,
    },
  };
  return { schema, jsonFields: jsonFieldsOf(schema) };
}

/** The batch form: the convert form with `files` for `file` and the batch's `export`. */
export function batchForm(registry: Registry): FormShape {
  const { file: _file, ...fields } = convertForm(registry).schema.properties!;
  const schema: JsonSchema = {
    type: 'object',
    required: ['files', 'to'],
    properties: {
      files: {
        type: 'array',
        items: { type: 'string', contentMediaType: 'application/octet-stream' },
        description: 'The files to convert: repeat the field once per file.',
      },
      ...fields,
      export: BATCH_EXPORT_FIELD,
    },
  };
  return { schema, jsonFields: jsonFieldsOf(schema) };
}

/** An extraction tool's form: `files`, then its plugin's option fields. */
export function extractionForm(options: JsonSchema, maxFiles: number): FormShape {
  const fields = Object.fromEntries(
    Object.entries(options.properties ?? {}).map(([name, field]) => [name, formField(standardKeywords(field))]),
  );
  const schema: JsonSchema = {
    type: 'object',
    required: ['files', ...(options.required ?? [])],
    properties: {
      files: {
        type: 'array',
        minItems: 1,
        maxItems: maxFiles,
        items: { type: 'string', contentMediaType: 'application/octet-stream' },
        description: 'The files: repeat the field once per file.',
      },
      ...fields,
      webhookUrl: WEBHOOK_URL_FIELD,
    },
  };
  return { schema, jsonFields: [] };
}
