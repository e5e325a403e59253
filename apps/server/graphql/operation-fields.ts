/**
 * The GraphQL fields of the operation table: one function declares every operation that
 * has a GraphQL section. Its arguments come from the operation's zod input (type, description and
 * whether it is required, unless the section says otherwise), its answer type by name from the
 * section, and its resolver is the operation's own handler: `run` for a JSON operation, `submit` for
 * a file-taking one (its files staged here under its `admit`, its options decoded by
 * operations/options.ts). The object types the answers take are declared by the type files.
 */
import { z } from 'zod';
import { badRequest } from '../../../core/services/errors.js';
import type { StagedUpload } from '../../../core/services/uploads.js';
import type { JsonSchema } from '../json-schema.js';
import { runOperation, type AnyOperation, type GraphQLArg, type Submission } from '../operations/operation.js';
import { argumentOptions, inputObject, oneOfOptions, withQuality } from '../operations/options.js';
import type { Builder, GraphQLContext } from './builder.js';
import type { TypeName } from './types.js';
import { inputValue, optionFields, type OptionField, type OptionInputs } from './option-inputs.js';
import { filesOrUrl } from '../operations/submission.js';
import { scalarOf, zodJsonSchema } from './scalars.js';
import { stageUpload, stageUploads } from './uploads.js';

/** The operation's input as one JSON Schema object: its params, query and body fields. */
function inputSchemaOf(operation: AnyOperation): { properties: Record<string, JsonSchema>; required: Set<string> } {
  const properties: Record<string, JsonSchema> = {};
  const required = new Set<string>();
  for (const part of [operation.params, operation.query, operation.body]) {
    if (!(part instanceof z.ZodObject)) continue;
    const schema = zodJsonSchema(part);
    Object.assign(properties, schema.properties ?? {});
    for (const field of schema.required ?? []) required.add(field);
  }
  return { properties, required };
}

/** An argument's type, description and nullability: the section's, else its input field's. */
function argumentOf(name: string, arg: GraphQLArg, input: ReturnType<typeof inputSchemaOf>, operation: AnyOperation) {
  const field = arg.field ?? name;
  const schema = input.properties[field];
  const derived = scalarOf(schema);
  const type = arg.type ?? derived.type;
  const list = arg.list ?? derived.list;
  const description = arg.description ?? schema?.description;
  if (!type || !description)
    throw new Error(`GraphQL: ${operation.name}'s argument '${name}' needs a type and a description`);
  return { type: (list ? [type] : type) as TypeName, required: arg.required ?? input.required.has(field), description };
}

/**
 * The arguments as the operation's input: renamed to their fields, IDs as strings, and those sent
 * as null left out unless null clears the field.
 */
function inputOf(args: Record<string, unknown>, declared: Record<string, GraphQLArg>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    const arg = declared[name] ?? {};
    if (value === undefined || (value === null && !arg.clearable)) continue;
    input[arg.field ?? name] = arg.type === 'ID' && value !== null ? String(value) : value;
  }
  return input;
}

type Files = Array<Promise<import('graphql-upload-ts').FileUpload>>;

/** A file-taking operation's files, staged under the caller's plan: `files`, or `file` (or `url` where taken). */
async function stagedFiles(
  operation: AnyOperation,
  { services, principal }: GraphQLContext,
  input: Record<string, unknown>,
  maxFiles: number,
): Promise<StagedUpload[]> {
  if (operation.files === 'many files') {
    const tooMany = operation.tooManyFiles;
    const files = (input.files ?? []) as Files;
    return stageUploads(services, principal, files, maxFiles, tooMany && (() => tooMany(services, principal)));
  }
  const file = input.file as Files[number] | undefined;
  const url = input.url as string | undefined;
  // A pipeline may name its input by URL in its own request instead.
  if (operation.files === 'json or one file' && !file) return [];
  filesOrUrl(operation, file ? 1 : 0, url);
  return [file ? await stageUpload(services, principal, file) : await services.uploads.importOne(principal, url!)];
}

/**
 * A file-taking operation's submission from its arguments: options decoded first (the `options`
 * argument, or the plugin's option fields given as arguments), then the files staged.
 */
