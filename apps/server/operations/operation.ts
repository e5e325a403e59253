/**
 * One operation of the API, declared once: its name (the OpenAPI operationId, the tRPC
 * procedure's meta and the GraphQL field), its transport (method, path, how files come), its zod
 * input and output, its plan gate, its handler on the services, and where GraphQL and tRPC place
 * it. The REST routes (routes.ts), the OpenAPI document (openapi.ts), the GraphQL fields and the
 * tRPC router are generated from the table (table.ts); nothing restates an operation.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { describeIssue } from '../../../core/contract/options.js';
import { badRequest, type ServiceError } from '../../../core/services/errors.js';
import type { PlanId } from '../../../schema/index.js';
import type { Principal, Services } from '../../../core/services/index.js';
import type { StagedUpload } from '../../../core/services/uploads.js';
import type { JsonSchema } from '../json-schema.js';
import type { SubmittedOptions } from './options.js';

/**
 * How the request carries files: none (JSON or nothing), one file, many files (the multipart form is
 * read by the handler, once the caller's limits are known, never buffered), or either JSON or one file.
 */
export type FileRule = 'none' | 'one file' | 'many files' | 'json or one file';

/** The multipart form as documented: its fields (the registry's option fields among them). */
export interface FormShape {
  schema: JsonSchema;
  /** Fields sent as JSON strings, by name: their encoding in the document. */
  jsonFields?: string[];
}

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** What a handler gets: the services, the request (for forms and headers) and the decoded input. */
export interface Call<Params, Query, Body> {
  services: Services;
  request: FastifyRequest;
  reply: FastifyReply;
  params: Params;
  query: Query;
  body: Body;
}

/** A non-JSON answer: a file stream with its headers (downloads). */
export interface Output<Schema extends z.ZodType = z.ZodType> {
  status: 200 | 201 | 204;
  description: string;
  /** The JSON body's schema; absent for 204 and binary answers. */
  schema?: Schema;
  /** The component name the document gives `schema` (`JobStatus`). */
  component?: string;
  /** Binary answers: their media type. */
  binary?: string;
  /** Response headers documented beside the rate headers (`Content-Disposition`). */
  headers?: string[];
  /**
   * The handler may answer more than `schema` names (convert with `Prefer: wait`, the capability
   * index sent pre-serialised): no response schema for Fastify to serialise with.
   */
  loose?: boolean;
}

/**
 * Where the tRPC procedure of an operation sits (`webhooks.rotateSecret`) and, where its shape differs
 * from REST's, how: a procedure kept in the shape it had before the table names its own `input` and
 * `output` zod, maps its input to the operation's (`toInput`, default: as it is) and the operation's
 * answer to its own (`answer`); the operation still does the work. `json`: the JSON request a
 * file-taking operation also takes instead of FormData (a pipeline), as its zod types it.
 */
export interface TrpcSection<
  Path extends string,
  In extends z.ZodType,
  Answer extends z.ZodType,
  Json extends z.ZodType,
  RunIn,
  OperationAnswer,
> {
  /** Dotted: `jobs.get` is `get` in the `jobs` router. */
  path: Path;
  input?: In;
  // Methods, so an operation with its own adapter types is still an operation of any adapter types.
  toInput?(input: z.output<In>): RunIn;
  output?: Answer;
  answer?(answer: OperationAnswer): z.input<Answer> | Promise<z.input<Answer>>;
  json?: Json;
}

/** A tRPC procedure's input when it takes none (any input sent is ignored, as by a procedure without a parser). */
export const NO_INPUT = z.custom<void>();

/** A batch on tRPC, named `batchId` as every batch procedure names it (REST has it in the path). */
export const BATCH_ID_INPUT = z.object({ batchId: z.string().min(1) });

export interface OperationSpec<
  Params extends z.ZodType = z.ZodType,
  Query extends z.ZodType = z.ZodType,
  Body extends z.ZodType = z.ZodType,
  Out extends z.ZodType = z.ZodType,
  // Kept as declared (`'GET'`, `'many files'`, `'jobs.get'`, the adapter's zod): the tRPC router's type reads them.
  Method extends HttpMethod = HttpMethod,
  Files extends FileRule = FileRule,
  TrpcPath extends string = string,
  TrpcIn extends z.ZodType = z.ZodType,
  TrpcOut extends z.ZodType = z.ZodType,
  TrpcJson extends z.ZodType = z.ZodType,
