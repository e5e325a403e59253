/**
 * tRPC procedures generated from the operation table (apps/server/operations): each procedure is
 * one operation, named in its meta. A JSON operation's procedure takes the operation's params, query
 * and body fields as one object, decoded by the operation's own zod, answers what its `run` answers
 * (checked by its output zod) and is a query for GET, else a mutation. A file-taking operation's
 * procedure takes FormData: its files staged under the operation's `admit`, its fields decoded by
 * the one form decoder (operations/submission.ts), then its `submit`.
 *
 * A procedure may keep a shape it had before the table (`batch.get({ batchId })`, `webhooks.list`
 * answering the array): its operation's `trpc` section names its own input and output zod and maps
 * to and from the operation's; the operation still does the work. `procedureOf` builds an
 * operation's procedure as its section says, `ProcedureOf` is its type (trpc/router.ts places them).
 */
import type { AnyProcedure } from '@trpc/server';
import { z } from 'zod';
import type { Principal, Services } from '../../../core/services/index.js';
import type { AnyOperation, OperationSpec, RunInput } from '../operations/operation.js';
import { decodeSubmission, fileLimitOf, type FormFields } from '../operations/submission.js';
import { authedProcedure } from './trpc.js';
import { stageFiles } from './uploads.js';

/** The zod of a procedure's input: what clients send (`In`) and what the resolver gets (`Out`). */
type Parser<Out, In> = z.ZodType<Out, In>;

/** An operation's input: its params, query and body fields as one object (REST reads them from three places). */
type InputOf<Params extends z.ZodType, Query extends z.ZodType, Body extends z.ZodType> = Parser<
  RunInput<Params, Query, Body>,
  Wire<z.input<Params> & z.input<Query> & z.input<Body>>
>;

/** What a client sends: nothing for no input, and the object may be left out when each of its fields may. */
type Wire<Sent> = unknown extends Sent ? undefined : Record<never, never> extends Sent ? Sent | undefined : Sent;

function shapeOf(schema: z.ZodType | undefined): z.ZodRawShape {
  return schema instanceof z.ZodObject ? schema.shape : {};
}

/**
 * The operation's params, query and body as one zod object (nothing, for an operation without
 * input). An operation whose every field may be left out (a query with defaults) may be called
 * without input.
 */
export function operationInput<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, O extends z.ZodType>(
  operation: OperationSpec<P, Q, B, O>,
): InputOf<P, Q, B> {
  const { params, query, body } = operation;
  if (!params && !query && !body) return z.unknown() as unknown as InputOf<P, Q, B>;
  const merged = z.object({ ...shapeOf(params), ...shapeOf(query), ...shapeOf(body) });
  const input = merged.safeParse({}).success ? merged.prefault({}) : merged;
  // The merged object's static type is the three parts' intersection (zod cannot spread generic shapes).
  return input as unknown as InputOf<P, Q, B>;
}

/** A procedure's shape where it predates the table: its own input and output, mapped to the operation's. */
export interface Adapter<In, InWire, Answer, Out, OutWire, RunIn> {
  input: Parser<In, InWire>;
  toInput?: (input: In) => RunIn;
  output: Parser<Out, OutWire>;
  answer: (answer: Answer) => OutWire | Promise<OutWire>;
}

const kindOf = (operation: { method: string }) => (operation.method === 'GET' ? 'query' : 'mutation');

/**
 * The resolver's input, decoded by the procedure's parser for `T`. tRPC types it with a conditional
 * type that TypeScript leaves unresolved while `T` is a type parameter; it is `T` once decoded.
 */
const decodedAs = <T>(input: unknown) => input as T;

function jsonRun<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, O extends z.ZodType>(
  operation: OperationSpec<P, Q, B, O>,
) {
  const { run, output } = operation;
  if (!run || !output.schema) throw new Error(`tRPC: operation ${operation.name} has no JSON run to serve`);
  return { run, output: output.schema as Parser<z.output<O>, z.input<O>> };
}

/*
 * Answers are checked by the output zod in the resolver rather than with `.output()`: tRPC types a
 * resolver's answer for `.output(O)` with a conditional type left unresolved while O is a type
 * parameter. The check is the same (keys the zod does not declare are stripped; a mismatch is an
 * internal error), and clients see the output zod's type either way.
 */

