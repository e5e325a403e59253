/**
 * Which backing service an error came from, for the errors that do not say it themselves: a Node
 * system error (`connect ECONNREFUSED`) or an AWS SDK error looks the same whether it came from the
 * service's own database or object store or from a client's URL or export target. The clients of
 * the service's own backends mark theirs here (the PostgreSQL pools' connections, the S3 blob
 * store's client); core/services/unavailable.ts reads the mark to tell "our backend is down"
 * (503, retry) from anything else.
 */
export type Backend = 'PostgreSQL' | 'MongoDB' | 'SQLite' | 'S3';

const marks = new WeakMap<object, Backend>();

/** `err`, marked as `backend`'s (returned as it is, so it can be rethrown in place). */
export function markBackendError<T>(err: T, backend: Backend): T {
  if (typeof err === 'object' && err !== null && !marks.has(err)) marks.set(err, backend);
  return err;
}

/** The backend that marked `err`, if one did. */
export function markedBackend(err: unknown): Backend | undefined {
  return typeof err === 'object' && err !== null ? marks.get(err) : undefined;
}
