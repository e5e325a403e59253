/** Jobs, batches and extraction results in PostgreSQL. */
import type pg from 'pg';
import type { BatchRepo, ChargedJob, JobRecord, JobRepo, JobsStore, NewJob } from '../types.js';
import {
  JOB_VIEW_COLUMNS,
  OPEN_EXPORT,
  batchFromRow,
  finishedJobFromRow,
  jobFromRow,
  jobViewFromRow,
  openExportFromRow,
  type Row,
} from '../sql/rows.js';
import { storedPipeline } from '../stored-pipeline.js';
import { chargeUsage, giveBack } from './credits.js';
import { type Queryable, all, changed, first, transaction } from './db.js';

const one = (row: Row | undefined) => (row ? jobFromRow(row) : null);

async function insertJob(db: Queryable, job: NewJob): Promise<JobRecord> {
  const row = await first(
    db,
    `INSERT INTO jobs (id, account_id, batch_id, kind, plugin_id, op, input_format, output_format, options, inputs,
      status, progress, credit_cost, credit_period, via_api, created_at, inputs_expire_at, pipeline)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'waiting', 0, $11, $12, $13, $14, $15, $16) RETURNING *`,
    [
      job.id,
      job.accountId,
      job.batchId ?? null,
      job.kind,
      job.pluginId,
      job.op,
      job.inputFormat,
      job.target,
      JSON.stringify(job.options),
      JSON.stringify(job.inputs),
      job.creditCost,
      job.creditPeriod,
      job.viaApi,
      job.createdAt,
      job.inputsExpireAt,
      job.pipeline ? JSON.stringify(storedPipeline(job.pipeline)) : null,
    ],
  );
  return jobFromRow(row!);
}

