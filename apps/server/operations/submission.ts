/**
 * The one decoder of a file-taking operation's form, for every surface: which fields it takes,
 * where its files and URLs come from, and how its text fields become a Submission. Each rule and
 * its wording is written here once; REST's multipart form and tRPC's FormData are read by it, and
 * GraphQL's typed arguments meet the same file rule (`filesOrUrl`).
 *
 * The surfaces differ only in how options travel, which options.ts decodes: a REST form sends one
 * text field per option; tRPC's FormData sends them as one JSON object string in `options` (and
 * `quality` as text), so its other fields are refused by name; GraphQL sends typed arguments.
 */
import { badRequest } from '../../../core/services/errors.js';
import type { Principal, Services } from '../../../core/services/index.js';
import type { ServiceError } from '../../../core/services/errors.js';
import type { StagedUpload } from '../../../core/services/uploads.js';
import type { FileRule, OperationSpec, Submission } from './operation.js';
import { NO_OPTIONS, formOptions, jsonOptions, withQuality } from './options.js';

/** A form's fields by name: text, or a marker where a file came in. */
export type FormFields = Record<string, string | { file: true }>;

/** How a form carries options: REST's one field per option, or tRPC's JSON string in `options`. */
export type OptionCarrier = 'fields' | 'json';

/** What a file-taking operation's form takes: its file rule, its own text fields, whether options come too. */
export interface FormRule {
  name: string;
  files: FileRule;
  /** The text fields it takes besides its files and options (`to`, `op`, `webhookUrl`, `export`, `pipeline`). */
  formFields?: readonly string[];
}

/** The field its files come in: `file` for one, `files` (repeated) for many. */
export const fileFieldOf = (files: FileRule) => (files === 'many files' ? 'files' : 'file');

/** The field a URL may come in instead of a file: `url` on convert, `urls` (repeated, REST) on many files. */
export const urlFieldOf = (operation: FormRule): string | undefined =>
  operation.files === 'one file' ? 'url' : operation.files === 'many files' ? 'urls' : undefined;

/** Whether options come with the form (every field that is none of its own); else its fields are all it takes. */
const takesOptions = (operation: FormRule) => operation.formFields?.includes('to') || !operation.formFields;

/** The refusal of a request without its files. */
export function missingFiles(operation: FormRule): never {
  const url = urlFieldOf(operation);
  if (operation.files === 'many files')
    throw badRequest("Missing 'files': attach the files, repeating the field once per file");
  throw badRequest(`Missing 'file': attach the file to convert${url ? ` (or give its URL as '${url}')` : ''}`);
}

/** The refusal of a file and a URL both, or two files, where one is taken. */
export const notExactlyOne = (operation: FormRule) => {
  const url = urlFieldOf(operation);
  return badRequest(`Send exactly one 'file'${url ? ` or '${url}'` : ''}`);
};

/**
 * A form's file rule: at least one file (or URL), and where one is taken exactly one of the file
 * and its URL. (A pipeline sent as JSON, without a form, names its input in its request instead.)
 */
export function filesOrUrl(operation: FormRule, files: number, url: string | undefined): void {
  const sent = files + (url === undefined ? 0 : 1);
  if (sent === 0) missingFiles(operation);
  if (sent > 1 && operation.files !== 'many files') throw notExactlyOne(operation);
}

/** The fields a form may carry, by carrier; `undefined`: any (REST's option fields). */
function allowedFields(operation: FormRule, carrier: OptionCarrier): string[] | undefined {
  const own = [fileFieldOf(operation.files), ...(operation.formFields ?? ['webhookUrl'])];
  const url = operation.files === 'one file' ? ['url'] : [];
  if (!takesOptions(operation)) return [...own, ...url];
  if (carrier === 'fields') return undefined;
  // An extraction tool's own fields travel as text on tRPC too.
  if (!operation.formFields) return undefined;
  return [...own.slice(0, 1), ...url, ...own.slice(1), 'options', 'quality'];
}

const listed = (names: string[]) =>
  names.length > 1
    ? `${names
        .slice(0, -1)
        .map((n) => `'${n}'`)
        .join(', ')} and '${names.at(-1)}'`
    : `'${names[0]}'`;

/** A field nobody takes: 400 naming it and what the operation takes. */
function refuseUnexpected(operation: FormRule, carrier: OptionCarrier, fields: FormFields): void {
  const allowed = allowedFields(operation, carrier);
  const fileField = fileFieldOf(operation.files);
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value !== 'string' && name !== fileField)
      throw badRequest(`Unexpected file field '${name}': send the file as '${fileField}'`);
    if (typeof value === 'string' && name === fileField) throw badRequest(`'${fileField}' must be a file`);
    if (allowed && !allowed.includes(name)) {
      const options = carrier === 'json' && takesOptions(operation) ? " (options as one JSON string in 'options')" : '';
      throw badRequest(`Unexpected field '${name}': the form takes ${listed(allowed)}${options}`);
    }
  }
}

/**
 * A form's text fields as the operation's submission (its files apart), after its field rules: a
 * field it does not take is refused by name, options are decoded as the carrier sends them.
 */
export function submissionFields(
  operation: FormRule,
  carrier: OptionCarrier,
  fields: FormFields,
): Omit<Submission, 'files' | 'viaApi'> {
  refuseUnexpected(operation, carrier, fields);
  const own = new Set(operation.formFields ?? ['webhookUrl']);
  const taken: Record<string, string> = {};
  const rest: Record<string, string> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value !== 'string' || name === 'url' || name === 'urls') continue;
    if (own.has(name)) taken[name] = value;
    else rest[name] = value;
  }
  const { to, op, webhookUrl, export: exportField, pipeline } = taken;
  if (operation.files === 'json or one file') {
    if (pipeline === undefined) throw badRequest("Missing 'pipeline': the pipeline as one JSON string");
    return { pipeline };
  }
  const options = !takesOptions(operation)
    ? NO_OPTIONS
    : carrier === 'fields' || !operation.formFields
      ? formOptions(rest)
      : withQuality(jsonOptions(rest.options), rest.quality);
  return { to, op, webhookUrl, export: exportField, options };
}

/**
 * A form decoded into a submission: its fields first (a refusal reads no file), then its files
 * staged by the surface (`stage`, given the URL sent instead of a file, if any).
 */
export async function decodeSubmission(
  operation: FormRule,
  carrier: OptionCarrier,
  form: { fields: FormFields; fileCount: number },
  stage: (url: string | undefined) => Promise<StagedUpload[]>,
): Promise<Omit<Submission, 'viaApi'>> {
  const decoded = submissionFields(operation, carrier, form.fields);
  const url = operation.files === 'one file' ? form.fields.url : undefined;
  if (typeof url === 'object') throw badRequest("'url' must be text");
  filesOrUrl(operation, form.fileCount, url);
  return { ...decoded, files: await stage(url) };
}

/**
 * How many files an operation's request may carry (its plan gate first), and its refusal of one
 * more: every surface asks before it reads a file.
 */
export function fileLimitOf(
  operation: FormRule & Pick<OperationSpec, 'admit' | 'tooManyFiles'>,
  services: Services,
  principal: Principal,
): { maxFiles: number; tooMany: () => ServiceError } {
  const { admit, tooManyFiles } = operation;
  const maxFiles = admit ? admit(services, principal) : 1;
  return {
    maxFiles,
    tooMany: tooManyFiles
      ? () => tooManyFiles(services, principal)
      : maxFiles === 1
        ? () => notExactlyOne(operation)
        : () => badRequest(`At most ${maxFiles} files per request`),
  };
}
