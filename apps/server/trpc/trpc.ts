/**
 * tRPC set-up: one initTRPC, the error mapping (service errors become TRPCErrors whose codes mean
 * what the REST statuses mean; unexpected errors are masked) and the authenticated procedure.
 */
import { TRPCError, initTRPC, type TRPC_ERROR_CODE_KEY } from '@trpc/server';
import { ServiceError, expectedError, type ServiceErrorCode } from '../../../core/services/index.js';
import type { TrpcContext } from './context.js';

const TRPC_CODES: Record<ServiceErrorCode, TRPC_ERROR_CODE_KEY> = {
  BAD_REQUEST: 'BAD_REQUEST',
  UNAUTHENTICATED: 'UNAUTHORIZED',
  PAYMENT_REQUIRED: 'PAYMENT_REQUIRED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  // Only downloads answer 410, and they are not a procedure.
  GONE: 'NOT_FOUND',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  REQUEST_TIMEOUT: 'TIMEOUT',
  RATE_LIMITED: 'TOO_MANY_REQUESTS',
  CONFLICT: 'CONFLICT',
  UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  // tRPC has no 507: the nearest meaning, with `reason: 'insufficient_storage'` saying which.
  INSUFFICIENT_STORAGE: 'SERVICE_UNAVAILABLE',
};

export function toTRPCError(error: ServiceError): TRPCError {
  return new TRPCError({ code: TRPC_CODES[error.code], message: error.message, cause: error });
}

/** What a procedure says about itself: the operation of the table it serves (surfaces.test.ts reads it). */
export interface ProcedureMeta {
  operation?: string;
}

const t = initTRPC
  .context<TrpcContext>()
  .meta<ProcedureMeta>()
  .create({
    errorFormatter({ shape, error }) {
      const cause = error.cause instanceof ServiceError ? error.cause : undefined;
      const masked = error.code === 'INTERNAL_SERVER_ERROR';
      return {
        ...shape,
        message: masked ? 'Internal server error; try again' : shape.message,
        data: {
          code: shape.data.code,
          httpStatus: shape.data.httpStatus,
          path: shape.data.path,
          ...(cause?.detail.code ? { reason: cause.detail.code } : {}),
          ...(cause?.detail.retryAfterSeconds !== undefined
            ? { retryAfterSeconds: cause.detail.retryAfterSeconds }
            : {}),
        },
      };
    },
  });

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  typeof (value as AsyncIterable<unknown> | null)?.[Symbol.asyncIterator] === 'function';

/**
 * A subscription's stream with its service errors mapped too: they come after the procedure returned (e.g. NOT_FOUND on
 * the first read).
 */
async function* mapStreamErrors<T>(stream: AsyncIterable<T>, log: TrpcContext['log']): AsyncGenerator<T> {
  try {
    yield* stream;
  } catch (error) {
    const expected = expectedError(error, log);
    throw expected ? toTRPCError(expected) : error;
  }
}

/** Service errors, and backends that did not answer (SERVICE_UNAVAILABLE, logged as a warning), as TRPCErrors. */
const mapServiceErrors = t.middleware(async ({ ctx, type, next }) => {
  const result = await next();
  const expected = result.ok ? undefined : expectedError(result.error.cause, ctx.log);
  if (expected) throw toTRPCError(expected);
  if (result.ok && type === 'subscription' && isAsyncIterable(result.data))
    return { ...result, data: mapStreamErrors(result.data, ctx.log) };
  return result;
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Every procedure needs the API key, as every REST endpoint but download does. */
export const authedProcedure = t.procedure.use(mapServiceErrors).use(({ ctx, next }) => {
  if (ctx.caller instanceof ServiceError) throw ctx.caller;
  return next({ ctx: { principal: ctx.caller } });
});