function jobRepo(pool: pg.Pool): JobRepo {
  return {
    async create(job) {
      return insertJob(pool, job);
    },
    async createCharged(job, limit) {
      return transaction(pool, async (client): Promise<ChargedJob> => {
        const charged = await chargeUsage(client, job.accountId, job.creditPeriod, job.creditCost, limit);
        return charged.ok ? { ...charged, job: await insertJob(client, job) } : charged;
      });
    },
    async get(id) {
      return one(await first(pool, 'SELECT * FROM jobs WHERE id = $1', [id]));
    },
    async view(id) {
      const row = await first(pool, `SELECT ${JOB_VIEW_COLUMNS} FROM jobs WHERE id = $1`, [id]);
      return row ? jobViewFromRow(row) : null;
    },
    async start(id, at) {
      return one(
        await first(
          pool,
          `UPDATE jobs SET status = 'active', attempts = attempts + 1, started_at = COALESCE(started_at, $1)
            WHERE id = $2 AND status IN ('waiting', 'active') RETURNING *`,
          [at, id],
        ),
      );
    },
    async setProgress(id, pct, attempt) {
      await pool.query(`UPDATE jobs SET progress = $1 WHERE id = $2 AND status = 'active' AND attempts = $3`, [
        pct,
        id,
        attempt,
      ]);
    },
    async setPipeline(id, pipeline, attempt) {
      await pool.query(
        `UPDATE jobs SET pipeline = $1 WHERE id = $2 AND status IN ('waiting', 'active') AND ($3::int IS NULL OR ` +
          `attempts = $3)`,
        [JSON.stringify(storedPipeline(pipeline)), id, attempt ?? null],
      );
    },
    async setImported(id, imported) {
      const count = await changed(
        pool,
        `UPDATE jobs SET inputs = $1, credit_cost = $2, pipeline = COALESCE($3, pipeline) WHERE id = $4 AND status = ` +
          `'active' AND ($5::int IS NULL OR attempts = $5)`,
        [
          JSON.stringify(imported.inputs),
          imported.creditCost,
          imported.pipeline ? JSON.stringify(storedPipeline(imported.pipeline)) : null,
          id,
          imported.attempt ?? null,
        ],
      );
      return count > 0;
    },
    async setExport(id, state) {
      await pool.query('UPDATE jobs SET export_state = $1 WHERE id = $2', [JSON.stringify(state), id]);
    },
    async listOpenExports() {
      return (await all(pool, `SELECT id, export_state FROM jobs WHERE ${OPEN_EXPORT}`)).map(openExportFromRow);
    },
    async complete(id, r) {
      const count = await changed(
        pool,
        `UPDATE jobs SET status = 'done', progress = 100, output = $1, download_token_hash = $2, tool_report = $3,
          completed_at = $4, output_expires_at = $5, result = $7
          WHERE id = $6 AND status = 'active'`,
        [
          JSON.stringify(r.output),
          r.downloadTokenHash ?? null,
          r.toolReport ? JSON.stringify(r.toolReport) : null,
          r.at,
          r.outputExpiresAt,
          id,
          r.result ? JSON.stringify(r.result) : null,
        ],
      );
      return count > 0;
    },
    async completeWithResult(id, r) {
      const count = await changed(
        pool,
        `UPDATE jobs SET status = 'done', progress = 100, result = $1, completed_at = $2 WHERE id = $3 AND status = ` +
          `'active'`,
        [JSON.stringify(r.result), r.at, id],
      );
      return count > 0;
    },
    async clearResultsBefore(before) {
      await pool.query('UPDATE jobs SET result = NULL WHERE result IS NOT NULL AND created_at < $1', [before]);
    },
    async fail(id, error, at, refundOf) {
      return transaction(pool, async (client) => {
        // FOR UPDATE: a concurrent fail (or completion) waits for this one, then finds the job ended.
        const row = await first(
          client,
          `SELECT * FROM jobs WHERE id = $1 AND status IN ('waiting', 'active') FOR UPDATE`,
          [id],
        );
        if (!row) return false;
        const given = refundOf(jobFromRow(row));
        await client.query(
          `UPDATE jobs SET status = 'failed', error = $1, completed_at = $2, refunded = $3 WHERE id = $4`,
          [error, at, Boolean(given && 'credits' in given), id],
        );
        await giveBack(client, String(row.account_id), given);
        return true;
      });
    },
    async listByAccount(accountId, limit, offset) {
      const total = Number((await first(pool, 'SELECT COUNT(*) AS n FROM jobs WHERE account_id = $1', [accountId]))!.n);
      const jobs = await all(
        pool,
        'SELECT * FROM jobs WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3',
        [accountId, limit, offset],
      );
      return { total, jobs: jobs.map(jobFromRow) };
    },
    async listByBatch(batchId) {
      return (await all(pool, 'SELECT * FROM jobs WHERE batch_id = $1 ORDER BY created_at, id', [batchId])).map(
        jobFromRow,
      );
    },
    async listUnfinished() {
      return (await all(pool, `SELECT * FROM jobs WHERE status IN ('waiting', 'active') ORDER BY created_at`)).map(
        jobFromRow,
      );
    },
    async waitingByPlugin() {
      const rows = await all(
        pool,
        `SELECT plugin_id, COUNT(*) AS n, MIN(created_at) AS oldest FROM jobs WHERE status = 'waiting' GROUP BY ` +
          `plugin_id ORDER BY plugin_id`,
      );
      return rows.map((r) => ({
        pluginId: String(r.plugin_id),
        count: Number(r.n),
        oldestAt: new Date(r.oldest as Date),
      }));
    },
    async listFinishedSince(since) {
      const rows = await all(
        pool,
        `SELECT id, account_id, batch_id, kind, status, completed_at FROM jobs
          WHERE completed_at IS NOT NULL AND completed_at >= $1 AND status IN ('done', 'failed') ORDER BY completed_at,
            id`,
        [since],
      );
      return rows.map(finishedJobFromRow);
    },
    async listInputsDue(now) {
      return (
        await all(pool, 'SELECT * FROM jobs WHERE inputs_expire_at <= $1 AND json_array_length(inputs) > 0', [now])
      ).map(jobFromRow);
    },
    async clearInputs(id) {
      await pool.query(`UPDATE jobs SET inputs = '[]' WHERE id = $1`, [id]);
    },
    async listOutputsDue(now) {
      return (await all(pool, 'SELECT * FROM jobs WHERE output IS NOT NULL AND output_expires_at <= $1', [now])).map(
        jobFromRow,
      );
    },
    async clearOutput(id) {
      await pool.query('UPDATE jobs SET output = NULL, download_token_hash = NULL WHERE id = $1', [id]);
    },
    async clearExpiredDownloadTokens(before) {
      await pool.query(
        'UPDATE jobs SET download_token_hash = NULL WHERE download_token_hash IS NOT NULL AND completed_at <= $1',
        [before],
      );
    },
    async extendOutput(id, until) {
      // GREATEST skips NULL: a job without an expiry gets `until`.
      await pool.query('UPDATE jobs SET output_expires_at = GREATEST(output_expires_at, $1) WHERE id = $2', [
        until,
        id,
      ]);
    },
  };
}

function batchRepo(pool: pg.Pool): BatchRepo {
  return {
    async create(b) {
      await pool.query(
        'INSERT INTO batches (id, account_id, tool, total, errors, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
        [b.id, b.accountId, b.tool, b.total, JSON.stringify(b.errors), b.createdAt],
      );
    },
    async get(id) {
      const row = await first(pool, 'SELECT * FROM batches WHERE id = $1', [id]);
      return row ? batchFromRow(row) : null;
    },
    async setExport(id, state) {
      await pool.query('UPDATE batches SET export_state = $1 WHERE id = $2', [JSON.stringify(state), id]);
    },
    async listOpenExports() {
      return (await all(pool, `SELECT id, export_state FROM batches WHERE ${OPEN_EXPORT}`)).map(openExportFromRow);
    },
  };
}

export function postgresJobs(pool: pg.Pool): JobsStore {
  return { jobs: jobRepo(pool), batches: batchRepo(pool) };
}
