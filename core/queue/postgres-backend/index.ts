/**
 * Agenda on PostgreSQL (the scale-out mode), through @agendajs/postgres-backend, and its
 * cross-process dispatch: LISTEN/NOTIFY tells every worker at once about an entry saved by any
 * process, so a job accepted on one machine starts on another without waiting for a poll.
 * Polling (QUEUE_POLL_MS) stays as the safety net while the listening connection is down.
 */
// Before agenda's code loads: its per-poll debug loggers are made once (agenda-debug.ts).
import '../agenda-debug.js';
import {
  PostgresBackend,
  PostgresJobRepository,
  PostgresNotificationChannel,
  getCreateIndexesSQL,
  getCreateTableSQL,
  getUpdateTimestampTriggerSQL,
} from '@agendajs/postgres-backend';
import type { JobParameters, JobRepository, JobRepositoryOptions } from 'agenda';
import pg from 'pg';
import type { Logger } from '../../contract/index.js';
import { MarkedClient } from '../../store/postgres/db.js';
import { acceptedLocks, heldLock, holdLock, lockCheckedSave, releaseQuietly } from '../held-lock.js';

/** The held-lock condition: the stored `locked_at` is one of `count` accepted values, parameters from `$first` on. */
const lockedAtIn = (first: number, count: number) =>
  `(${Array.from({ length: count }, (_, i) => `locked_at IS NOT DISTINCT FROM $${first + i}`).join(' OR ')})`;

export const QUEUE_TABLE = 'agenda_jobs';
export const QUEUE_CHANNEL = 'transmute_agenda_jobs';
/** Any constant, not the store's: the lock processes take to create the queue's table. */
const SCHEMA_LOCK = 0x71756575; // 'queu'

/**
 * The queue's table and indexes, made once under an advisory lock (processes starting together
 * would otherwise race on CREATE ... IF NOT EXISTS). Adds the one index Agenda does not make: a
 * conversion job has at most one queue entry (whatever its plugin's entry name), so workers that
 * queue unfinished jobs again at the same moment cannot queue one twice: Agenda's unique save
 * reads, then inserts. Only conversion entries carry `data.jobId`.
 */
export async function prepareQueueSchema(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  // A connection that dies meanwhile fails the statement in flight; unheard, its 'error' event would crash the process.
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
    await client.query(getCreateTableSQL(QUEUE_TABLE));
    for (const sql of getCreateIndexesSQL(QUEUE_TABLE)) await client.query(sql);
    await client.query(getUpdateTimestampTriggerSQL(QUEUE_TABLE));
    await client.query(
      `CREATE UNIQUE INDEX IF NOT EXISTS ${QUEUE_TABLE}_one_entry_per_job ON ${QUEUE_TABLE} ((data->>'jobId')) WHERE ` +
        `data ? 'jobId'`,
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await client.end();
  }
}

/** The backend on `url`, with its own pool (the conversion queue's stop closes it). */
export async function createPostgresQueueBackend(
  url: string,
  options: { poolSize?: number } = {},
): Promise<PostgresBackend> {
  await prepareQueueSchema(url);
  return queueBackendOn(url, options);
}

/**
 * A pool that survives the server going away: an idle connection PostgreSQL drops (a restart, a
 * failover) is an 'error' event, which without a listener would crash the process. The pool
 * discards that connection and the next query opens another.
 */
function resilientPool(url: string, max: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    Client: MarkedClient,
    max,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
  });
  pool.on('error', () => undefined);
  return pool;
}

/** The published repository's row mapping (protected there). */
interface RowReader {
  rowToJob(row: unknown): JobParameters;
}

/**
 * The published repository with lock-checked saves (held-lock.ts): an entry locked for a run is tagged with the
 * `lockedAt` written, and the run's state saves and unlock apply only while the stored one is still that.
 */
class LockCheckedRepository extends PostgresJobRepository {
  override async getNextJobToRun(...claim: Parameters<JobRepository['getNextJobToRun']>) {
    // The lock time is a JavaScript Date (milliseconds), so the stored timestamp compares equal to it.
    return holdLock(await super.getNextJobToRun(...claim));
  }

  /**
   * The published statement, locking with a JavaScript Date rather than NOW() (microseconds, which the millisecond
   * Date read back would never equal), and tagged: Agenda 6.2.6 runs only what getNextJobToRun locks, but a version
   * that runs what lockJob locks keeps its saves lock-checked.
   */
  override async lockJob(
    job: JobParameters,
    options: JobRepositoryOptions | undefined,
  ): Promise<JobParameters | undefined> {
    if (!job._id) return undefined;
    const result = await this.getPool().query(
      `UPDATE "${QUEUE_TABLE}" SET locked_at = $5, last_modified_by = $4
        WHERE id = $1 AND name = $2 AND locked_at IS NULL AND next_run_at = $3 AND disabled = FALSE
        RETURNING *`,
      [job._id.toString(), job.name, job.nextRunAt, options?.lastModifiedBy || null, new Date()],
    );
    const row = result.rows[0];
    return row ? holdLock((this as unknown as RowReader).rowToJob(row)) : undefined;
  }