> {
  /** camelCase: the operationId, the tRPC procedure's meta, the GraphQL field. */
  name: string;
  method: Method;
  /** OpenAPI style: `/api/v1/jobs/{jobId}`. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  /** Pipelines, imports, cancel and webhooks: beyond the spec (`x-beyond-spec`). */
  beyondSpec?: boolean;
  /** `public`: no key (the token is the credential, or health and reference pages). */
  auth?: 'key' | 'public';
  /**
   * The lowest plan allowed. The services hold the rule and enforce it on every surface (each
   * surface calls this operation's handlers); the declaration reads the same rule
   * (`FEATURE_MIN_PLAN`, a tool's manifest), and plan-gates.test.ts checks the two agree.
   */
  plan?: PlanId;
  files: Files;
  /**
   * A file-taking operation's own text fields (`to`, `op`, `webhookUrl`, `export`; a pipeline's
   * `pipeline`): with `to`, every other field is an option; without, they are all its form takes.
   * Left out: `webhookUrl` and the plugin's options (an extraction tool). submission.ts reads it.
   */
  formFields?: readonly string[];
  params?: Params;
  query?: Query;
  /** The JSON body (decoded here, for every surface). */
  body?: Body;
  /** Component name of the JSON body in the document. */
  bodyComponent?: string;
  /** The multipart form (read by the handler), documented. */
  form?: FormShape;
  /** Extra documented request headers (`Prefer`). */
  headers?: Array<{ name: string; description: string; example: string; beyondSpec?: boolean }>;
  output: Output<Out>;
  /** The error statuses it answers (besides 500, which every operation may answer). */
  errors: string[];
  /** A status described differently from the shared answer (a 403 with its own codes). */
  errorDescriptions?: Record<string, string>;
  /** The handler of an operation that needs the request (forms, headers, streams). */
  handle?: (call: Call<z.output<Params>, z.output<Query>, z.output<Body>>) => Promise<unknown>;
  /**
   * The handler of a JSON operation, transport-neutral: its decoded input (params, query and body in
   * one object) and the caller. REST and tRPC both call it. Neither `handle` nor `run`: served by the
   * host (health, readiness, this document), documented here all the same.
   */
  run?: (services: Services, principal: Principal, input: RunInput<Params, Query, Body>) => Promise<z.input<Out>>;
  /**
   * The transport-neutral handler of a file-taking operation, once a surface has staged its files
   * and decoded its fields: REST's `handle` and the tRPC FormData procedures both call it.
   */
  submit?: (services: Services, principal: Principal, submission: Submission) => Promise<z.input<Out>>;
  /**
   * The most files the caller may send, checked before any file is read (its plan gate first): the
   * file-taking operations of more than one file. Every surface admits the caller with it.
   */
  admit?: (services: Services, principal: Principal) => number;
  /** The refusal when more files than `admit` allows are sent (default: a 400 "At most N files"). */
  tooManyFiles?: (services: Services, principal: Principal) => ServiceError;
  /** The GraphQL field served from this operation (graphql/operation-fields.ts declares it). */
  graphql?: GraphQLSection<Out>;
  /** The tRPC procedure served from this operation (trpc/router.ts places it at its path). */
  trpc?: TrpcSection<TrpcPath, TrpcIn, TrpcOut, TrpcJson, RunInput<Params, Query, Body>, z.input<Out>>;
  /**
   * Why this operation is served on REST alone (a binary answer, a probe, the document itself):
   * every other operation is on REST, OpenAPI, GraphQL and tRPC (surfaces.test.ts checks both).
   */
  restOnly?: string;
}

/**
 * One argument of an operation's GraphQL field. Its type, description and whether it is required
 * come from the operation's zod input (the field it fills) unless given here.
 */
export interface GraphQLArg {
  /** A GraphQL type by name (`ID`, `Int`, `Upload`, `ConvertOptions`, `WebhookEventType`). */
  type?: string;
  list?: boolean;
  required?: boolean;
  description?: string;
  /** The input field it fills (its name on REST); default: the argument's name. */
  field?: string;
  /** Sent as null, it reaches the operation as null (clears the field); otherwise null is left out. */
  clearable?: boolean;
}

/**
 * Where the GraphQL field of an operation differs from REST: its root and name, its arguments
 * (renamed or typed), its answer type (a Pothos type by name) and how the answer maps to it.
 * A file-taking operation's `file`, `url` and `files` arguments are staged by the GraphQL surface
 * (under `admit`) and its `options` and `quality` decoded by operations/options.ts.
 */
