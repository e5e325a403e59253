/**
 * The tRPC router: the REST surface's capabilities as procedures over the same services. It is
 * made per registry (appRouterFor), since every extract plugin adds a procedure; `AppRouter`, the
 * type clients import, names the spec's extraction tools (another tool's procedure is served at
 * `extraction.<tool in camelCase>` all the same).
 */
import { z } from 'zod';
import {
  WEBHOOK_LOG_SIZE,
  acceptedJobSchema,
  batchAcceptedSchema,
  batchStatusSchema,
  extractionPollSchema,
  extractionRowSchemas,
  formatsSchema,
  isSpecExtractionTool,
  type pipelineRequestSchema,
  typedExtractionPollSchema,
  webhookAttemptSchema,
  webhookEndpointSchema,
  webhookEndpointUpdateSchema,
  type SpecExtractionTool,
} from '../../../schema/index.js';
import { badRequest, type ServiceError } from '../../../core/services/errors.js';
import type { Principal, Services } from '../../../core/services/index.js';
import type { TrpcContext } from './context.js';
import {
  batchConvertOperation,
  cancelBatchOperation,
  cancelJobOperation,
  createSignedUrlOperation,
  getBatchOperation,
  getCreditsOperation,
  getHistoryOperation,
  getJobOperation,
  mergePdfOperation,
  submitBatch,
  submitConvert,
  submitMerge,
  submitOf,
  submitPipeline,
} from '../operations/table.js';
import { extractionSubmitName } from '../operations/extraction.js';
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
import { formOptions, jsonOptions, withQuality } from '../operations/options.js';
import { mutationOf, mutationWith, queryOf, queryWith, runOperation } from './operations.js';
import { authedProcedure, createCallerFactory, router } from './trpc.js';
import { stageFile, stageFiles } from './uploads.js';

const jobInput = z.object({ jobId: z.string().min(1) });
const batchInput = z.object({ batchId: z.string().min(1) });
const endpointInput = z.object({ id: z.string().min(1) });

/** How many files a form may carry, and the service's own refusal of one more (if it has one). */
export interface FormFileLimit {
  maxFiles: number;
  tooMany?: () => ServiceError;
}

type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;
const camelCase = <S extends string>(id: S) => id.replace(/-(.)/g, (_, c: string) => c.toUpperCase()) as CamelCase<S>;

/** Each FormData procedure's file limit; plan gates come first, so these may throw FORBIDDEN. */
const FORM_FILE_LIMITS: Record<string, (services: Services, principal: Principal) => FormFileLimit> = {
  convert: () => ({ maxFiles: 1 }),
  merge: (services, principal) => ({ maxFiles: mergePdfOperation.admit!(services, principal) }),
  'batch.convert': (services, principal) => ({ maxFiles: batchConvertOperation.admit!(services, principal) }),
  'pipelines.create': () => ({ maxFiles: 1 }),
};

/** The pipeline form: the input as `file`, the pipeline ({steps, export?}) as one JSON string in `pipeline`. */
const pipelineFormSchema = z.strictObject(
  {
    file: z.instanceof(File, { error: "'file' must be a file" }),
    pipeline: z.string({ error: "Missing 'pipeline': the pipeline as one JSON string" }),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `Unexpected field '${issue.keys[0]}': a pipeline form takes 'file' and 'pipeline'`
        : undefined,
  },
);

function extractionFileLimit(services: Services, principal: Principal, tool: string): FormFileLimit {
  return {
    maxFiles: services.extractions.admit(principal, tool),
    tooMany: () => services.extractions.tooManyFiles(principal, tool),
  };
}

/** The extraction tool behind the procedure at `path` (extraction.parseCv: parse-cv), if any. */
function extractionToolAt(path: string, services: Services): string | undefined {
  const name = /^extraction\.(\w+)$/.exec(path)?.[1];
  return name && name !== 'get'
    ? services.capabilities.extractionTools().find(({ tool }) => camelCase(tool) === name)?.tool
    : undefined;
}

/**
 * The file limit of the form procedure at `path`. The HTTP adapter asks before it reads a byte
 * of the body, the procedure before it stages a file, so a refused form is never read (as REST).
 */
export function formFileLimit(path: string, services: Services, principal: Principal): FormFileLimit {
  const tool = extractionToolAt(path, services);
  if (tool) return extractionFileLimit(services, principal, tool);
  if (!Object.hasOwn(FORM_FILE_LIMITS, path)) throw badRequest(`'${path}' takes no form data`);
  return FORM_FILE_LIMITS[path]!(services, principal);
}