type Context = { services: Services; principal: Principal };

/** A JSON operation's input parser and resolver, as the table declares it. */
function jsonProcedure<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, O extends z.ZodType>(
  operation: OperationSpec<P, Q, B, O>,
) {
  const { run, output } = jsonRun(operation);
  return {
    builder: authedProcedure.meta({ operation: operation.name }).input(operationInput(operation)),
    resolve: async ({ ctx, input }: { ctx: Context; input: unknown }) =>
      output.parse(await run(ctx.services, ctx.principal, decodedAs<RunInput<P, Q, B>>(input ?? {}))),
  };
}

/** The query of a JSON GET operation. */
export function queryOf<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, O extends z.ZodType>(
  operation: OperationSpec<P, Q, B, O>,
) {
  if (kindOf(operation) !== 'query') throw new Error(`tRPC: ${operation.name} is not a GET operation`);
  const { builder, resolve } = jsonProcedure(operation);
  return builder.query(resolve);
}

/** The mutation of a JSON operation that changes something (POST, PATCH, DELETE). */
export function mutationOf<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, O extends z.ZodType>(
  operation: OperationSpec<P, Q, B, O>,
) {
  if (kindOf(operation) !== 'mutation') throw new Error(`tRPC: ${operation.name} is a GET operation`);
  const { builder, resolve } = jsonProcedure(operation);
  return builder.mutation(resolve);
}

/** A JSON operation's parser and resolver under a shape that predates the table (see the file's comment). */
function adaptedProcedure<
  P extends z.ZodType,
  Q extends z.ZodType,
  B extends z.ZodType,
  O extends z.ZodType,
  In,
  Out,
  OutWire,
  InWire,
>(operation: OperationSpec<P, Q, B, O>, adapter: Adapter<In, InWire, z.input<O>, Out, OutWire, RunInput<P, Q, B>>) {
  const { run } = operation;
  if (!run) throw new Error(`tRPC: operation ${operation.name} has no JSON run to serve`);
  const { input } = adapter;
  const toInput = adapter.toInput ?? ((given: In) => decodedAs<RunInput<P, Q, B>>(given));
  return {
    builder: authedProcedure.meta({ operation: operation.name }).input(input),
    resolve: async ({ ctx, input: given }: { ctx: Context; input: unknown }) =>
      adapter.output.parse(
        await adapter.answer(await run(ctx.services, ctx.principal, toInput(decodedAs<In>(given ?? {})))),
      ),
  };
}

/** The query of a JSON GET operation under an older shape. */
export function adaptedQueryOf<
  P extends z.ZodType,
  Q extends z.ZodType,
  B extends z.ZodType,
  O extends z.ZodType,
  In,
  Out,
  OutWire,
  InWire,
>(operation: OperationSpec<P, Q, B, O>, adapter: Adapter<In, InWire, z.input<O>, Out, OutWire, RunInput<P, Q, B>>) {
  if (kindOf(operation) !== 'query') throw new Error(`tRPC: ${operation.name} is not a GET operation`);
  const { builder, resolve } = adaptedProcedure(operation, adapter);
  return builder.query(resolve);
}

/** The mutation of a JSON operation under an older shape. */
export function adaptedMutationOf<
  P extends z.ZodType,
  Q extends z.ZodType,
  B extends z.ZodType,
  O extends z.ZodType,
  In,
  Out,
  OutWire,
  InWire,
>(operation: OperationSpec<P, Q, B, O>, adapter: Adapter<In, InWire, z.input<O>, Out, OutWire, RunInput<P, Q, B>>) {
  if (kindOf(operation) !== 'mutation') throw new Error(`tRPC: ${operation.name} is a GET operation`);
  const { builder, resolve } = adaptedProcedure(operation, adapter);
  return builder.mutation(resolve);
}

/** A form's fields for the decoder: each file as a marker in its field, any other field as its text. */
function fieldsOf(form: FormData): { files: File[]; fields: FormFields } {
  const files: File[] = [];
  const fields: FormFields = {};
  for (const [name, value] of form.entries()) {
    if (typeof value !== 'string') {
      files.push(value);
      fields[name] ??= { file: true };
    } else fields[name] = value;
  }
  return { files, fields };
}

