/** Jobs, batches and extraction results in SQLite. */
import type Database from 'better-sqlite3';

import type { NewJob, JobRepo, BatchRepo, JobsStore, RefundRule, ChargedJob } from '../types.js';
import { storedPipeline } from '../stored-pipeline.js';
import { charging, givingBack } from './credits.js';
import {
  type Row,
  OPEN_EXPORT,
  ms,
  JOB_VIEW_COLUMNS,
  jobFromRow,
  jobViewFromRow,
  finishedJobFromRow,
  batchFromRow,
  openExportFromRow,
} from '../sql/rows.js';

function jobRepo(db: Database.Database): JobRepo {
  const insert =
    db.prepare(`INSERT INTO jobs (id, account_id, batch_id, kind, plugin_id, op, input_format, output_format, options,
      inputs, status, progress,
      credit_cost, credit_period, via_api, created_at, inputs_expire_at, pipeline)
    VALUES (@id, @accountId, @batchId, @kind, @pluginId, @op, @inputFormat, @target, @options, @inputs,
      'waiting', 0,
      @creditCost, @creditPeriod, @viaApi, @createdAt, @inputsExpireAt, @pipeline)`);
  const setImported = db.prepare(
    `UPDATE jobs SET inputs = @inputs, credit_cost = @creditCost, pipeline = COALESCE(@pipeline, pipeline)
      WHERE id = @id AND status = 'active' AND (@attempt IS NULL OR attempts = @attempt)`,
  );
  const setPipeline = db.prepare(
    `UPDATE jobs SET pipeline = ? WHERE id = ? AND status IN ('waiting', 'active') AND (? IS NULL OR attempts = ?)`,
  );
  const setExport = db.prepare('UPDATE jobs SET export_state = ? WHERE id = ?');
  const openExports = db.prepare(`SELECT id, export_state FROM jobs WHERE ${OPEN_EXPORT}`);
  const waitingByPlugin = db.prepare(
    `SELECT plugin_id, COUNT(*) AS n, MIN(created_at) AS oldest FROM jobs WHERE status = 'waiting' GROUP BY ` +
      `plugin_id ORDER BY plugin_id`,
  );
  const byId = db.prepare('SELECT * FROM jobs WHERE id = ?');
  // Values in column order, not an object keyed by column names: a poll reads this every second per job in flight.
  const viewById = db.prepare(`SELECT ${JOB_VIEW_COLUMNS} FROM jobs WHERE id = ?`).raw(true);
  const start =
    db.prepare(`UPDATE jobs SET status = 'active', attempts = attempts + 1, started_at = COALESCE(started_at, ?)
    WHERE id = ? AND status IN ('waiting', 'active') RETURNING *`);
  const progress = db.prepare(`UPDATE jobs SET progress = ? WHERE id = ? AND status = 'active' AND attempts = ?`);
  const complete =
    db.prepare(`UPDATE jobs SET status = 'done', progress = 100, output = ?, download_token_hash = ?, tool_report = ?,
      completed_at = ?, output_expires_at = ?, result = ?
    WHERE id = ? AND status = 'active'`);
  const completeWithResult = db.prepare(
    `UPDATE jobs SET status = 'done', progress = 100, result = ?, completed_at = ? WHERE id = ? AND status = 'active'`,
  );
  const clearResults = db.prepare(`UPDATE jobs SET result = NULL WHERE result IS NOT NULL AND created_at < ?`);
  const unfinishedById = db.prepare(`SELECT * FROM jobs WHERE id = ? AND status IN ('waiting', 'active')`);
  const fail = db.prepare(
    `UPDATE jobs SET status = 'failed', error = ?, completed_at = ?, refunded = ?
      WHERE id = ? AND status IN ('waiting', 'active')`,
  );
  const giveBack = givingBack(db);
  // IMMEDIATE (below): the write lock from the read on, so no other process fails or changes the job in between.
  const failAndGiveBack = db.transaction((id: string, error: string, at: number | null, refundOf: RefundRule) => {
    const row = unfinishedById.get(id) as Row | undefined;
    if (!row) return false;
    const given = refundOf(jobFromRow(row));
    fail.run(error, at, given && 'credits' in given ? 1 : 0, id);
    giveBack.give(String(row.account_id), given);
    return true;
  });
  const { charge } = charging(db);
  const insertJob = (job: NewJob) =>
    insert.run({
      ...job,
      batchId: job.batchId ?? null,
      options: JSON.stringify(job.options),
      inputs: JSON.stringify(job.inputs),
      viaApi: job.viaApi ? 1 : 0,
      createdAt: ms(job.createdAt),
      inputsExpireAt: ms(job.inputsExpireAt),
      pipeline: job.pipeline ? JSON.stringify(storedPipeline(job.pipeline)) : null,
    });
  const chargeAndInsert = db.transaction((job: NewJob, limit: number | null): ChargedJob => {
    const charged = charge(job.accountId, job.creditPeriod, job.creditCost, limit);
    if (!charged.ok) return charged;
    insertJob(job);
    return { ...charged, job: jobFromRow(byId.get(job.id) as Row) };
  });
  const count = db.prepare('SELECT COUNT(*) AS n FROM jobs WHERE account_id = ?');
  const page = db.prepare('SELECT * FROM jobs WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?');
  const byBatch = db.prepare('SELECT * FROM jobs WHERE batch_id = ? ORDER BY created_at, id');
  const unfinished = db.prepare(`SELECT * FROM jobs WHERE status IN ('waiting', 'active') ORDER BY created_at`);
  const finishedSince =
    db.prepare(`SELECT id, account_id, batch_id, kind, status, completed_at FROM jobs WHERE completed_at IS NOT NULL
      AND completed_at >= ? AND status IN ('done', 'failed')
    ORDER BY completed_at, id`);
  const inputsDue = db.prepare(`SELECT * FROM jobs WHERE inputs_expire_at <= ? AND inputs != '[]'`);
  const clearInputs = db.prepare(`UPDATE jobs SET inputs = '[]' WHERE id = ?`);
  const outputsDue = db.prepare('SELECT * FROM jobs WHERE output IS NOT NULL AND output_expires_at <= ?');
  const clearOutput = db.prepare('UPDATE jobs SET output = NULL, download_token_hash = NULL WHERE id = ?');
  const clearTokens = db.prepare(
    'UPDATE jobs SET download_token_hash = NULL WHERE download_token_hash IS NOT NULL AND completed_at <= ?',
  );
  const extend = db.prepare('UPDATE jobs SET output_expires_at = MAX(COALESCE(output_expires_at, 0), ?) WHERE id = ?');
  const one = (row: unknown) => (row ? jobFromRow(row as Row) : null);
  return {
    async create(job: NewJob) {
      insertJob(job);
      return jobFromRow(byId.get(job.id) as Row);
    },
    async createCharged(job, limit) {
      return chargeAndInsert.immediate(job, limit);
    },
    async get(id) {
      return one(byId.get(id));
    },
    async view(id) {
      const values = viewById.get(id) as unknown[] | undefined;
      if (!values) return null;
      // In JOB_VIEW_COLUMNS's order.
      const [
        id_,
        accountId,
        status,
        progress,
        error,
        toolReport,
        output,
        tokenHash,
        completedAt,
        pipeline,
        exported,
        result,
      ] = values;
      return jobViewFromRow({
        id: id_,
        account_id: accountId,
        status,
        progress,
        error,
        tool_report: toolReport,
        output,
        download_token_hash: tokenHash,
        completed_at: completedAt,
        pipeline,
        export_state: exported,
        result,
      });
    },
    async start(id, at) {
      return one(start.get(ms(at), id));
    },
    async setProgress(id, pct, attempt) {
      progress.run(pct, id, attempt);
    },
    async setPipeline(id, pipeline, attempt) {
      setPipeline.run(JSON.stringify(storedPipeline(pipeline)), id, attempt ?? null, attempt ?? null);
    },
    async setImported(id, imported) {
      const { changes } = setImported.run({
        id,
        inputs: JSON.stringify(imported.inputs),
        creditCost: imported.creditCost,
        pipeline: imported.pipeline ? JSON.stringify(storedPipeline(imported.pipeline)) : null,
        attempt: imported.attempt ?? null,
      });
      return changes > 0;
    },
    async setExport(id, state) {
      setExport.run(JSON.stringify(state), id);
    },
    async listOpenExports() {
      return (openExports.all() as Row[]).map(openExportFromRow);
    },
    async complete(id, r) {
      return (
        complete.run(
          JSON.stringify(r.output),
          r.downloadTokenHash ?? null,
          r.toolReport ? JSON.stringify(r.toolReport) : null,
          ms(r.at),
          ms(r.outputExpiresAt),
          r.result ? JSON.stringify(r.result) : null,
          id,
        ).changes > 0
      );
    },
    async completeWithResult(id, r) {
      return completeWithResult.run(JSON.stringify(r.result), ms(r.at), id).changes > 0;
    },
    async clearResultsBefore(before) {
      clearResults.run(ms(before));
    },
    async fail(id, error, at, refundOf) {
      return failAndGiveBack.immediate(id, error, ms(at), refundOf);
    },
    async listByAccount(accountId, limit, offset) {
      const total = Number((count.get(accountId) as Row).n);
      return { total, jobs: (page.all(accountId, limit, offset) as Row[]).map(jobFromRow) };
    },
    async listByBatch(batchId) {
      return (byBatch.all(batchId) as Row[]).map(jobFromRow);
    },
    async listUnfinished() {
      return (unfinished.all() as Row[]).map(jobFromRow);
    },
    async waitingByPlugin() {
      return (waitingByPlugin.all() as Row[]).map((r) => ({
        pluginId: String(r.plugin_id),
        count: Number(r.n),
        oldestAt: new Date(Number(r.oldest)),
      }));
    },
    async listFinishedSince(since) {
      return (finishedSince.all(ms(since)) as Row[]).map(finishedJobFromRow);
    },
    async listInputsDue(now) {
      return (inputsDue.all(ms(now)) as Row[]).map(jobFromRow);
    },
    async clearInputs(id) {
      clearInputs.run(id);
    },
    async listOutputsDue(now) {
      return (outputsDue.all(ms(now)) as Row[]).map(jobFromRow);
    },
    async clearOutput(id) {
      clearOutput.run(id);
    },
    async clearExpiredDownloadTokens(before) {
      clearTokens.run(ms(before));
    },
    async extendOutput(id, until) {
      extend.run(ms(until), id);
    },
  };
}

function batchRepo(db: Database.Database): BatchRepo {
  const insert = db.prepare(
    'INSERT INTO batches (id, account_id, tool, total, errors, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const byId = db.prepare('SELECT * FROM batches WHERE id = ?');
  const setExport = db.prepare('UPDATE batches SET export_state = ? WHERE id = ?');
  const openExports = db.prepare(`SELECT id, export_state FROM batches WHERE ${OPEN_EXPORT}`);
  return {
    async create(b) {
      insert.run(b.id, b.accountId, b.tool, b.total, JSON.stringify(b.errors), ms(b.createdAt));
    },
    async get(id) {
      const r = byId.get(id) as Row | undefined;
      return r ? batchFromRow(r) : null;
    },
    async setExport(id, state) {
      setExport.run(JSON.stringify(state), id);
    },
    async listOpenExports() {
      return (openExports.all() as Row[]).map(openExportFromRow);
    },
  };
}

export function sqliteJobs(db: Database.Database): JobsStore {
  return { jobs: jobRepo(db), batches: batchRepo(db) };
}
