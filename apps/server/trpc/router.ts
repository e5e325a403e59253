/**
 * The tRPC router: the REST surface's capabilities as procedures over the same services. It is
 * made per registry (appRouterFor), since every extract plugin adds a procedure; `AppRouter`, the
 * type clients import, names the spec's extraction tools (another tool's procedure is served at
 * `extraction.<tool in camelCase>` all the same).
 */
import type { AnyProcedure } from '@trpc/server';
import { z } from 'zod';
import {
  type batchAcceptedSchema,
  extractionPollSchema,
  type extractionRowSchemas,
  type typedExtractionPollSchema,
  type SpecExtractionTool,
  SPEC_EXTRACTION_TOOLS,
} from '../../../schema/index.js';
import { badRequest } from '../../../core/services/errors.js';
import type { Principal, Services } from '../../../core/services/index.js';
import type { TrpcContext } from './context.js';
import { FIXED_OPERATIONS, operationTable } from '../operations/table.js';
import { extractionSubmitName } from '../operations/extraction.js';
import { BATCH_ID_INPUT, type AnyOperation } from '../operations/operation.js';
import { fileLimitOf } from '../operations/submission.js';
import { WEBHOOK_OPERATIONS } from '../operations/webhooks.js';
import { type ProcedureOf, type adaptedQueryOf, type formProcedureOf, procedureOf } from './operations.js';
import { authedProcedure, createCallerFactory, router } from './trpc.js';

/**
 * The form procedure at `path` (`convert`, `extraction.parseCv`): its operation's file limit. The
 * HTTP adapter asks before it reads a byte of the body, the procedure before it stages a file, so a
 * refused form is never read (as REST).
 */
export function formFileLimit(path: string, services: Services, principal: Principal) {
  const name = operationAt(appRouterFor(services), path);
  const operation = operationTable(services).find((candidate) => candidate.name === name);
  if (!operation?.submit) throw badRequest(`'${path}' takes no form data`);
  return fileLimitOf(operation, services, principal);
}

/*
 * The router's type, read from the declarations: each typed operation's procedure (ProcedureOf) at
 * its `trpc.path`, split at the dots into nested records (`jobs.get` is `get` in `jobs`).
 */

/** The operations whose declarations type the router: the fixed ones and the webhooks'. */
type TypedOperation = (typeof FIXED_OPERATIONS)[number] | (typeof WEBHOOK_OPERATIONS)[number];

/** The path an operation declares, if it declares one as a literal. */
type PathOf<Op> = Op extends { trpc?: { path: infer Path extends string } }
  ? string extends Path
    ? never
    : Path
  : never;

type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

type SpecRowSchemas = typeof extractionRowSchemas;
type PollOf<Row> = Row extends z.ZodType ? ReturnType<typeof typedExtractionPollSchema<Row>> : never;
type ResultsProcedure<Poll> = Poll extends z.ZodType
  ? ReturnType<
      typeof adaptedQueryOf<
        z.ZodType,
        z.ZodType,
        z.ZodType,
        z.ZodType,
        { batchId: string },
        z.output<Poll>,
        z.input<Poll>,
        { batchId: string }
      >
    >
  : never;
type ExtractionProcedure = ReturnType<
  typeof formProcedureOf<z.ZodType, z.ZodType, z.ZodType, typeof batchAcceptedSchema>
>;

/**
 * Every procedure by its path: the typed operations' and, from the registry's extraction
 * operations, the spec's tools typed by their rows (another tool's procedure is served at
 * `extraction.<tool in camelCase>` all the same, untyped here).
 */
type ProceduresByPath = {
  [Op in TypedOperation as PathOf<Op>]: ProcedureOf<Op>;
} & {
  [T in SpecExtractionTool as `extraction.${CamelCase<T>}`]: ExtractionProcedure;
} & {
  [T in SpecExtractionTool as `extraction.${CamelCase<T>}Results`]: ResultsProcedure<PollOf<SpecRowSchemas[T]>>;
};

type Head<Path> = Path extends `${infer First}.${string}` ? First : Path;

/** The procedures under `prefix.`, by the rest of their path. */
type Under<Procedures, Prefix extends string> = {
  [Path in keyof Procedures as Path extends `${Prefix}.${infer Rest}` ? Rest : never]: Procedures[Path];
};

/** Dotted paths as nested records. */
type Nested<Procedures> = {
  [Path in keyof Procedures as Head<Path>]: Path extends `${infer First}.${string}`
    ? Nested<Under<Procedures, First>>
    : Procedures[Path];
};

/** The table's procedures as the router takes them (AppRouter's record, but for jobs.watch and extraction.get). */
export type TableProcedures = Nested<ProceduresByPath>;

/** Procedures in nested records, as tRPC's router takes them. */
interface ProcedureTree {
  [key: string]: AnyProcedure | ProcedureTree;
}

const isProcedure = (node: AnyProcedure | ProcedureTree | undefined): node is AnyProcedure =>
  typeof node === 'function';

/** Each operation's procedure at its `trpc.path`; two at one path, or one under another, is an error. */
function placeProcedures(operations: readonly AnyOperation[], reserved: readonly string[]): ProcedureTree {
  const root: ProcedureTree = {};
  for (const operation of operations) {
    const path: string | undefined = operation.trpc?.path;
    if (path === undefined) continue;
    if (reserved.includes(path)) throw new Error(`tRPC: '${path}' (${operation.name}) is declared by the router`);
    const keys = path.split('.');
    const name = keys.pop() ?? path;
    let node = root;
    for (const key of keys) {
      const next: AnyProcedure | ProcedureTree = node[key] ?? {};
      if (isProcedure(next)) throw new Error(`tRPC: '${path}' (${operation.name}) is under a procedure`);
      node[key] = next;
      node = next;
    }
    if (Object.hasOwn(node, name)) throw new Error(`tRPC: two procedures at '${path}' (${operation.name} is one)`);
    node[name] = procedureOf(operation);
  }
  return root;
}