  override async saveJobState(job: JobParameters, options: JobRepositoryOptions | undefined): Promise<void> {
    const held = heldLock(job);
    if (!held || !job._id) return super.saveJobState(job, options);
    // The published statement, with the lock condition (from $12).
    const params = [
      job._id.toString(),
      job.lockedAt || null,
      job.nextRunAt || null,
      job.lastRunAt || null,
      job.progress ?? null,
      job.failReason ?? null,
      job.failCount ?? null,
      job.failedAt || null,
      job.lastFinishedAt || null,
      job.name,
      options?.lastModifiedBy || null,
    ];
    await lockCheckedSave(job, held, async (accepted) => {
      const result = await this.getPool().query(
        `UPDATE "${QUEUE_TABLE}" SET locked_at = $2, next_run_at = $3, last_run_at = $4, progress = $5,
          fail_reason = $6, fail_count = $7, failed_at = $8, last_finished_at = $9, last_modified_by = $11
          WHERE id = $1 AND name = $10 AND ${lockedAtIn(12, accepted.length)}`,
        [...params, ...accepted],
      );
      return result.rowCount === 1;
    });
  }

  /** Never rejects (releaseQuietly: Agenda leaves the release unawaited). */
  override async unlockJob(job: JobParameters): Promise<void> {
    await releaseQuietly(async () => {
      const held = heldLock(job);
      if (!held || !job._id) return super.unlockJob(job);
      const accepted = acceptedLocks(held);
      await this.getPool().query(
        `UPDATE "${QUEUE_TABLE}" SET locked_at = NULL
          WHERE id = $1 AND next_run_at IS NOT NULL AND ${lockedAtIn(2, accepted.length)}`,
        [job._id.toString(), ...accepted],
      );
    });
  }
}

/** The backend on its own resilient pool, which it closes when Agenda disconnects it. */
class QueueBackend extends PostgresBackend {
  /** Shares the pool with the published repository, which only connects it (no schema: prepareQueueSchema). */
  private readonly lockChecked: LockCheckedRepository;

  constructor(private readonly ownedPool: pg.Pool) {
    // Notifications are the dispatch channel's (postgresDispatchChannel), shared by no other Agenda.
    const config = { pool: ownedPool, tableName: QUEUE_TABLE, ensureSchema: false, disableNotifications: true };
    super(config);
    this.lockChecked = new LockCheckedRepository(config);
  }

  override get repository(): JobRepository {
    return this.lockChecked;
  }

  override get ownsConnection(): boolean {
    return true;
  }

  override async disconnect(): Promise<void> {
    await super.disconnect();
    if (!this.ownedPool.ended) await this.ownedPool.end();
  }
}

/** A backend on a database whose queue schema is prepared (prepareQueueSchema). */
export function queueBackendOn(url: string, options: { poolSize?: number } = {}): PostgresBackend {
  return new QueueBackend(resilientPool(url, options.poolSize ?? 5));
}

/** LISTEN/NOTIFY on a resilient pool of its own, closed when Agenda disconnects the channel. */
class DispatchChannel extends PostgresNotificationChannel {
  constructor(private readonly ownedPool: pg.Pool) {
    super({
      pool: ownedPool,
      channelName: QUEUE_CHANNEL,
      reconnect: { enabled: true, initialDelayMs: 250, maxDelayMs: 5_000, maxAttempts: Number.MAX_SAFE_INTEGER },
    });
  }

  override async disconnect(): Promise<void> {
    await super.disconnect();
    if (!this.ownedPool.ended) await this.ownedPool.end();
  }
}

/**
 * LISTEN/NOTIFY on its own connection. A broken connection (PostgreSQL restarting) reconnects by
 * itself with back-off while the workers keep polling: never fatal.
 */
export function postgresDispatchChannel(url: string, log: Logger): PostgresNotificationChannel {
  const channel = new DispatchChannel(resilientPool(url, 2));
  // An EventEmitter error without a listener would crash the process. One warning per outage,
  // not one per reconnection attempt.
  let down = false;
  channel.on('error', (err: Error) => {
    if (down) return;
    down = true;
    log.warn('queue LISTEN connection failed: dispatch falls back to polling until it reconnects', {
      error: err.message,
    });
  });
  channel.on('stateChange', (state: string) => {
    if (state !== 'connected' || !down) return;
    down = false;
    log.info('queue LISTEN connection restored');
  });
  log.info('queue dispatch across processes: PostgreSQL LISTEN/NOTIFY');
  return channel;
}
