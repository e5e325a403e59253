// Before agenda's code loads: its per-poll debug loggers are made once (agenda-debug.ts).
import '../agenda-debug.js';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import {
  computeJobState,
  type JobId,
  type JobParameters,
  type JobRepository,
  type JobRepositoryOptions,
  type JobsOverview,
  type JobsQueryOptions,
  type JobsResult,
  type JobsSort,
  type JobState,
  type JobWithState,
  type RemoveJobsOptions,
} from 'agenda';
import { acceptedLocks, heldLock, holdLock, lockCheckedSave, releaseQuietly } from '../held-lock.js';

/** The held-lock condition: the stored `locked_at` is one of `count` accepted values (null included). */
const lockedAtIn = (count: number) => `(${Array.from({ length: count }, () => 'locked_at IS ?').join(' OR ')})`;
import {
  Conditions,
  addDataFilter,
  addIdFilters,
  addNameFilters,
  addUniqueFilter,
  selectionConditions,
} from './filters.js';
import {
  givenRunStateColumns,
  quoteTableName,
  rowToJob,
  schemaStatements,
  scheduleColumns,
  toMillis,
  type JobRow,
  type SqlValue,
} from './schema.js';

export type SqliteConnectionOptions =
  /** A handle shared with the rest of the app: never closed by the backend. */
  | { database: Database.Database }
  /** A file the backend opens (in WAL mode) on connect and closes on disconnect. */
  | { path: string };

export type SqliteBackendOptions = SqliteConnectionOptions & {
  /** Default `agenda_jobs`. */
  tableName?: string;
  /**
   * How long a write waits for another process's write lock before failing. Applied to
   * owned connections, and to a shared handle only if it has none set. Default 5000.
   */
  busyTimeoutMs?: number;
};

const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/** Agenda's fetch order: earliest nextRunAt first, then highest priority. */
const NEXT_JOB_ORDER = 'ORDER BY next_run_at, priority DESC';

const SORT_COLUMNS: Record<keyof JobsSort, string> = {
  nextRunAt: 'next_run_at',
  lastRunAt: 'last_run_at',
  lastFinishedAt: 'last_finished_at',
  priority: 'priority',
  name: 'name',
  data: 'data',
};

/** Disabled jobs are reported as paused whatever their timestamps, so overview buckets add up to total. */
function stateOf(job: JobParameters, now: Date): JobState {
  return job.disabled ? 'paused' : computeJobState(job, now);
}

function orderByClause(sort: JobsSort | undefined): string {
  // Sort options may come from an HTTP query (a dashboard): unknown fields are ignored, never interpolated.
  const terms = Object.entries(sort ?? {})
    .filter(([field, direction]) => Object.hasOwn(SORT_COLUMNS, field) && direction !== undefined)
    .map(([field, direction]) => `${SORT_COLUMNS[field as keyof JobsSort]} ${direction === 'asc' ? 'ASC' : 'DESC'}`);
  const ordering = terms.length > 0 ? terms : ['next_run_at DESC', 'last_run_at DESC'];
  // rowid breaks ties so that skip/limit pages never overlap.
  return `ORDER BY ${[...ordering, 'rowid'].join(', ')}`;
}