/**
 * The procedure of a file-taking operation: FormData in, the operation's answer out. An operation
 * that takes JSON or one file (a pipeline) also takes its JSON request as `json` types it.
 */
export function formProcedureOf<
  P extends z.ZodType,
  Q extends z.ZodType,
  B extends z.ZodType,
  O extends z.ZodType,
  Json extends object = never,
>(operation: OperationSpec<P, Q, B, O>, json?: Parser<Json, Json>) {
  const { submit, output } = operation;
  if (!submit || !output.schema) throw new Error(`tRPC: operation ${operation.name} takes no files`);
  const schema = output.schema as Parser<z.output<O>, z.input<O>>;
  const form = z.instanceof(FormData);
  return authedProcedure
    .meta({ operation: operation.name })
    .input(json ? z.union([form, json]) : form)
    .mutation(async ({ ctx, input }) => {
      const { services, principal } = ctx;
      if (!(input instanceof FormData))
        return schema.parse(await submit(services, principal, { files: [], pipeline: input, viaApi: true }));
      const limit = fileLimitOf(operation, services, principal);
      const { files, fields } = fieldsOf(input);
      const submission = await decodeSubmission(operation, 'json', { fields, fileCount: files.length }, (url) =>
        url === undefined
          ? stageFiles(services, principal, files, limit)
          : services.uploads.importOne(principal, url).then((upload) => [upload]),
      );
      return schema.parse(await submit(services, principal, { ...submission, viaApi: true }));
    });
}

/** The procedure of an operation, as its `trpc` section declares it (ProcedureOf is its type). */
export function procedureOf(operation: AnyOperation): AnyProcedure {
  const { trpc } = operation;
  if (operation.files !== 'none') return formProcedureOf(operation, trpc?.json);
  const { input, output, answer } = trpc ?? {};
  if (input && output && answer) {
    const adapter = { input, toInput: trpc?.toInput, output, answer };
    return kindOf(operation) === 'query' ? adaptedQueryOf(operation, adapter) : adaptedMutationOf(operation, adapter);
  }
  if (input || output || answer) throw new Error(`tRPC: ${operation.name} adapts only part of its shape`);
  return kindOf(operation) === 'query' ? queryOf(operation) : mutationOf(operation);
}

/** A section's zod left at its default (`z.ZodType`): the section does not declare it. */
type Declared<Schema extends z.ZodType> = z.ZodType extends Schema ? false : true;

/** The JSON a form procedure also takes: none unless its section declares `json`. */
type JsonOf<Json extends z.ZodType> = Declared<Json> extends true ? Extract<z.input<Json>, object> : never;

type JsonProcedureOf<
  P extends z.ZodType,
  Q extends z.ZodType,
  B extends z.ZodType,
  O extends z.ZodType,
  M,
> = M extends 'GET' ? ReturnType<typeof queryOf<P, Q, B, O>> : ReturnType<typeof mutationOf<P, Q, B, O>>;

type AdaptedProcedureOf<
  P extends z.ZodType,
  Q extends z.ZodType,
  B extends z.ZodType,
  O extends z.ZodType,
  M,
  In extends z.ZodType,
  Answer extends z.ZodType,
> = M extends 'GET'
  ? ReturnType<typeof adaptedQueryOf<P, Q, B, O, z.output<In>, z.output<Answer>, z.input<Answer>, z.input<In>>>
  : ReturnType<typeof adaptedMutationOf<P, Q, B, O, z.output<In>, z.output<Answer>, z.input<Answer>, z.input<In>>>;

/**
 * The type of an operation's procedure, read from its declaration as procedureOf builds it: a form
 * procedure for a file-taking operation, else a query (GET) or mutation, in its section's shape
 * where it declares one.
 */
export type ProcedureOf<Op> =
  Op extends OperationSpec<
    infer P,
    infer Q,
    infer B,
    infer O,
    infer Method,
    infer Files,
    string,
    infer In,
    infer Answer,
    infer Json
  >
    ? Files extends 'none'
      ? Declared<In> extends true
        ? AdaptedProcedureOf<P, Q, B, O, Method, In, Answer>
        : JsonProcedureOf<P, Q, B, O, Method>
      : ReturnType<typeof formProcedureOf<P, Q, B, O, JsonOf<Json>>>
    : never;
