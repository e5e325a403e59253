/**
 * The tRPC router: the REST surface's capabilities as procedures over the same services. It is
 * made per registry (appRouterFor), since every extract plugin adds a procedure; `AppRouter`, the
 * type clients import, names the spec's extraction tools (another tool's procedure is served at
 * `extraction.<tool in camelCase>` all the same).
 */
import type { AnyProcedure } from '@trpc/server';
import { z } from 'zod';
import {
  WEBHOOK_LOG_SIZE,
  type batchAcceptedSchema,
  batchStatusSchema,
  extractionPollSchema,
  extractionRowSchemas,
  isSpecExtractionTool,
  type pipelineRequestSchema,
  typedExtractionPollSchema,
  webhookAttemptSchema,
  webhookEndpointSchema,
  webhookEndpointUpdateSchema,
  type SpecExtractionTool,
} from '../../../schema/index.js';
import { badRequest } from '../../../core/services/errors.js';
import type { Principal, Services } from '../../../core/services/index.js';
import type { TrpcContext } from './context.js';
import {
  batchConvertOperation,
  cancelBatchOperation,
  cancelJobOperation,
  convertOperation,
  createPipelineOperation,
  createSignedUrlOperation,
  getBatchOperation,
  getCreditsOperation,
  getFormatsOperation,
  getHistoryOperation,
  getJobOperation,
  mergePdfOperation,
  operationTable,
} from '../operations/table.js';
import { extractionSubmitName } from '../operations/extraction.js';
import type { AnyOperation } from '../operations/operation.js';
import { fileLimitOf } from '../operations/submission.js';
import {
  createWebhookEndpointOperation,
  deleteWebhookEndpointOperation,
  getWebhookEndpointOperation,
  listWebhookAttemptsOperation,
  listWebhookEndpointsOperation,
  rotateDefaultWebhookSecretOperation,
  rotateWebhookSecretOperation,
  sendTestWebhookOperation,
  updateWebhookEndpointOperation,
} from '../operations/webhooks.js';
import { NO_INPUT, adaptedMutationOf, adaptedQueryOf, formProcedureOf, mutationOf, queryOf } from './operations.js';
import { authedProcedure, createCallerFactory, router, type ProcedureMeta } from './trpc.js';

const jobInput = z.object({ jobId: z.string().min(1) });
const batchInput = z.object({ batchId: z.string().min(1) });
const endpointInput = z.object({ id: z.string().min(1) });

type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

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
type ExtractionResultsProcedures = {
  [T in SpecExtractionTool as `${CamelCase<T>}Results`]: ResultsProcedure<PollOf<SpecRowSchemas[T]>>;
};
type ExtractionProcedure = ReturnType<
  typeof formProcedureOf<z.ZodType, z.ZodType, z.ZodType, typeof batchAcceptedSchema>
>;

/**
 * Every tool's submit at `extraction.<tool>` and poll at `extraction.<tool>Results`, from the table's
 * extraction operations (typed rows for the spec's tools).
 */
function extractionProcedures(operations: readonly AnyOperation[]) {
  const procedures: Record<string, unknown> = {};
  const submits = operations.filter((operation) => /^\/api\/[^/]+$/.test(operation.path) && operation.submit);
  for (const operation of submits) {
    const tool = operation.path.slice('/api/'.length);
    const name = extractionSubmitName(tool);
    const poll = operations.find(({ path }) => path === `${operation.path}/{id}`);
    if (!poll) throw new Error(`tRPC: extraction tool '${tool}' has no poll`);
    if (name === 'get' || Object.hasOwn(procedures, name) || Object.hasOwn(procedures, `${name}Results`))
      throw new Error(`tRPC: extraction tool '${tool}' clashes with another procedure`);
    procedures[name] = formProcedureOf(operation);
    // Named `batchId` here, as the other batch procedures; the rows checked by the tool's poll zod on the way out.
    procedures[`${name}Results`] = adaptedQueryOf(poll, {
      input: batchInput,
      toInput: ({ batchId }) => ({ id: batchId }),
      output: isSpecExtractionTool(tool) ? typedExtractionPollSchema(extractionRowSchemas[tool]) : extractionPollSchema,
      answer: (rows) => rows,
    });
  }
  // Typed with the spec's tools; every tool of the registry is served the same way.
  return procedures as Record<CamelCase<SpecExtractionTool>, ExtractionProcedure> & ExtractionResultsProcedures;
}

/** A JSON pipeline, as `pipelineRequestSchema` takes it: any object here, checked by the pipeline service. */
const pipelineJsonInput = z.custom<z.input<typeof pipelineRequestSchema>>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof FormData),
);