export class SqliteJobRepository implements JobRepository {
  readonly ownsConnection: boolean;
  private readonly table: string;
  private readonly busyTimeoutMs: number;
  private connection: Database.Database | undefined;
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly options: SqliteBackendOptions) {
    this.ownsConnection = !('database' in options);
    this.table = quoteTableName(options.tableName ?? 'agenda_jobs');
    this.busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  }

  async connect(): Promise<void> {
    if (this.connection?.open) return;
    const connection = 'database' in this.options ? this.options.database : new Database(this.options.path);
    if (this.ownsConnection) {
      // The timeout first: switching to WAL itself needs a lock another process may hold.
      connection.pragma(`busy_timeout = ${this.busyTimeoutMs}`);
      // WAL lets readers proceed while one process writes; the setting is stored in the file.
      connection.pragma('journal_mode = WAL');
    } else if (connection.pragma('busy_timeout', { simple: true }) === 0) {
      connection.pragma(`busy_timeout = ${this.busyTimeoutMs}`);
    }
    connection
      .transaction(() => {
        for (const statement of schemaStatements(this.options.tableName ?? 'agenda_jobs')) connection.exec(statement);
      })
      .immediate();
    this.connection = connection;
  }

  async disconnect(): Promise<void> {
    this.statements.clear();
    if (this.ownsConnection) this.connection?.close();
    this.connection = undefined;
  }

  private get db(): Database.Database {
    if (!this.connection?.open) throw new Error('SqliteJobRepository is not connected');
    return this.connection;
  }

  /** Statements are cached by SQL text; dynamic SQL only varies by which filters are used. */
  private sql(source: string): Database.Statement {
    let statement = this.statements.get(source);
    if (!statement) {
      statement = this.db.prepare(source);
      this.statements.set(source, statement);
    }
    return statement;
  }

  /**
   * BEGIN IMMEDIATE takes SQLite's single write lock before the first read, so a
   * read-then-write sequence cannot interleave with another connection's write, in this
   * process or another. Callers must stay synchronous: a transaction never spans an await.
   */
  private writeTransaction<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  async getJobById(id: string): Promise<JobParameters | null> {
    const row = this.sql(`SELECT * FROM ${this.table} WHERE id = ?`).get(id) as JobRow | undefined;
    return row ? rowToJob(row) : null;
  }

  async queryJobs(options: JobsQueryOptions = {}): Promise<JobsResult> {
    const { state, skip = 0, limit = 0, includeDisabled = true } = options;
    const conditions = new Conditions();
    addNameFilters(conditions, options);
    addIdFilters(conditions, options);
    if (options.data !== undefined) addDataFilter(conditions, options.data);
    if (!includeDisabled) conditions.add('disabled = 0');
    const from = `FROM ${this.table} ${conditions.toWhere()}`;
    const select = `SELECT * ${from} ${orderByClause(options.sort)}`;
    const now = new Date();
    const withState = (row: JobRow): JobWithState => {
      const job = rowToJob(row);
      return { ...job, _id: job._id as JobId, state: stateOf(job, now) };
    };

    // States are computed from several timestamps, so a state filter is applied in memory.
    if (state) {
      const matching = (this.sql(select).all(...conditions.params) as JobRow[])
        .map(withState)
        .filter((job) => job.state === state);
      return { jobs: limit > 0 ? matching.slice(skip, skip + limit) : matching.slice(skip), total: matching.length };
    }
    const page = `${select} LIMIT ? OFFSET ?`;
    const rows = this.sql(page).all(...conditions.params, limit > 0 ? limit : -1, skip) as JobRow[];
    const { total } = this.sql(`SELECT COUNT(*) AS total ${from}`).get(...conditions.params) as { total: number };
    return { jobs: rows.map(withState), total };
  }

  async getJobsOverview(): Promise<JobsOverview[]> {
    const now = new Date();
    const overviews = new Map<string, JobsOverview>();
    for (const row of this.sql(`SELECT * FROM ${this.table} ORDER BY name`).iterate() as IterableIterator<JobRow>) {
      let overview = overviews.get(row.name);
      if (!overview) {
        overview = {
          name: row.name,
          total: 0,
          running: 0,
          scheduled: 0,
          queued: 0,
          completed: 0,
          failed: 0,
          repeating: 0,
          paused: 0,
        };
        overviews.set(row.name, overview);
      }
      overview.total++;
      overview[stateOf(rowToJob(row), now)]++;
    }
    return [...overviews.values()];
  }

  async getDistinctJobNames(): Promise<string[]> {
    return this.sql(`SELECT DISTINCT name FROM ${this.table} ORDER BY name`).pluck().all() as string[];
  }

  async getQueueSize(): Promise<number> {
    return this.sql(`SELECT COUNT(*) FROM ${this.table} WHERE next_run_at < ?`).pluck().get(Date.now()) as number;
  }

  async removeJobs(options: RemoveJobsOptions): Promise<number> {
    const conditions = selectionConditions(options);
    // No criterion means "nothing", never "everything": purgeAllJobs is the explicit way.
    if (conditions.isEmpty) return 0;
    return this.sql(`DELETE FROM ${this.table} ${conditions.toWhere()}`).run(...conditions.params).changes;
  }

  async disableJobs(options: RemoveJobsOptions): Promise<number> {
    return this.setDisabled(options, true);
  }

  async enableJobs(options: RemoveJobsOptions): Promise<number> {
    return this.setDisabled(options, false);
  }

  /** Counts only jobs whose flag actually changed, like MongoDB's modifiedCount. */
  private setDisabled(options: RemoveJobsOptions, disabled: boolean): number {
    const conditions = selectionConditions(options);
    if (conditions.isEmpty) return 0;
    conditions.add('disabled = ?', disabled ? 0 : 1);
    const sql = `UPDATE ${this.table} SET disabled = ? ${conditions.toWhere()}`;
    return this.sql(sql).run(disabled ? 1 : 0, ...conditions.params).changes;
  }

  async purgeAllJobs(): Promise<number> {
    return this.sql(`DELETE FROM ${this.table}`).run().changes;
  }

  /** Never rejects (releaseQuietly: Agenda leaves the release unawaited). */
  async unlockJob(job: JobParameters): Promise<void> {
    const id = job._id;
    if (!id) return;
    await releaseQuietly(() => {
      // A one-shot job that is running has nextRunAt null: its lock stays until it finishes. Only a lock this run
      // still holds is released (held-lock.ts).
      const held = heldLock(job);
      const sql = `UPDATE ${this.table} SET locked_at = NULL WHERE id = ? AND next_run_at IS NOT NULL`;
      if (!held) {
        this.sql(sql).run(id);
        return;
      }
      const accepted = acceptedLocks(held);
      this.sql(`${sql} AND ${lockedAtIn(accepted.length)}`).run(id, ...accepted.map(toMillis));
    });
  }

  async unlockJobs(jobIds: (JobId | string)[]): Promise<void> {
    if (jobIds.length === 0) return;
    const sql = `UPDATE ${this.table} SET locked_at = NULL WHERE id IN (SELECT value FROM json_each(?))`;
    this.sql(sql).run(JSON.stringify(jobIds.map(String)));
  }

  async lockJob(job: JobParameters, options?: JobRepositoryOptions): Promise<JobParameters | undefined> {
    if (!job._id) return undefined;
    const sql = `UPDATE ${this.table} SET locked_at = ?, last_modified_by = ?
      WHERE id = ? AND name = ? AND locked_at IS NULL AND next_run_at IS ? AND disabled = 0
      RETURNING *`;
    const params = [Date.now(), options?.lastModifiedBy ?? null, job._id, job.name, toMillis(job.nextRunAt)];
    const row = this.writeTransaction(() => this.sql(sql).get(...params) as JobRow | undefined);
    // Locked for a run if Agenda runs what lockJob locks: its saves are lock-checked too (held-lock.ts).
    return row ? holdLock(rowToJob(row)) : undefined;
  }

  async getNextJobToRun(
    jobName: string,
    nextScanAt: Date,
    lockDeadline: Date,
    now?: Date,
    options?: JobRepositoryOptions,
  ): Promise<JobParameters | undefined> {
    // A job is runnable when it is unlocked and due before the next scan, or when its lock
    // is older than the lock lifetime (its worker died). Each branch picks its best candidate
    // from the index, then the better of the two is locked, all in one statement.
    const due = 'name = ? AND disabled = 0 AND locked_at IS NULL AND next_run_at <= ?';
    const lockExpired = 'name = ? AND disabled = 0 AND locked_at <= ?';
    const sql = `UPDATE ${this.table} SET locked_at = ?, last_modified_by = ?
      WHERE id = (
        SELECT id FROM (
          SELECT * FROM (
            SELECT id, next_run_at, priority FROM ${this.table} WHERE ${due} ${NEXT_JOB_ORDER} LIMIT 1)
          UNION ALL
          SELECT * FROM (
            SELECT id, next_run_at, priority FROM ${this.table} WHERE ${lockExpired} ${NEXT_JOB_ORDER} LIMIT 1)
        ) ${NEXT_JOB_ORDER} LIMIT 1)
      RETURNING *`;
    const candidates = [jobName, nextScanAt.getTime(), jobName, lockDeadline.getTime()];
    // Polled for every job name every processEvery, and nearly always with nothing to run: a plain read answers that
    // without the write lock (nor the garbage of a transaction per name and poll: README, "Memory of the API process").
    const runnable = `SELECT EXISTS (SELECT 1 FROM ${this.table} WHERE ${due})
      OR EXISTS (SELECT 1 FROM ${this.table} WHERE ${lockExpired})`;
    if (
      !this.sql(runnable)
        .pluck()
        .get(...candidates)
    )
      return undefined;
    const params = [(now ?? new Date()).getTime(), options?.lastModifiedBy ?? null, ...candidates];
    const row = this.writeTransaction(() => this.sql(sql).get(...params) as JobRow | undefined);
    // Locked for a run: the run's saves apply only while this lock is still its (held-lock.ts).
    return row ? holdLock(rowToJob(row)) : undefined;
  }

  async saveJobState(job: JobParameters, options?: JobRepositoryOptions): Promise<void> {
    if (!job._id) throw new Error('Cannot save job state without job ID');
    const sql = `UPDATE ${this.table} SET locked_at = ?, next_run_at = ?, last_run_at = ?, progress = ?,
      fail_reason = ?, fail_count = ?, failed_at = ?, last_finished_at = ?, last_modified_by = ?
      WHERE id = ? AND name = ?`;
    const params = [
      toMillis(job.lockedAt),
      toMillis(job.nextRunAt),
      toMillis(job.lastRunAt),
      job.progress ?? null,
      job.failReason ?? null,
      job.failCount ?? null,
      toMillis(job.failedAt),
      toMillis(job.lastFinishedAt),
      options?.lastModifiedBy ?? null,
      job._id,
      job.name,
    ];
    const held = heldLock(job);
    if (held) {
      return lockCheckedSave(job, held, (accepted) => {
        const checked = this.sql(`${sql} AND ${lockedAtIn(accepted.length)}`);
        return checked.run(...params, ...accepted.map(toMillis)).changes === 1;
      });
    }
    const { changes } = this.sql(sql).run(...params);
    if (changes !== 1) {
      throw new Error(
        `job ${job._id} (name: ${job.name}) cannot be updated in the database, maybe it does not exist anymore?`,
      );
    }
  }

  async saveJob<DATA = unknown>(
    job: JobParameters<DATA>,
    options?: JobRepositoryOptions,
  ): Promise<JobParameters<DATA>> {
    const params = job as JobParameters;
    const lastModifiedBy = options?.lastModifiedBy ?? null;
    const columns = { ...scheduleColumns(params, lastModifiedBy), ...givenRunStateColumns(params) };
    let row: JobRow | undefined;
    if (params._id) {
      row = this.updateRow(params._id, params.name, columns);
      // Like the MongoDB backend: a job removed meanwhile is returned unchanged, not recreated.
      if (!row) return job;
    } else if (params.type === 'single') {
      row = this.upsertSingle(columns);
    } else if (params.unique) {
      const unique = params.unique;
      row = this.writeTransaction(() => this.saveUnique(params, unique, columns));
    } else {
      row = this.insertRow(columns);
    }
    return rowToJob(row) as JobParameters<DATA>;
  }

  private insertRow(columns: Record<string, SqlValue>): JobRow {
    const names = ['id', ...Object.keys(columns)];
    const placeholders = names.map(() => '?').join(', ');
    const sql = `INSERT INTO ${this.table} (${names.join(', ')}) VALUES (${placeholders}) RETURNING *`;
    return this.sql(sql).get(randomUUID(), ...Object.values(columns)) as JobRow;
  }

  private updateRow(id: string, name: string, columns: Record<string, SqlValue>): JobRow | undefined {
    const assignments = Object.keys(columns).map((column) => `${column} = ?`);
    const sql = `UPDATE ${this.table} SET ${assignments.join(', ')} WHERE id = ? AND name = ? RETURNING *`;
    return this.sql(sql).get(...Object.values(columns), id, name) as JobRow | undefined;
  }

  /**
   * One row per name for `type: 'single'` (what agenda.every() saves). A nextRunAt that is
   * already due ("run now") keeps the stored schedule, so re-registering a repeating job at
   * every boot does not make it run early; a null stored schedule is replaced.
   */
  private upsertSingle(columns: Record<string, SqlValue>): JobRow {
    const names = ['id', ...Object.keys(columns)];
    const keepStoredSchedule = columns.next_run_at !== null && (columns.next_run_at as number) <= Date.now();
    const updates = Object.keys(columns)
      .filter((column) => column !== 'name' && column !== 'type')
      .map((column) =>
        column === 'next_run_at' && keepStoredSchedule
          ? 'next_run_at = COALESCE(next_run_at, excluded.next_run_at)'
          : `${column} = excluded.${column}`,
      );
    const sql = `INSERT INTO ${this.table} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})
      ON CONFLICT (name) WHERE type = 'single' DO UPDATE SET ${updates.join(', ')}
      RETURNING *`;
    return this.sql(sql).get(randomUUID(), ...Object.values(columns)) as JobRow;
  }

  /** Runs inside a write transaction: the lookup and the insert/update are one atomic step. */
  private saveUnique(job: JobParameters, unique: Record<string, unknown>, columns: Record<string, SqlValue>): JobRow {
    const conditions = new Conditions().add('name = ?', job.name);
    addUniqueFilter(conditions, unique);
    const existing = this.sql(`SELECT * FROM ${this.table} ${conditions.toWhere()} ORDER BY rowid LIMIT 1`).get(
      ...conditions.params,
    ) as JobRow | undefined;
    const debounce = job.uniqueOpts?.debounce;
    if (existing && job.uniqueOpts?.insertOnly && !debounce) return existing;
    const scheduled = debounce
      ? { ...columns, ...debouncedSchedule(debounce, columns.next_run_at, existing, Date.now()) }
      : columns;
    return existing ? (this.updateRow(existing.id, existing.name, scheduled) as JobRow) : this.insertRow(scheduled);
  }
}