export interface GraphQLSection<Out extends z.ZodType = z.ZodType> {
  root: 'query' | 'mutation';
  /** Default: the operation's name. */
  field?: string;
  description: string;
  /** The answer's type by name; `[Name]` for a list. */
  type: string | [string];
  args?: Record<string, GraphQLArg>;
  /** Decode the input with the operation's zod, as REST does (the same rules and wording). */
  decode?: boolean;
  /** The arguments as the operation's input, where their shapes differ (a typed pipeline). */
  input?: (args: Record<string, unknown>) => Record<string, unknown>;
  /** The operation's answer as the field's value (`jobId` added, a list unwrapped). */
  answer?: (answer: z.input<Out>, input: Record<string, unknown>) => unknown;
  /**
   * A plugin's option fields as arguments (an extraction tool's), decoded by operations/options.ts
   * (`argumentOptions`): the plugin's `<PluginId>Options` fields, or for a tool not installed here the
   * fields of its declared options (typed as `typeName`).
   */
  optionArguments?: { pluginId?: string | null | undefined; schema: JsonSchema; typeName: string };
  /**
   * Several operations serve one field (`extraction(tool, id)`: one poll per tool): the value of
   * argument `arg` picks this one; an unknown value is refused as an unknown `noun`. The first
   * operation's section declares the field.
   */
  dispatch?: { arg: string; value: string; noun: string };
}

/**
 * What a file-taking operation is given, whatever the surface: its files already staged (under the
 * caller's plan), its text fields and its options decoded (options.ts).
 */
export interface Submission {
  files: StagedUpload[];
  to?: string | undefined;
  op?: string | undefined;
  /** None for an operation without options (merge). */
  options?: SubmittedOptions;
  webhookUrl?: string | undefined;
  /** The S3 export as sent (a JSON string or an object): checked before the job is accepted. */
  export?: unknown;
  /** Counted as an API call (a key) rather than the web app's (a session). */
  viaApi: boolean;
  /** A pipeline: its request (JSON or an object) without the input file. */
  pipeline?: unknown;
}

/** A JSON operation's input: its params, query and body fields in one object. */
export type RunInput<Params extends z.ZodType, Query extends z.ZodType, Body extends z.ZodType> = z.output<Params> &
  z.output<Query> &
  z.output<Body>;

/** An operation of any input and output (the table's element). */
// biome-ignore lint/suspicious/noExplicitAny: the table holds operations of every input type
export type AnyOperation = OperationSpec<any, any, any, any, any, any, any, any, any, any>;

/** Declares an operation with its handler typed from its zod input and output. */
export function defineOperation<
  Params extends z.ZodType = z.ZodType<unknown>,
  Query extends z.ZodType = z.ZodType<unknown>,
  Body extends z.ZodType = z.ZodType<unknown>,
  Out extends z.ZodType = z.ZodType,
  Method extends HttpMethod = HttpMethod,
  Files extends FileRule = FileRule,
  TrpcPath extends string = string,
  TrpcIn extends z.ZodType = z.ZodType,
  TrpcOut extends z.ZodType = z.ZodType,
  TrpcJson extends z.ZodType = z.ZodType,
>(
  spec: OperationSpec<Params, Query, Body, Out, Method, Files, TrpcPath, TrpcIn, TrpcOut, TrpcJson>,
): OperationSpec<Params, Query, Body, Out, Method, Files, TrpcPath, TrpcIn, TrpcOut, TrpcJson> {
  return spec;
}

/** One decoder for every operation's params, query and JSON body, on every surface. */
export function decodeInput<T>(schema: z.ZodType<T> | undefined, value: unknown): T {
  if (!schema) return undefined as T;
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success) throw badRequest(`Invalid ${describeIssue(parsed.error)}`);
  return parsed.data;
}

const keysOf = (schema: z.ZodType | undefined) => (schema instanceof z.ZodObject ? Object.keys(schema.shape) : []);

/**
 * A JSON operation's handler, called from another surface (tRPC, GraphQL) with its input as one
 * object. With `decode`, the input is first decoded by the operation's own zod (params, query and
 * body, as REST decodes them: the same rules and wording) where the surface's types did not.
 */
export function runOperation<O extends z.ZodType>(
  // biome-ignore lint/suspicious/noExplicitAny: any operation's input (decoded here or by the surface)
  operation: OperationSpec<any, any, any, O>,
  ctx: { services: Services; principal: Principal },
  input: Record<string, unknown>,
  { decode = false }: { decode?: boolean } = {},
): Promise<z.input<O>> {
  const { run } = operation;
  if (!run) throw new Error(`Operation ${operation.name} has no JSON run to serve`);
  if (!decode) return run(ctx.services, ctx.principal, input);
  const { params, query, body } = operation;
  const inPath = new Set([...keysOf(params), ...keysOf(query)]);
  const bodyFields = Object.fromEntries(Object.entries(input).filter(([key]) => !inPath.has(key)));
  return run(ctx.services, ctx.principal, {
    ...(params ? decodeInput(params, input) : {}),
    ...(query ? decodeInput(query, input) : {}),
    ...(body ? decodeInput(body, bodyFields) : {}),
  });
}