/** The convert form: the file, `to`, `op`, and the op's options as one JSON object string. */
const convertFormSchema = z.strictObject(
  {
    file: z.instanceof(File, { error: "Missing 'file': attach the file to convert" }).optional(),
    url: z.string().optional(),
    to: z.string().optional(),
    op: z.string().optional(),
    options: z.string().optional(),
    webhookUrl: z.string().optional(),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `Unexpected field '${issue.keys[0]}': send options as one JSON string in 'options'`
        : undefined,
  },
);

const unexpectedField = (hint: string) => (issue: { code: string; keys?: string[] }) =>
  issue.code === 'unrecognized_keys' ? `Unexpected field '${issue.keys?.[0]}': ${hint}` : undefined;

const filesField = z
  .array(z.instanceof(File, { error: "'files' must be files" }), {
    error: "Missing 'files': attach the files, repeating the field once per file",
  })
  .min(1, "Missing 'files': attach the files, repeating the field once per file");

/** The merge form: the PDFs as repeated `files`, merged in that order. */
const mergeFormSchema = z.strictObject(
  { files: filesField, webhookUrl: z.string().optional() },
  { error: unexpectedField("merge takes only 'files' (and 'webhookUrl')") },
);

/**
 * The batch form: the files as repeated `files`, one `to` and `op` for all, and the op's options
 * as one JSON object string in `options` (as convert), or `quality` alone as text (as REST);
 * `export` the S3 export of the ZIP as a JSON string (as REST).
 */
const batchFormSchema = z.strictObject(
  {
    files: filesField,
    to: z.string().optional(),
    op: z.string().optional(),
    options: z.string().optional(),
    quality: z.string().optional(),
    webhookUrl: z.string().optional(),
    export: z.string().optional(),
  },
  { error: unexpectedField("a batch takes 'files', 'to', 'op', 'options', 'quality', 'webhookUrl' and 'export'") },
);

/** An extraction form: the files as repeated `files`, and the tool's own fields as text (as REST). */
const extractionFormSchema = z
  .object({ files: filesField })
  .catchall(z.string({ error: "Only 'files' may carry files; the tool's fields are text" }));

/** A form's fields for zod: `files` as the list of its repeated values, any other field as its value. */
function formFields(form: FormData): Record<string, unknown> {
  const fields: Record<string, unknown> = Object.fromEntries(form.entries());
  if (form.has('files')) fields.files = form.getAll('files');
  return fields;
}

function parseForm<T extends z.ZodType>(schema: T, form: FormData): z.infer<T> {
  const parsed = schema.safeParse(formFields(form));
  if (!parsed.success) throw badRequest(parsed.error.issues[0]?.message ?? 'Invalid form');
  return parsed.data;
}

function extractionProcedure(tool: string) {
  return authedProcedure
    .input(z.instanceof(FormData))
    .output(batchAcceptedSchema)
    .mutation(async ({ ctx, input }) => {
      const limit = extractionFileLimit(ctx.services, ctx.principal, tool);
      const { files, webhookUrl, ...fields } = parseForm(extractionFormSchema, input);
      const uploads = await stageFiles(ctx.services, ctx.principal, files, limit);
      const submit = submitOf(ctx.services, extractionSubmitName(tool));
      return submit(ctx.services, ctx.principal, {
        files: uploads,
        options: formOptions(fields),
        viaApi: true,
        webhookUrl,
      }) as never;
    });
}

type SpecRowSchemas = typeof extractionRowSchemas;

/**
 * A tool's poll (as GET /api/<tool>/{batchId}, operationId get<Tool>Results) with its rows typed
 * by `poll`: the service's rows are checked against the tool's row schema on the way out.
 */
function extractionResultsProcedure<Poll extends z.ZodType>(tool: string, poll: Poll) {
  return (
    authedProcedure
      .input(batchInput)
      .output(poll)
      // The service's poll types its rows loosely; `poll` checks them on the way out.
      .query(
        async ({ ctx, input }) => (await ctx.services.extractions.poll(ctx.principal, tool, input.batchId)) as never,
      )
  );
}

type PollOf<Row> = Row extends z.ZodType ? ReturnType<typeof typedExtractionPollSchema<Row>> : never;
type ResultsProcedure<Poll> = Poll extends z.ZodType ? ReturnType<typeof extractionResultsProcedure<Poll>> : never;
type ExtractionResultsProcedures = {
  [T in SpecExtractionTool as `${CamelCase<T>}Results`]: ResultsProcedure<PollOf<SpecRowSchemas[T]>>;
};

/**
 * Every tool's submit at `extraction.<tool>` and poll at `extraction.<tool>Results` (typed rows for the spec's tools).
 */