function procedureAt(tree: ProcedureTree, path: string): AnyProcedure | undefined {
  let node: AnyProcedure | ProcedureTree | undefined = tree;
  for (const key of path.split('.')) node = node && !isProcedure(node) ? node[key] : undefined;
  return isProcedure(node) ? node : undefined;
}

const kindOf = (operation: AnyOperation) =>
  operation.files === 'none' && operation.method === 'GET' ? 'query' : 'mutation';

/**
 * What TableProcedures says is at each path: the operation its meta names and its kind. A spec
 * tool's submit and poll come from the table (the registry makes them, installed or not).
 */
function expectedProcedures(operations: readonly AnyOperation[]) {
  const typed = [...FIXED_OPERATIONS, ...WEBHOOK_OPERATIONS].map((operation: AnyOperation) => ({
    path: operation.trpc?.path,
    operation,
  }));
  const tools = Object.keys(SPEC_EXTRACTION_TOOLS).flatMap((tool) => [
    { path: `extraction.${extractionSubmitName(tool)}`, rest: `/api/${tool}` },
    { path: `extraction.${extractionSubmitName(tool)}Results`, rest: `/api/${tool}/{id}` },
  ]);
  return [
    ...typed,
    ...tools.map(({ path, rest }) => ({ path, operation: operations.find((operation) => operation.path === rest) })),
  ];
}

/**
 * The placed procedures are what TableProcedures, read from the same declarations, says: each typed
 * operation's procedure at its path, serving it, of its kind. TypeScript cannot follow a record built
 * from the table's paths, so this check is where the router's type meets it (at every build).
 */
function servesTypedOperations(tree: ProcedureTree, operations: readonly AnyOperation[]): tree is TableProcedures {
  return expectedProcedures(operations).every(({ path, operation }) => {
    const procedure = path === undefined ? undefined : procedureAt(tree, path);
    return (
      operation !== undefined && operationOf(procedure) === operation.name && procedure?._def.type === kindOf(operation)
    );
  });
}

/** Declared here, not by an operation: tRPC's own (a subscription; a poll by tool name). */
const ROUTER_PROCEDURES = ['jobs.watch', 'extraction.get'];

/**
 * The router of a table (the registry's: see appRouterFor): each operation's procedure at its
 * declared path, and tRPC's own two.
 */
export function createAppRouter(operations: readonly AnyOperation[]) {
  const placed = placeProcedures(operations, ROUTER_PROCEDURES);
  if (!servesTypedOperations(placed, operations))
    throw new Error('tRPC: the table does not place its typed operations as declared');
  return router({
    ...placed,
    jobs: {
      ...placed.jobs,
      /** The job now, then every change; ends after done or failed. */
      watch: authedProcedure
        .input(z.object({ jobId: z.string().min(1) }))
        .subscription(({ ctx, input, signal }) => ctx.services.jobs.watch(ctx.principal, input.jobId, signal)),
    },
    /**
     * The extraction tools, one FormData procedure each (same rules as POST /api/<tool>): `files`
     * repeated, and the tool's fields as text (e.g. `query`, `wholeWord` for fileSearch). Then
     * `extraction.<tool>Results({ batchId })` (rows typed by the tool's row schema) or
     * `extraction.get({ tool, batchId })` (rows untyped) until done.
     */
    extraction: {
      ...placed.extraction,
      get: authedProcedure
        .input(BATCH_ID_INPUT.extend({ tool: z.string().min(1) }))
        .query(async ({ ctx, input }) =>
          extractionPollSchema.parse(await ctx.services.extractions.poll(ctx.principal, input.tool, input.batchId)),
        ),
    },
  });
}

export type AppRouter = ReturnType<typeof createAppRouter>;

/** The operation a procedure serves (its meta: ProcedureMeta), if any. */
function operationOf(procedure: unknown): string | undefined {
  const def: unknown = typeof procedure === 'function' && '_def' in procedure ? procedure._def : undefined;
  const meta: unknown = typeof def === 'object' && def !== null && 'meta' in def ? def.meta : undefined;
  if (typeof meta !== 'object' || meta === null || !('operation' in meta)) return undefined;
  return typeof meta.operation === 'string' ? meta.operation : undefined;
}

/** The operation the procedure at `path` serves (its meta), if any. */
export function operationAt(appRouter: AppRouter, path: string): string | undefined {
  const procedures: Record<string, unknown> = appRouter._def.procedures;
  return operationOf(procedures[path]);
}

const routers = new WeakMap<Services, AppRouter>();

/** The router of a server's registry: one per Services, with a procedure for each of its extraction tools. */
export function appRouterFor(services: Services): AppRouter {
  let appRouter = routers.get(services);
  if (!appRouter) {
    appRouter = createAppRouter(operationTable(services));
    routers.set(services, appRouter);
  }
  return appRouter;
}

/**
 * In-process calls (tests, scripts): `createCaller(createTrpcContext(services, await
 * services.accounts.authenticateKey('ck_live_...')))`.
 */
export function createCaller(context: TrpcContext) {
  return createCallerFactory(appRouterFor(context.services))(context);
}
