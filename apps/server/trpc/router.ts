/** The tRPC router: the REST surface's capabilities as procedures over the same services. */
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { z } from 'zod';
import { historyQuerySchema, signedUrlRequestSchema } from '../../../schema/index.js';
import { badRequest } from '../../../core/services/errors.js';
import type { Principal, Services } from '../../../core/services/index.js';
import type { StagedUpload } from '../../../core/services/uploads.js';
import { authedProcedure, createCallerFactory, router } from './trpc.js';

const jobInput = z.object({ jobId: z.string().min(1) });

/** How many files each FormData procedure's form may carry; plan gates come first, so these may throw FORBIDDEN. */
const FORM_FILE_LIMITS = {
  convert: () => 1,
  merge: (services: Services, principal: Principal) => services.jobs.admitMerge(principal),
  'batch.convert': (services: Services, principal: Principal) => services.batches.admit(principal),
};

/**
 * The file limit of the form procedure at `path`. The HTTP adapter asks before it reads a byte
 * of the body, the procedure before it stages a file, so a refused form is never read (as REST).
 */
export function formFileLimit(path: string, services: Services, principal: Principal): number {
  if (!Object.hasOwn(FORM_FILE_LIMITS, path)) throw badRequest(`'${path}' takes no form data`);
  return FORM_FILE_LIMITS[path as keyof typeof FORM_FILE_LIMITS](services, principal);
}

/** The convert form: the file, `to`, `op`, and the op's options as one JSON object string. */
const convertFormSchema = z.strictObject(
  {
    file: z.instanceof(File, { error: "Missing 'file': attach the file to convert" }),
    to: z.string().optional(),
    op: z.string().optional(),
    options: z.string().optional(),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? `Unexpected field '${issue.keys[0]}': send options as one JSON string in 'options'` : undefined) },
);

const unexpectedField = (hint: string) => (issue: { code: string; keys?: string[] }) =>
  issue.code === 'unrecognized_keys' ? `Unexpected field '${issue.keys?.[0]}': ${hint}` : undefined;

const filesField = z
  .array(z.instanceof(File, { error: "'files' must be files" }), { error: "Missing 'files': attach the files, repeating the field once per file" })
  .min(1, "Missing 'files': attach the files, repeating the field once per file");

/** The merge form: the PDFs as repeated `files`, merged in that order. */
const mergeFormSchema = z.strictObject({ files: filesField }, { error: unexpectedField("merge takes only 'files'") });

/** The batch form: the files as repeated `files`, one `to` and `op` for all, and `quality`. */
const batchFormSchema = z.strictObject(
  { files: filesField, to: z.string().optional(), op: z.string().optional(), quality: z.string().optional() },
  { error: unexpectedField("a batch takes 'files', 'to', 'op' and 'quality'") },
);

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

function stageFile(services: Services, principal: Principal, file: File): Promise<StagedUpload> {
  const { maxFileBytes } = services.accounts.limitsOf(principal.account);
  const stream = Readable.fromWeb(file.stream() as NodeReadableStream<Uint8Array>);
  return services.uploads.stage({ filename: file.name, stream }, maxFileBytes);
}

/** Stage files in the order sent, after checking their count; on failure the files staged so far go. */
async function stageFiles(services: Services, principal: Principal, files: File[], maxFiles: number): Promise<StagedUpload[]> {
  if (files.length > maxFiles) throw badRequest(`At most ${maxFiles} files per request`);
  const staged: StagedUpload[] = [];
  try {
    for (const file of files) staged.push(await stageFile(services, principal, file));
  } catch (error) {
    await services.uploads.discard(...staged);
    throw error;
  }
  return staged;
}

function parseOptionsField(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined || raw.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw badRequest('options must be a JSON object string');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('options must be a JSON object string');
  return value as Record<string, unknown>;
}

export const appRouter = router({
  credits: router({
    get: authedProcedure.query(({ ctx }) => ctx.services.credits.balance(ctx.principal.account)),
  }),
  jobs: router({
    get: authedProcedure.input(jobInput).query(({ ctx, input }) => ctx.services.jobs.status(ctx.principal, input.jobId)),
    /** The job now, then every change; ends after done or failed. */
    watch: authedProcedure.input(jobInput).subscription(({ ctx, input, signal }) => ctx.services.jobs.watch(ctx.principal, input.jobId, signal)),
  }),
  history: router({
    list: authedProcedure.input(historyQuerySchema.prefault({})).query(({ ctx, input }) => ctx.services.jobs.history(ctx.principal, input.limit, input.offset)),
  }),
  formats: router({
    list: authedProcedure.query(({ ctx }) => ({ conversions: ctx.services.registry.conversionTable(), operations: ctx.services.registry.operations() })),
  }),
  /** Same rules as POST /api/v1/convert. */
  convert: authedProcedure.input(z.instanceof(FormData)).mutation(async ({ ctx, input }) => {
    const parsed = convertFormSchema.safeParse(Object.fromEntries(input.entries()));
    if (!parsed.success) throw badRequest(parsed.error.issues[0]?.message ?? 'Invalid form');
    const { file, to, op, options } = parsed.data;
    const fields = parseOptionsField(options);
    const upload = await stageFile(ctx.services, ctx.principal, file);
    return ctx.services.jobs.accept(ctx.principal, { upload, to, op, fields, fieldsAreStrings: false, viaApi: true });
  }),
  /** Same rules as POST /api/pdf/merge. */
  merge: authedProcedure.input(z.instanceof(FormData)).mutation(async ({ ctx, input }) => {
    const maxFiles = formFileLimit('merge', ctx.services, ctx.principal);
    const { files } = parseForm(mergeFormSchema, input);
    const uploads = await stageFiles(ctx.services, ctx.principal, files, maxFiles);
    return ctx.services.jobs.acceptMerge(ctx.principal, uploads, true);
  }),
  batch: router({
    /** Same rules as POST /api/batch/convert; `quality` is read like the REST form field. */
    convert: authedProcedure.input(z.instanceof(FormData)).mutation(async ({ ctx, input }) => {
      const maxFiles = formFileLimit('batch.convert', ctx.services, ctx.principal);
      const { files, to, op, quality } = parseForm(batchFormSchema, input);
      const uploads = await stageFiles(ctx.services, ctx.principal, files, maxFiles);
      const fields = quality === undefined ? {} : { quality };
      return ctx.services.batches.accept(ctx.principal, { uploads, to, op, fields, fieldsAreStrings: true, viaApi: true });
    }),
    get: authedProcedure.input(z.object({ batchId: z.string().min(1) })).query(({ ctx, input }) => ctx.services.batches.status(ctx.principal, input.batchId)),
  }),
  signedUrl: router({
    create: authedProcedure.input(signedUrlRequestSchema).mutation(({ ctx, input }) => ctx.services.downloads.createSignedUrl(ctx.principal, input)),
  }),
});

export type AppRouter = typeof appRouter;

/** In-process calls (tests, scripts): `createCaller(createTrpcContext(services, 'Bearer ck_live_...'))`. */
export const createCaller = createCallerFactory(appRouter);