type Debounce = NonNullable<NonNullable<JobParameters['uniqueOpts']>['debounce']>;

/**
 * Debounce collapses repeated saves of one unique job into a single run.
 * - trailing (default): run `delay` ms after the last save, but no later than `maxWait`
 *   after the save that opened the window; a window closes once the job has run.
 * - leading: run at the save that opens the window; later saves within `delay` only
 *   update the data, and the first save after that opens a new window and runs again.
 */
function debouncedSchedule(
  debounce: Debounce,
  requestedRunAt: SqlValue | undefined,
  existing: JobRow | undefined,
  now: number,
): { next_run_at: SqlValue; debounce_started_at: number | null } {
  const startedAt = existing?.debounce_started_at ?? null;
  if (debounce.strategy === 'leading') {
    if (existing && startedAt !== null && now - startedAt < debounce.delay) {
      return { next_run_at: existing.next_run_at, debounce_started_at: startedAt };
    }
    return { next_run_at: requestedRunAt ?? now, debounce_started_at: now };
  }
  const ranSinceWindowOpened = startedAt !== null && existing?.last_run_at != null && existing.last_run_at >= startedAt;
  const windowStart = startedAt !== null && !ranSinceWindowOpened ? startedAt : now;
  if (debounce.maxWait === undefined) return { next_run_at: now + debounce.delay, debounce_started_at: windowStart };
  const deadline = windowStart + debounce.maxWait;
  // Past the deadline: run now and let the next save open a fresh window.
  if (now >= deadline) return { next_run_at: now, debounce_started_at: null };
  return { next_run_at: Math.min(now + debounce.delay, deadline), debounce_started_at: windowStart };
}