function extractionProcedures(extractionTools: readonly string[]) {
  const procedures: Record<string, unknown> = {};
  for (const tool of extractionTools) {
    const name = camelCase(tool);
    if (name === 'get' || Object.hasOwn(procedures, name) || Object.hasOwn(procedures, `${name}Results`))
      throw new Error(`tRPC: extraction tool '${tool}' clashes with another procedure`);
    procedures[name] = extractionProcedure(tool);
    procedures[`${name}Results`] = extractionResultsProcedure(
      tool,
      isSpecExtractionTool(tool) ? typedExtractionPollSchema(extractionRowSchemas[tool]) : extractionPollSchema,
    );
  }
  // Typed with the spec's tools; every tool of the registry is served the same way.
  return procedures as Record<CamelCase<SpecExtractionTool>, ReturnType<typeof extractionProcedure>> &
    ExtractionResultsProcedures;
}

/** A JSON pipeline, as `pipelineRequestSchema` takes it: any object here, checked by the pipeline service. */
const pipelineJsonInput = z.custom<z.input<typeof pipelineRequestSchema>>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof FormData),
);

/** The router for these extraction tools (the registry's: see appRouterFor). */
export function createAppRouter(extractionTools: readonly string[]) {
  return router({
    credits: router({
      get: queryOf(getCreditsOperation),
    }),
    jobs: router({
      get: queryWith(getJobOperation, getJobOperation.params!),
      /** The job now, then every change; ends after done or failed. */
      watch: authedProcedure
        .input(jobInput)
        .subscription(({ ctx, input, signal }) => ctx.services.jobs.watch(ctx.principal, input.jobId, signal)),
      /** As DELETE /api/v1/jobs/{id}. */
      cancel: mutationWith(cancelJobOperation, cancelJobOperation.params!),
    }),
    history: router({
      // Its input may be left out: every field has a default.
      list: queryWith(getHistoryOperation, getHistoryOperation.query!.prefault({})),
    }),
    formats: router({
      // An operation's `options` is typed unknown by the registry; formatsSchema checks it is a JSON Schema object.
      list: authedProcedure
        .output(formatsSchema)
        .query(({ ctx }) => ctx.services.capabilities.formats() as z.input<typeof formatsSchema>),
    }),
    /** Same rules as POST /api/v1/convert. */
    convert: authedProcedure
      .input(z.instanceof(FormData))
      .output(acceptedJobSchema)
      .mutation(async ({ ctx, input }) => {
        const parsed = convertFormSchema.safeParse(Object.fromEntries(input.entries()));
        if (!parsed.success) throw badRequest(parsed.error.issues[0]?.message ?? 'Invalid form');
        const { file, url, to, op, options, webhookUrl } = parsed.data;
        const decoded = jsonOptions(options);
        if (!file && url === undefined)
          throw badRequest("Missing 'file': attach the file to convert (or give its URL as 'url')");
        if (file && url !== undefined) throw badRequest("Send exactly one of 'file' and 'url'");
        const upload = file
          ? await stageFile(ctx.services, ctx.principal, file)
          : await ctx.services.uploads.importOne(ctx.principal, url!);
        return submitConvert(ctx.services, ctx.principal, {
          files: [upload],
          to,
          op,
          options: decoded,
          viaApi: true,
          webhookUrl,
        });
      }),
    /** Same rules as POST /api/pdf/merge. */
    merge: authedProcedure
      .input(z.instanceof(FormData))
      .output(acceptedJobSchema)
      .mutation(async ({ ctx, input }) => {
        const limit = formFileLimit('merge', ctx.services, ctx.principal);
        const { files, webhookUrl } = parseForm(mergeFormSchema, input);
        const uploads = await stageFiles(ctx.services, ctx.principal, files, limit);
        return submitMerge(ctx.services, ctx.principal, { files: uploads, viaApi: true, webhookUrl });
      }),
    batch: router({
      /**
       * Same rules as POST /api/batch/convert; `options` is read like convert's, `quality` like the REST form field.
       */
      convert: authedProcedure
        .input(z.instanceof(FormData))
        .output(batchAcceptedSchema)
        .mutation(async ({ ctx, input }) => {
          const limit = formFileLimit('batch.convert', ctx.services, ctx.principal);
          const {
            files,
            to,
            op,
            options,
            quality,
            webhookUrl,
            export: exportField,
          } = parseForm(batchFormSchema, input);
          const decoded = withQuality(jsonOptions(options), quality);
          const uploads = await stageFiles(ctx.services, ctx.principal, files, limit);
          return submitBatch(ctx.services, ctx.principal, {
            files: uploads,
            to,
            op,
            options: decoded,
            viaApi: true,
            webhookUrl,
            export: exportField,
          });
        }),
      // As GET and DELETE /api/batch/{id}, the batch named `batchId` here.
      get: authedProcedure
        .input(batchInput)
        .output(batchStatusSchema)
        .query(({ ctx, input }) => runOperation(getBatchOperation, ctx, { id: input.batchId })),
      cancel: authedProcedure
        .input(batchInput)
        .output(batchStatusSchema)
        .mutation(({ ctx, input }) => runOperation(cancelBatchOperation, ctx, { id: input.batchId })),
    }),
    /**
     * The extraction tools, one FormData procedure each (same rules as POST /api/<tool>): `files`
     * repeated, and the tool's fields as text (e.g. `query`, `wholeWord` for fileSearch). Then
     * `extraction.<tool>Results({ batchId })` (rows typed by the tool's row schema) or
     * `extraction.get({ tool, batchId })` (rows untyped) until done.
     */
    extraction: router({
      ...extractionProcedures(extractionTools),
      get: authedProcedure
        .input(batchInput.extend({ tool: z.string().min(1) }))
        .output(extractionPollSchema)
        .query(
          async ({ ctx, input }) =>
            (await ctx.services.extractions.poll(ctx.principal, input.tool, input.batchId)) as z.input<
              typeof extractionPollSchema
            >,
        ),
    }),
    /**
     * As POST /api/v1/pipelines: a JSON object {input: {url}, steps, export?}, or FormData with
     * `file` and `pipeline` (the same object as one JSON string, without input). Poll with jobs.get.
     */
    pipelines: router({
      create: authedProcedure
        // Typed for clients by the pipeline's zod; decoded by the pipeline service (its messages name the step).
        .input(z.union([z.instanceof(FormData), pipelineJsonInput]))
        .output(acceptedJobSchema)
        .mutation(async ({ ctx, input }) => {
          if (!(input instanceof FormData))
            return submitPipeline(ctx.services, ctx.principal, { files: [], pipeline: input, viaApi: true });
          const limit = formFileLimit('pipelines.create', ctx.services, ctx.principal);
          const { file, pipeline } = parseForm(pipelineFormSchema, input);
          const files = await stageFiles(ctx.services, ctx.principal, [file], limit);
          return submitPipeline(ctx.services, ctx.principal, { files, pipeline, viaApi: true });
        }),
    }),
    signedUrl: router({
      create: mutationWith(createSignedUrlOperation, createSignedUrlOperation.body!),
    }),
    /**
     * Beyond the spec (Pro and up): webhook endpoints, as REST /api/v1/webhooks. Secrets are in the answers of create,
     * rotateSecret and rotateDefaultSecret only.
     */
    webhooks: router({
      // Shapes kept from before the table (the list and log as arrays, the patch under `patch`, delete answered).
      list: authedProcedure
        .output(z.array(webhookEndpointSchema))
        .query(async ({ ctx }) => (await runOperation(listWebhookEndpointsOperation, ctx, {})).endpoints),
      get: queryWith(getWebhookEndpointOperation, getWebhookEndpointOperation.params!),
      create: mutationWith(createWebhookEndpointOperation, createWebhookEndpointOperation.body!),
      update: authedProcedure
        .input(endpointInput.extend({ patch: webhookEndpointUpdateSchema }))
        .output(webhookEndpointSchema)
        .mutation(({ ctx, input }) =>
          runOperation(updateWebhookEndpointOperation, ctx, { id: input.id, ...input.patch }),
        ),
      delete: authedProcedure
        .input(endpointInput)
        .output(z.object({ deleted: z.literal(true) }))
        .mutation(async ({ ctx, input }) => {
          await runOperation(deleteWebhookEndpointOperation, ctx, input);
          return { deleted: true as const };
        }),
      rotateSecret: mutationWith(rotateWebhookSecretOperation, rotateWebhookSecretOperation.params!),
      sendTest: mutationWith(sendTestWebhookOperation, sendTestWebhookOperation.params!),
      attempts: authedProcedure
        .input(endpointInput.extend({ limit: z.number().int().min(1).max(WEBHOOK_LOG_SIZE).default(WEBHOOK_LOG_SIZE) }))
        .output(z.array(webhookAttemptSchema))
        .query(async ({ ctx, input }) => (await runOperation(listWebhookAttemptsOperation, ctx, input)).attempts),
      rotateDefaultSecret: mutationOf(rotateDefaultWebhookSecretOperation),
    }),
  });
}

export type AppRouter = ReturnType<typeof createAppRouter>;

const routers = new WeakMap<Services, AppRouter>();

/** The router of a server's registry: one per Services, with a procedure for each of its extraction tools. */
export function appRouterFor(services: Services): AppRouter {
  let appRouter = routers.get(services);
  if (!appRouter) {
    appRouter = createAppRouter(services.capabilities.extractionTools().map(({ tool }) => tool));
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
