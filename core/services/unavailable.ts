/**
 * A backing service that did not answer (PostgreSQL restarting or unreachable, the S3-compatible
 * store's 5xx or network failure after the SDK's own retries, MongoDB without a reachable server,
 * the SQLite file busy): an UNAVAILABLE ServiceError (503 with Retry-After on every surface), so
 * clients and load balancers retry instead of reading a 500. Anything else is left to the caller.
 *
 * Errors are told by their shape: SQLSTATEs and node-postgres's own messages, MongoDB's error
 * classes and retryable codes, better-sqlite3's codes. A Node system error (ECONNREFUSED...) or an
 * AWS SDK error counts only when the service's own PostgreSQL pool or S3 blob store marked it
 * (core/store/backend-errors.ts): the same codes from a client's URL import, an export target or a
 * client that went away mid-upload are not an outage of ours (those paths answer their own 4xx).
 */
import { type Backend, markedBackend } from '../store/backend-errors.js';
import { ServiceError } from './errors.js';

/** What an UNAVAILABLE answer asks the client to wait, in seconds: about what a restart or failover takes. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** Network failures of a connection to one of our backends. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * SQLSTATEs of a server that cannot serve now: 57P01-57P03 (shutting down, crashed, starting up),
 * class 08 (connection exception) and class 53 (insufficient resources: too many connections, disk full).
 */
const POSTGRES_UNAVAILABLE = /^(57P0[123]|08...|53...)$/;

/** node-postgres's (pg, pg-pool) own errors for a connection that failed or went away. */
const POSTGRES_MESSAGES = [
  /^timeout exceeded when trying to connect$/,
  /^Connection terminated unexpectedly$/,
  /^Connection terminated due to connection timeout$/,
  /^Client has encountered a connection error and is not queryable$/,
];

/** The MongoDB driver's classes for a server it cannot reach or lost. */
const MONGO_UNAVAILABLE_NAMES = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
]);

/**
 * MongoDB server codes the drivers retry (shutdown, failover, network): HostUnreachable, HostNotFound,
 * NetworkTimeout, ShutdownInProgress, PrimarySteppedDown, SocketException, NotWritablePrimary,
 * InterruptedAtShutdown, InterruptedDueToReplStateChange, NotPrimaryNoSecondaryOk, NotPrimaryOrSecondary.
 */
const MONGO_RETRYABLE_CODES = new Set([6, 7, 89, 91, 189, 9001, 10107, 11600, 11602, 13435, 13436]);

type Shape = Error & {
  code?: unknown;
  severity?: unknown;
  errors?: unknown;
  $metadata?: { httpStatusCode?: number };
  $retryable?: unknown;
};

const hasNetworkCode = (err: Shape) =>
  NETWORK_CODES.has(err.code as string) ||
  // A host name with several addresses (localhost: ::1 and 127.0.0.1) fails as an AggregateError of each.
  (Array.isArray(err.errors) && err.errors.some((each: Shape) => NETWORK_CODES.has(each?.code as string)));

/** The backend `err` says is down by its own shape, or (for marked errors) by its network failure. */
function unavailableBackend(err: Shape, marked: Backend | undefined): Backend | undefined {
  if (typeof err.code === 'string' && typeof err.severity === 'string' && POSTGRES_UNAVAILABLE.test(err.code))
    return 'PostgreSQL';
  if (POSTGRES_MESSAGES.some((message) => message.test(err.message))) return 'PostgreSQL';
  if (err.name?.startsWith('Mongo')) {
    if (MONGO_UNAVAILABLE_NAMES.has(err.name) || MONGO_RETRYABLE_CODES.has(err.code as number)) return 'MongoDB';
    return undefined;
  }
  if (err.name === 'SqliteError' && /^SQLITE_(BUSY|LOCKED)/.test(String(err.code))) return 'SQLite';
  if (!marked) return undefined;
  if (hasNetworkCode(err)) return marked;
  if (marked === 'S3') {
    const status = err.$metadata?.httpStatusCode;
    if ((status !== undefined && status >= 500) || err.$retryable || err.name === 'TimeoutError') return marked;
  }
  return undefined;
}

const MESSAGES: Record<Backend, string> = {
  PostgreSQL: "The service's database did not answer; try again shortly",
  MongoDB: "The service's database did not answer; try again shortly",
  SQLite: "The service's database is busy; try again shortly",
  S3: "The service's file store did not answer; try again shortly",
};

/**
 * `err` as an UNAVAILABLE ServiceError (503, Retry-After) when it says one of the service's backends
 * did not answer, with `err` as its cause and the backend in its detail (for the log); undefined for
 * anything else, a ServiceError included. The error's causes are read too (pg-pool wraps a connect
 * timeout's).
 */
export function backendUnavailable(err: unknown): ServiceError | undefined {
  if (err instanceof ServiceError) return undefined;
  let marked: Backend | undefined;
  let link: unknown = err;
  for (let depth = 0; depth < 5 && link instanceof Error; depth++, link = link.cause) {
    marked ??= markedBackend(link);
    const backend = unavailableBackend(link, marked);
    if (backend) {
      return new ServiceError(
        'UNAVAILABLE',
        MESSAGES[backend],
        { retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS, backend },
        { cause: err },
      );
    }
  }
  return undefined;
}

/** A full disk, as Node (ENOSPC; EDQUOT: a quota) and SQLite (SQLITE_FULL) report it. */
const STORAGE_FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);

/**
 * `err` as an INSUFFICIENT_STORAGE ServiceError (507) when it says the server's disk is full (DATA_DIR's file system
 * while an upload or a run writes, or the SQLite file's); undefined otherwise. Causes are read too.
 */
export function storageFull(err: unknown): ServiceError | undefined {
  if (err instanceof ServiceError) return undefined;
  for (let depth = 0, link = err; depth < 5 && link instanceof Error; depth++, link = link.cause) {
    if (STORAGE_FULL_CODES.has(String((link as Shape).code))) {
      return new ServiceError(
        'INSUFFICIENT_STORAGE',
        "The server's disk is full: nothing was kept of this request; try again later",
        { code: 'insufficient_storage' },
        { cause: err },
      );
    }
  }
  return undefined;
}

/** A pino-style logger's warning (Fastify's request and app loggers). */
export interface WarningLog {
  warn(fields: object, message: string): void;
}

/**
 * What a surface answers for `err`: `err` itself when a ServiceError; INSUFFICIENT_STORAGE when the disk is full
 * (logged as a warning); UNAVAILABLE when one of the service's backends did not answer (logged as a warning naming
 * the backend, not as an unhandled error); undefined for anything unexpected (the surface's 500, logged as an error).
 */
export function expectedError(err: unknown, log?: WarningLog): ServiceError | undefined {
  if (err instanceof ServiceError) return err;
  const full = storageFull(err);
  if (full) {
    log?.warn({ err }, "the server's disk is full: the request is answered 507 (free space under DATA_DIR)");
    return full;
  }
  const unavailable = backendUnavailable(err);
  if (unavailable) {
    const { backend } = unavailable.detail;
    log?.warn({ backend, err }, `${backend} did not answer: the request is answered 503 (retry)`);
  }
  return unavailable;
}
