// Before agenda's code loads: its per-poll debug loggers are made once (agenda-debug.ts).
import '../agenda-debug.js';
import { toJobId, type JobParameters } from 'agenda';

/** A job as stored: dates are epoch milliseconds, `data` and `skip_days` are JSON text, booleans are 0/1. */
export interface JobRow {
  id: string;
  name: string;
  priority: number;
  type: 'normal' | 'single';
  next_run_at: number | null;
  locked_at: number | null;
  disabled: 0 | 1;
  data: string;
  last_run_at: number | null;
  last_finished_at: number | null;
  failed_at: number | null;
  fail_count: number | null;
  fail_reason: string | null;
  progress: number | null;
  repeat_interval: string | number | null;
  repeat_timezone: string | null;
  repeat_at: string | null;
  start_date: number | null;
  end_date: number | null;
  skip_days: string | null;
  debounce_started_at: number | null;
  fork: 0 | 1;
  last_modified_by: string | null;
}

export type SqlValue = string | number | null;

const SAFE_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function quoteTableName(tableName: string): string {
  if (!SAFE_IDENTIFIER.test(tableName)) {
    throw new Error(`Invalid table name "${tableName}": use letters, digits and underscores only`);
  }
  return `"${tableName}"`;
}

export function schemaStatements(tableName: string): string[] {
  const table = quoteTableName(tableName);
  return [
    // STRICT rejects values of the wrong type (e.g. an ISO string in a date column);
    // repeat_interval is ANY because Agenda accepts both '5 minutes' and 300000.
    `CREATE TABLE IF NOT EXISTS ${table} (
      id TEXT PRIMARY KEY NOT NULL,
      name TEXT NOT NULL,
      priority INTEGER NOT NULL DEFAULT 0,
      type TEXT NOT NULL DEFAULT 'normal' CHECK (type IN ('normal', 'single')),
      next_run_at INTEGER,
      locked_at INTEGER,
      disabled INTEGER NOT NULL DEFAULT 0,
      data TEXT NOT NULL DEFAULT 'null',
      last_run_at INTEGER,
      last_finished_at INTEGER,
      failed_at INTEGER,
      fail_count INTEGER,
      fail_reason TEXT,
      progress REAL,
      repeat_interval ANY,
      repeat_timezone TEXT,
      repeat_at TEXT,
      start_date INTEGER,
      end_date INTEGER,
      skip_days TEXT,
      debounce_started_at INTEGER,
      fork INTEGER NOT NULL DEFAULT 0,
      last_modified_by TEXT
    ) STRICT`,
    // Serves both branches of getNextJobToRun: (locked_at IS NULL, next_run_at <= ?) walks the
    // index already in (next_run_at, priority DESC) order; (locked_at <= ?) is a short range.
    `CREATE INDEX IF NOT EXISTS "${tableName}_next_job" ON ${table} (name, disabled, locked_at, next_run_at, ` +
      `priority DESC)`,
    // Makes `type: 'single'` jobs (agenda.every) one row per name, and gives the upsert its conflict target.
    `CREATE UNIQUE INDEX IF NOT EXISTS "${tableName}_single_name" ON ${table} (name) WHERE type = 'single'`,
  ];
}

export function toMillis(date: Date | null | undefined): number | null {
  return date == null ? null : new Date(date).getTime();
}

function toDate(millis: number | null): Date | undefined {
  return millis === null ? undefined : new Date(millis);
}

export function rowToJob(row: JobRow): JobParameters {
  return {
    _id: toJobId(row.id),
    name: row.name,
    priority: row.priority,
    type: row.type,
    nextRunAt: row.next_run_at === null ? null : new Date(row.next_run_at),
    lockedAt: toDate(row.locked_at),
    disabled: row.disabled === 1,
    data: JSON.parse(row.data) as unknown,
    lastRunAt: toDate(row.last_run_at),
    lastFinishedAt: toDate(row.last_finished_at),
    failedAt: toDate(row.failed_at),
    failCount: row.fail_count ?? undefined,
    failReason: row.fail_reason ?? undefined,
    progress: row.progress ?? undefined,
    repeatInterval: row.repeat_interval ?? undefined,
    repeatTimezone: row.repeat_timezone ?? undefined,
    repeatAt: row.repeat_at ?? undefined,
    startDate: toDate(row.start_date),
    endDate: toDate(row.end_date),
    skipDays: row.skip_days === null ? undefined : (JSON.parse(row.skip_days) as number[]),
    debounceStartedAt: toDate(row.debounce_started_at),
    fork: row.fork === 1,
    lastModifiedBy: row.last_modified_by ?? undefined,
  };
}

/**
 * Columns that `saveJob` writes on every save. They describe what the user scheduled;
 * `_id`, `unique` and `uniqueOpts` are never stored.
 */
export function scheduleColumns(job: JobParameters, lastModifiedBy: string | null): Record<string, SqlValue> {
  return {
    name: job.name,
    priority: job.priority ?? 0,
    type: job.type ?? 'normal',
    next_run_at: toMillis(job.nextRunAt),
    disabled: job.disabled ? 1 : 0,
    data: JSON.stringify(job.data ?? null),
    repeat_interval: job.repeatInterval ?? null,
    repeat_timezone: job.repeatTimezone ?? null,
    repeat_at: job.repeatAt ?? null,
    start_date: toMillis(job.startDate),
    end_date: toMillis(job.endDate),
    skip_days: job.skipDays ? JSON.stringify(job.skipDays) : null,
    debounce_started_at: toMillis(job.debounceStartedAt),
    fork: job.fork ? 1 : 0,
    last_modified_by: lastModifiedBy,
  };
}

/**
 * Run-state columns (Agenda's Job.PROCESSOR_MANAGED_FIELDS) belong to saveJobState.
 * `Job.save()` leaves them out, and an absent field must not wipe a running job's lock:
 * a worker re-registering `every()` at boot would otherwise release a lock another
 * worker holds and let the job run twice. So only the fields actually given are returned.
 */
export function givenRunStateColumns(job: JobParameters): Record<string, SqlValue> {
  const columns: Record<string, SqlValue> = {};
  if (job.lockedAt !== undefined) columns.locked_at = toMillis(job.lockedAt);
  if (job.lastRunAt !== undefined) columns.last_run_at = toMillis(job.lastRunAt);
  if (job.lastFinishedAt !== undefined) columns.last_finished_at = toMillis(job.lastFinishedAt);
  if (job.failedAt !== undefined) columns.failed_at = toMillis(job.failedAt);
  if (job.failCount !== undefined) columns.fail_count = job.failCount;
  if (job.failReason !== undefined) columns.fail_reason = job.failReason;
  if (job.progress !== undefined) columns.progress = job.progress;
  return columns;
}

/** Top-level job fields a `unique` constraint may name, mapped to their columns. */
export const UNIQUE_KEY_COLUMNS: Readonly<Record<string, string>> = {
  name: 'name',
  priority: 'priority',
  type: 'type',
  nextRunAt: 'next_run_at',
  lockedAt: 'locked_at',
  disabled: 'disabled',
  lastRunAt: 'last_run_at',
  lastFinishedAt: 'last_finished_at',
  failedAt: 'failed_at',
  failCount: 'fail_count',
  failReason: 'fail_reason',
  repeatInterval: 'repeat_interval',
  repeatTimezone: 'repeat_timezone',
  repeatAt: 'repeat_at',
  startDate: 'start_date',
  endDate: 'end_date',
  lastModifiedBy: 'last_modified_by',
};
