/**
 * Expected failures of the services, by meaning; each surface maps them (REST status,
 * GraphQL extensions.code, TRPCError code). The message is safe to show the client.
 */
export type ServiceErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHENTICATED'
  | 'PAYMENT_REQUIRED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'GONE'
  | 'PAYLOAD_TOO_LARGE'
  /** The request's body stopped arriving, or did not arrive within the server's time for one request. */
  | 'REQUEST_TIMEOUT'
  | 'RATE_LIMITED'
  | 'CONFLICT'
  /** A backing service (database, object store) did not answer: retry after `retryAfterSeconds` (unavailable.ts). */
  | 'UNAVAILABLE'
  /** The server's disk (DATA_DIR's file system, or the database's) is full: retry once an operator freed space. */
  | 'INSUFFICIENT_STORAGE';

export const HTTP_STATUS: Record<ServiceErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  PAYMENT_REQUIRED: 402,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  REQUEST_TIMEOUT: 408,
  RATE_LIMITED: 429,
  CONFLICT: 409,
  UNAVAILABLE: 503,
  INSUFFICIENT_STORAGE: 507,
};

export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  constructor(
    readonly code: ServiceErrorCode,
    message: string,
    /** Extra machine-readable detail, e.g. { code: 'trial_used' } or { retryAfterSeconds: 12 }. */
    readonly detail: {
      code?: string;
      retryAfterSeconds?: number;
      rate?: { limit: number; remaining: number; resetSeconds: number; windowSeconds: number };
      /** UNAVAILABLE: the backend that did not answer, for the log (never sent). */
      backend?: string;
    } = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export const badRequest = (message: string) => new ServiceError('BAD_REQUEST', message);
export const notFound = (message: string) => new ServiceError('NOT_FOUND', message);
export const forbidden = (message: string, code?: string) =>
  new ServiceError('FORBIDDEN', message, code ? { code } : {});
export const conflict = (message: string) => new ServiceError('CONFLICT', message);

/**
 * A value that may arrive as JSON text (a multipart field) or parsed already (a JSON body): parsed, or a 400 with
 * `hint`.
 */
export function jsonValue(raw: unknown, hint: string): unknown {
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw);
  } catch {
    throw badRequest(hint);
  }
}