async function submissionOf(
  operation: AnyOperation,
  ctx: GraphQLContext,
  input: Record<string, unknown>,
  optionInputs: OptionInputs,
  optionArguments: Record<string, unknown> | undefined,
): Promise<Submission> {
  // The plan gate (and the file count) comes before anything else is read.
  const maxFiles = operation.admit ? operation.admit(ctx.services, ctx.principal) : 1;
  const options = optionArguments
    ? argumentOptions(optionArguments)
    : withQuality(
        oneOfOptions(input.options as Record<string, unknown> | undefined, optionInputs.convertFields),
        input.quality as number | undefined,
      );
  return {
    files: await stagedFiles(operation, ctx, input, maxFiles),
    to: input.to as string | undefined,
    op: input.op as string | undefined,
    options,
    webhookUrl: input.webhookUrl as string | undefined,
    export: inputObject(input.export),
    pipeline: input.pipeline,
    viaApi: !ctx.principal.session,
  };
}

/** The fields of the plugin whose options an operation takes as arguments (an extraction tool's). */
function optionArgumentsOf(builder: Builder, operation: AnyOperation, optionInputs: OptionInputs): OptionField[] {
  const section = operation.graphql?.optionArguments;
  if (!section) return [];
  if (section.pluginId) return optionInputs.fields.get(section.pluginId) ?? [];
  return optionFields(builder, section.schema, section.typeName);
}

/**
 * The operations that serve each field: one, or several picked by an argument (`dispatch`: the
 * extraction poll of each tool behind `extraction(tool, id)`).
 */
function byField(operations: AnyOperation[]): AnyOperation[][] {
  const groups = new Map<string, AnyOperation[]>();
  for (const operation of operations) {
    const section = operation.graphql;
    if (!section) continue;
    const key = `${section.root} ${section.field ?? operation.name}`;
    groups.set(key, [...(groups.get(key) ?? []), operation]);
  }
  for (const group of groups.values())
    if (group.length > 1 && group.some(({ graphql }) => !graphql?.dispatch))
      throw new Error(`GraphQL: ${group.map(({ name }) => name).join(', ')} share a field without a dispatch`);
  return [...groups.values()];
}

/** The operation of a group that the arguments pick; an unknown value is a 400 naming the known ones. */
function pickOperation(group: AnyOperation[], args: Record<string, unknown>): AnyOperation {
  const dispatch = group[0]!.graphql?.dispatch;
  if (!dispatch) return group[0]!;
  const value = args[dispatch.arg];
  const operation = group.find(({ graphql }) => graphql?.dispatch?.value === value);
  if (operation) return operation;
  const known = group.map(({ graphql }) => graphql?.dispatch?.value).join(', ');
  throw badRequest(`Unknown ${dispatch.noun} '${String(value)}': use one of ${known}`);
}

/** The operation's answer to the field's arguments. */
async function resolveOperation(
  operation: AnyOperation,
  args: Record<string, unknown>,
  ctx: GraphQLContext,
  optionInputs: OptionInputs,
  optionArguments: OptionField[],
): Promise<unknown> {
  const section = operation.graphql!;
  const optionNames = new Set(optionArguments.map(({ field }) => field));
  const given = Object.fromEntries(Object.entries(args).filter(([name]) => !optionNames.has(name)));
  const options = section.optionArguments
    ? Object.fromEntries(Object.entries(args).filter(([name]) => optionNames.has(name)))
    : undefined;
  const decoded = inputOf(given, section.args ?? {});
  const input = section.input ? section.input(decoded) : decoded;
  const { submit } = operation;
  const answer = submit
    ? await submit(ctx.services, ctx.principal, await submissionOf(operation, ctx, input, optionInputs, options))
    : await runOperation(operation, ctx, input, { decode: section.decode ?? false });
  return section.answer ? section.answer(answer, input) : answer;
}

/** Declares the GraphQL field of every operation that has a GraphQL section. */
export function addOperationFields(builder: Builder, operations: AnyOperation[], optionInputs: OptionInputs) {
  for (const group of byField(operations)) {
    const operation = group[0]!;
    const section = operation.graphql!;
    const declared = section.args ?? {};
    const input = inputSchemaOf(operation);
    const optionArguments = optionArgumentsOf(builder, operation, optionInputs);
    const addField = section.root === 'query' ? builder.queryField.bind(builder) : builder.mutationField.bind(builder);
    addField(section.field ?? operation.name, (t) =>
      t.field({
        type: section.type as TypeName,
        nullable: true,
        description: section.description,
        args: Object.fromEntries([
          ...Object.entries(declared).map(([name, arg]) => [name, t.arg(argumentOf(name, arg, input, operation))]),
          ...optionArguments.map((field) => [field.field, t.arg(inputValue(field))]),
        ]),
        resolve: (_root, args, ctx) => {
          const given = args as Record<string, unknown>;
          return resolveOperation(pickOperation(group, given), given, ctx, optionInputs, optionArguments);
        },
      }),
    );
  }
}
