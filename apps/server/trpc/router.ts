/** The tRPC router: the REST surface's capabilities as procedures over the same services. */
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { z } from 'zod';
import { historyQuerySchema, signedUrlRequestSchema } from '../../../schema/index.js';
import { badRequest } from '../../../core/services/errors.js';
import { authedProcedure, createCallerFactory, router } from './trpc.js';

const jobInput = z.object({ jobId: z.string().min(1) });

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
    const { maxFileBytes } = ctx.services.accounts.limitsOf(ctx.principal.account);
    const stream = Readable.fromWeb(file.stream() as NodeReadableStream<Uint8Array>);
    const upload = await ctx.services.uploads.stage({ filename: file.name, stream }, maxFileBytes);
    return ctx.services.jobs.accept(ctx.principal, { upload, to, op, fields, fieldsAreStrings: false, viaApi: true });
  }),
  signedUrl: router({
    create: authedProcedure.input(signedUrlRequestSchema).mutation(({ ctx, input }) => ctx.services.downloads.createSignedUrl(ctx.principal, input)),
  }),
});

export type AppRouter = typeof appRouter;

/** In-process calls (tests, scripts): `createCaller(createTrpcContext(services, 'Bearer ck_live_...'))`. */
export const createCaller = createCallerFactory(appRouter);