/** The router of a table (the registry's: see appRouterFor): one procedure per operation. */
export function createAppRouter(operations: readonly AnyOperation[]) {
  return router({
    credits: router({
      get: queryOf(getCreditsOperation),
    }),
    jobs: router({
      get: queryOf(getJobOperation),
      /** The job now, then every change; ends after done or failed. */
      watch: authedProcedure
        .input(jobInput)
        .subscription(({ ctx, input, signal }) => ctx.services.jobs.watch(ctx.principal, input.jobId, signal)),
      /** As DELETE /api/v1/jobs/{id}. */
      cancel: mutationOf(cancelJobOperation),
    }),
    history: router({
      list: queryOf(getHistoryOperation),
    }),
    formats: router({
      list: queryOf(getFormatsOperation),
    }),
    /** Same rules as POST /api/v1/convert; the options as one JSON object string in `options`. */
    convert: formProcedureOf(convertOperation),
    /** Same rules as POST /api/pdf/merge. */
    merge: formProcedureOf(mergePdfOperation),
    batch: router({
      /** Same rules as POST /api/batch/convert; `options` is read like convert's, `quality` like the REST field. */
      convert: formProcedureOf(batchConvertOperation),
      // As GET and DELETE /api/batch/{id}, the batch named `batchId` here.
      get: adaptedQueryOf(getBatchOperation, {
        input: batchInput,
        toInput: ({ batchId }) => ({ id: batchId }),
        output: batchStatusSchema,
        answer: (status) => status,
      }),
      cancel: adaptedMutationOf(cancelBatchOperation, {
        input: batchInput,
        toInput: ({ batchId }) => ({ id: batchId }),
        output: batchStatusSchema,
        answer: (status) => status,
      }),
    }),
    /**
     * The extraction tools, one FormData procedure each (same rules as POST /api/<tool>): `files`
     * repeated, and the tool's fields as text (e.g. `query`, `wholeWord` for fileSearch). Then
     * `extraction.<tool>Results({ batchId })` (rows typed by the tool's row schema) or
     * `extraction.get({ tool, batchId })` (rows untyped) until done.
     */
    extraction: router({
      ...extractionProcedures(operations),
      get: authedProcedure
        .input(batchInput.extend({ tool: z.string().min(1) }))
        .query(async ({ ctx, input }) =>
          extractionPollSchema.parse(await ctx.services.extractions.poll(ctx.principal, input.tool, input.batchId)),
        ),
    }),
    /**
     * As POST /api/v1/pipelines: a JSON object {input: {url}, steps, export?}, or FormData with
     * `file` and `pipeline` (the same object as one JSON string, without input). Poll with jobs.get.
     */
    pipelines: router({
      // Typed for clients by the pipeline's zod; decoded by the pipeline service (its messages name the step).
      create: formProcedureOf(createPipelineOperation, pipelineJsonInput),
    }),
    signedUrl: router({
      create: mutationOf(createSignedUrlOperation),
    }),
    /**
     * Beyond the spec (Pro and up): webhook endpoints, as REST /api/v1/webhooks. Secrets are in the answers of create,
     * rotateSecret and rotateDefaultSecret only.
     */
    webhooks: router({
      // Shapes kept from before the table (the list and log as arrays, the patch under `patch`, delete answered).
      list: adaptedQueryOf(listWebhookEndpointsOperation, {
        input: NO_INPUT,
        output: z.array(webhookEndpointSchema),
        answer: ({ endpoints }) => endpoints,
      }),
      get: queryOf(getWebhookEndpointOperation),
      create: mutationOf(createWebhookEndpointOperation),
      update: adaptedMutationOf(updateWebhookEndpointOperation, {
        input: endpointInput.extend({ patch: webhookEndpointUpdateSchema }),
        toInput: ({ id, patch }) => ({ id, ...patch }),
        output: webhookEndpointSchema,
        answer: (endpoint) => endpoint,
      }),
      delete: adaptedMutationOf(deleteWebhookEndpointOperation, {
        input: endpointInput,
        output: z.object({ deleted: z.literal(true) }),
        answer: () => ({ deleted: true as const }),
      }),
      rotateSecret: mutationOf(rotateWebhookSecretOperation),
      sendTest: mutationOf(sendTestWebhookOperation),
      attempts: adaptedQueryOf(listWebhookAttemptsOperation, {
        input: endpointInput.extend({ limit: z.number().int().min(1).max(WEBHOOK_LOG_SIZE).default(WEBHOOK_LOG_SIZE) }),
        output: z.array(webhookAttemptSchema),
        answer: ({ attempts }) => attempts,
      }),
      rotateDefaultSecret: mutationOf(rotateDefaultWebhookSecretOperation),
    }),
  });
}

export type AppRouter = ReturnType<typeof createAppRouter>;

/** The operation the procedure at `path` serves (its meta), if any. */
export function operationAt(appRouter: AppRouter, path: string): string | undefined {
  const procedures: Record<string, unknown> = appRouter._def.procedures;
  const meta: unknown = (procedures[path] as AnyProcedure | undefined)?._def.meta;
  return (meta as ProcedureMeta | undefined)?.operation;
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
