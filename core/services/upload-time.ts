/**
 * How long a staged upload may wait for its job, and so when one no job holds is an orphan.
 *
 * A request's files are staged (`uploads/...` blobs) as they arrive and held by their job only once it is recorded;
 * in between, only their age protects them from the orphan sweep (retention.ts), which runs on every API process
 * and cannot see another process's requests. So every step in between is bounded:
 * - the body: UPLOAD_MAX_S from the request's first byte to its last (the HTTP server's request timeout), and
 *   UPLOAD_IDLE_S without a byte while it is read (every body: apps/server/body-idle.ts);
 * - acceptance (identify, measure, charge, record): a job is recorded only while its files are younger than
 *   `stagedUploadLimitMs`, else the request is refused and its files deleted (UploadService.checkStagedInTime).
 * The sweep then waits a margin longer than that limit, so it can never take a file a live request still needs.
 */

/**
 * The most acceptance may add to the body's time. A measure takes at most 30 s per file (work-limits.ts) and most
 * requests carry one file; under load a multi-file request may be refused here and is answered 503 (retry).
 */
export const ACCEPTANCE_MAX_MS = 5 * 60_000;

/**
 * What the sweep waits past the limit: the HTTP server checks its request timeout every 30 s (so a body may run
 * that much past UPLOAD_MAX_S), the job's record is written just after the check, and the blob store's clock
 * (an S3 object's Last-Modified) may differ from this process's by some seconds.
 */
export const ORPHAN_MARGIN_MS = 2 * 60_000;

/**
 * The spec deletes every upload within the hour; the purge runs every minute, so an orphan must fall due by 59
 * minutes (as RETENTION_S's maximum).
 */
const ORPHAN_AGE_MAX_MS = 3540 * 1000;

/**
 * The longest UPLOAD_MAX_S may be: an upload no job took must still go within the hour (52 minutes: 5 GB needs about
 * 1.6 MB/s).
 */
export const UPLOAD_MAX_S_LIMIT = (ORPHAN_AGE_MAX_MS - ACCEPTANCE_MAX_MS - ORPHAN_MARGIN_MS) / 1000;

/**
 * UPLOAD_MAX_S's default, 45 minutes: a Business plan's 5 GB file arrives in it at about 1.9 MB/s (15 Mbit/s, a
 * modest uplink); a slower client uploads by URL instead (`url`), which the server fetches itself.
 */
export const DEFAULT_UPLOAD_MAX_MS = 45 * 60_000;

/** UPLOAD_IDLE_S's default: a minute without a byte of the body (nginx's client_body_timeout is 60 s too). */
export const DEFAULT_UPLOAD_IDLE_MS = 60_000;

/** How old a staged file may be when its job is recorded: the body's deadline plus acceptance's. */
export function stagedUploadLimitMs(uploadMaxMs: number): number {
  return uploadMaxMs + ACCEPTANCE_MAX_MS;
}

/**
 * The age past which a staged upload no unfinished job holds is an orphan: never before any request could still
 * record a job with it, and never before the retention.
 */
export function orphanUploadAgeMs(retentionMs: number, uploadMaxMs: number): number {
  return Math.max(retentionMs, stagedUploadLimitMs(uploadMaxMs) + ORPHAN_MARGIN_MS);
}
