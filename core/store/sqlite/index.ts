/**
 * The embedded store: one SQLite file (WAL, so several processes can share it), via
 * better-sqlite3. Calls are synchronous and short; they are wrapped in promises to meet the ports.
 */
import Database from 'better-sqlite3';
import type { ToolReport } from '../../../schema/index.js';
import type {
  ExportRecord, PipelineRecord,
  Account, AccountRepo, ApiKeyRecord, BatchRepo, ChargeResult, DownloadTokenRecord, EmailTokenRecord, EmailTokenRepo, JobRecord, JobRepo, KeyRepo,
  LoginRecord, LoginRepo, NewJob, RateRepo, SessionRecord, SessionRepo, Store, StoredFile, TokenRepo, TrialRepo, UsageRecord, UsageRepo, WebhookAccountSecretRepo, WebhookAttemptRecord, WebhookAttemptRepo,
  WebhookDeliveryRecord, WebhookDeliveryRepo, WebhookEndpointRecord, WebhookEndpointRepo, WebhookTargetRepo,
} from '../types.js';
import { deliveryTarget } from '../types.js';
import { ACCOUNTS_IN_THE_BROWSER, HASHED_DOWNLOAD_TOKENS, JOBS_FINISHED_INDEX, PIPELINE_JOBS, SCHEMA, WEBHOOKS } from './schema.js';

type Row = Record<string, unknown>;

const toDate = (v: unknown): Date | null => (v === null || v === undefined ? null : new Date(Number(v)));
const ms = (d: Date | null | undefined): number | null => (d ? d.getTime() : null);
const json = <T>(v: unknown): T => JSON.parse(String(v)) as T;

function accountFromRow(r: Row): Account {
  return {
    id: String(r.id),
    plan: r.plan as Account['plan'],
    email: (r.email as string | null) ?? null,
    emailVerified: r.email_verified === 1,
    overageEnabled: r.overage_enabled === 1,
    creditsIncluded: (r.credits_included as number | null) ?? null,
    requestsPerMinute: (r.requests_per_minute as number | null) ?? null,
    createdAt: toDate(r.created_at)!,
  };
}

function keyFromRow(r: Row): ApiKeyRecord {
  return {
    id: String(r.id), accountId: String(r.account_id), hash: String(r.hash), prefix: String(r.prefix),
    createdAt: toDate(r.created_at)!, revokedAt: toDate(r.revoked_at), name: (r.name as string | null) ?? null, lastUsedAt: toDate(r.last_used_at),
  };
}

function loginFromRow(r: Row): LoginRecord {
  return {
    email: String(r.email), accountId: String(r.account_id), passwordHash: String(r.password_hash), createdAt: toDate(r.created_at)!, updatedAt: toDate(r.updated_at)!,
  };
}

function sessionFromRow(r: Row): SessionRecord {
  return { hash: String(r.hash), accountId: String(r.account_id), csrfHash: String(r.csrf_hash), createdAt: toDate(r.created_at)!, expiresAt: toDate(r.expires_at)! };
}

function emailTokenFromRow(r: Row): EmailTokenRecord {
  return { hash: String(r.hash), accountId: String(r.account_id), email: String(r.email), createdAt: toDate(r.created_at)!, expiresAt: toDate(r.expires_at)! };
}

function jobFromRow(r: Row): JobRecord {
  return {
    id: String(r.id),
    accountId: String(r.account_id),
    batchId: (r.batch_id as string | null) ?? null,
    kind: r.kind as JobRecord['kind'],
    pluginId: String(r.plugin_id),
    op: (r.op as string | null) ?? null,
    inputFormat: r.input_format as JobRecord['inputFormat'],
    outputFormat: r.output_format as JobRecord['outputFormat'],
    options: json(r.options),
    inputs: json(r.inputs),
    status: r.status as JobRecord['status'],
    progress: Number(r.progress),
    error: (r.error as string | null) ?? null,
    toolReport: r.tool_report ? json<ToolReport>(r.tool_report) : null,
    output: r.output ? json<StoredFile>(r.output) : null,
    result: r.result ? json<Record<string, unknown>>(r.result) : null,
    downloadTokenHash: (r.download_token_hash as string | null) ?? null,
    creditCost: Number(r.credit_cost),
    creditPeriod: String(r.credit_period),
    refunded: r.refunded === 1,
    viaApi: r.via_api === 1,
    attempts: Number(r.attempts),
    createdAt: toDate(r.created_at)!,
    startedAt: toDate(r.started_at),
    completedAt: toDate(r.completed_at),
    inputsExpireAt: toDate(r.inputs_expire_at)!,
    outputExpiresAt: toDate(r.output_expires_at),
    ...(r.pipeline ? { pipeline: json<PipelineRecord>(r.pipeline) } : {}),
    ...(r.export_state ? { export: json<ExportRecord>(r.export_state) } : {}),
  };
}

function tokenFromRow(r: Row): DownloadTokenRecord {
  return {
    hash: String(r.hash), jobId: String(r.job_id), kind: r.kind as DownloadTokenRecord['kind'], reusable: r.reusable === 1,
    expiresAt: toDate(r.expires_at)!, consumedAt: toDate(r.consumed_at), createdAt: toDate(r.created_at)!,
  };
}

export function openSqliteDatabase(path: string): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // Several processes (server + workers) share the file: writers wait for each other.
  db.pragma('busy_timeout = 10000');
  db.pragma('foreign_keys = ON');
  migrate(db);
  return db;
}

/**
 * Schema versions, applied in order and recorded in `PRAGMA user_version`. Append a step for
 * every change (ALTER TABLE ... ADD COLUMN, new index); never edit a step that has shipped.
 */
const MIGRATIONS: readonly string[] = [SCHEMA, HASHED_DOWNLOAD_TOKENS, WEBHOOKS, JOBS_FINISHED_INDEX, ACCOUNTS_IN_THE_BROWSER, PIPELINE_JOBS];
/** Steps that blank what an older version stored in clear: a file they upgraded is rebuilt. */
const SCRUBBING_STEPS: readonly number[] = [1];

function migrate(db: Database.Database): void {
  let from = 0;
  // IMMEDIATE: two processes opening a fresh file must not both apply a step.
  db.transaction(() => {
    from = Number(db.pragma('user_version', { simple: true }));
    for (let step = from; step < MIGRATIONS.length; step++) db.exec(MIGRATIONS[step]!);
    if (from < MIGRATIONS.length) db.pragma(`user_version = ${MIGRATIONS.length}`);
  }).immediate();
  if (from > 0 && SCRUBBING_STEPS.some((step) => step >= from)) {
    // Blanked values survive in freed page space: VACUUM rewrites every page, and the
    // checkpoint moves them into the file and empties the WAL, which held old pages too.
    db.exec('VACUUM');
    db.pragma('wal_checkpoint(TRUNCATE)');
  }
}

export class SqliteStore implements Store {
  readonly accounts: AccountRepo;
  readonly keys: KeyRepo;
  readonly logins: LoginRepo;
  readonly sessions: SessionRepo;
  readonly emailTokens: EmailTokenRepo;
  readonly jobs: JobRepo;
  readonly batches: BatchRepo;
  readonly trials: TrialRepo;
  readonly tokens: TokenRepo;
  readonly usage: UsageRepo;
  readonly rates: RateRepo;
  readonly webhookEndpoints: WebhookEndpointRepo;
  readonly webhookSecrets: WebhookAccountSecretRepo;
  readonly webhookDeliveries: WebhookDeliveryRepo;
  readonly webhookAttempts: WebhookAttemptRepo;
  readonly webhookTargets: WebhookTargetRepo;

  constructor(readonly db: Database.Database) {
    this.accounts = accountRepo(db);
    this.keys = keyRepo(db);
    this.logins = loginRepo(db);
    this.sessions = sessionRepo(db);
    this.emailTokens = emailTokenRepo(db);
    this.jobs = jobRepo(db);
    this.batches = batchRepo(db);
    this.trials = trialRepo(db);
    this.tokens = tokenRepo(db);
    this.usage = usageRepo(db);
    this.rates = rateRepo(db);
    this.webhookEndpoints = webhookEndpointRepo(db);
    this.webhookSecrets = webhookSecretRepo(db);
    this.webhookDeliveries = webhookDeliveryRepo(db);
    this.webhookAttempts = webhookAttemptRepo(db);
    this.webhookTargets = webhookTargetRepo(db);
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

function accountRepo(db: Database.Database): AccountRepo {
  const insert = db.prepare(`INSERT INTO accounts (id, plan, email, email_verified, overage_enabled, credits_included, requests_per_minute, created_at)
    VALUES (@id, @plan, @email, @emailVerified, @overageEnabled, @creditsIncluded, @requestsPerMinute, @createdAt)`);
  const byId = db.prepare('SELECT * FROM accounts WHERE id = ?');
  const columns: Record<string, string> = {
    plan: 'plan', email: 'email', emailVerified: 'email_verified', overageEnabled: 'overage_enabled',
    creditsIncluded: 'credits_included', requestsPerMinute: 'requests_per_minute',
  };
  return {
    async create(a) {
      insert.run({ ...a, emailVerified: a.emailVerified ? 1 : 0, overageEnabled: a.overageEnabled ? 1 : 0, createdAt: ms(a.createdAt) });
    },
    async get(id) {
      const row = byId.get(id) as Row | undefined;
      return row ? accountFromRow(row) : null;
    },
    async update(id, patch) {
      const entries = Object.entries(patch).filter(([k, v]) => v !== undefined && columns[k]);
      if (!entries.length) return;
      const values = entries.map(([, v]) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));
      db.prepare(`UPDATE accounts SET ${entries.map(([k]) => `${columns[k]} = ?`).join(', ')} WHERE id = ?`).run(...values, id);
    },
  };
}

function keyRepo(db: Database.Database): KeyRepo {
  const insert = db.prepare('INSERT INTO api_keys (id, account_id, hash, prefix, created_at, name, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const byHash = db.prepare('SELECT * FROM api_keys WHERE hash = ? AND revoked_at IS NULL');
  const byAccount = db.prepare('SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at, id');
  const revoke = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE hash = ? AND revoked_at IS NULL');
  const revokeById = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND account_id = ? AND revoked_at IS NULL');
  const markUsed = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)');
  return {
    async create(k) {
      insert.run(k.id, k.accountId, k.hash, k.prefix, ms(k.createdAt), k.name ?? null, ms(k.lastUsedAt));
    },
    async revokeById(accountId, id, at) {
      return revokeById.run(ms(at), id, accountId).changes > 0;
    },
    async markUsed(id, at, staleBefore) {
      markUsed.run(ms(at), id, ms(staleBefore));
    },
    async findActiveByHash(hash) {
      const row = byHash.get(hash) as Row | undefined;
      return row ? keyFromRow(row) : null;
    },
    async listByAccount(accountId) {
      return (byAccount.all(accountId) as Row[]).map(keyFromRow);
    },
    async revokeByHash(hash, at) {
      return revoke.run(ms(at), hash).changes > 0;
    },
  };
}

function loginRepo(db: Database.Database): LoginRepo {
  const insert = db.prepare(`INSERT INTO logins (email, account_id, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (email) DO NOTHING`);
  const byEmail = db.prepare('SELECT * FROM logins WHERE email = ?');
  const byAccount = db.prepare('SELECT * FROM logins WHERE account_id = ?');
  const setHash = db.prepare('UPDATE logins SET password_hash = ?, updated_at = ? WHERE account_id = ?');
  return {
    async create(l) {
      return insert.run(l.email, l.accountId, l.passwordHash, ms(l.createdAt), ms(l.updatedAt)).changes > 0;
    },
    async findByEmail(email) {
      const row = byEmail.get(email) as Row | undefined;
      return row ? loginFromRow(row) : null;
    },
    async getByAccount(accountId) {
      const row = byAccount.get(accountId) as Row | undefined;
      return row ? loginFromRow(row) : null;
    },
    async setPasswordHash(accountId, passwordHash, at) {
      return setHash.run(passwordHash, ms(at), accountId).changes > 0;
    },
  };
}

function sessionRepo(db: Database.Database): SessionRepo {
  const insert = db.prepare('INSERT INTO sessions (hash, account_id, csrf_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)');
  const active = db.prepare('SELECT * FROM sessions WHERE hash = ? AND expires_at > ?');
  const extend = db.prepare('UPDATE sessions SET expires_at = MAX(expires_at, ?) WHERE hash = ?');
  const remove = db.prepare('DELETE FROM sessions WHERE hash = ?');
  const removeByAccount = db.prepare('DELETE FROM sessions WHERE account_id = ?');
  const expired = db.prepare('DELETE FROM sessions WHERE expires_at <= ?');
  return {
    async create(s) {
      insert.run(s.hash, s.accountId, s.csrfHash, ms(s.createdAt), ms(s.expiresAt));
    },
    async findActive(hash, now) {
      const row = active.get(hash, ms(now)) as Row | undefined;
      return row ? sessionFromRow(row) : null;
    },
    async extend(hash, expiresAt) {
      extend.run(ms(expiresAt), hash);
    },
    async delete(hash) {
      remove.run(hash);
    },
    async deleteByAccount(accountId) {
      return removeByAccount.run(accountId).changes;
    },
    async deleteExpired(now) {
      return expired.run(ms(now)).changes;
    },
  };
}

function emailTokenRepo(db: Database.Database): EmailTokenRepo {
  const insert = db.prepare('INSERT INTO email_tokens (hash, account_id, email, created_at, expires_at) VALUES (?, ?, ?, ?, ?)');
  // One statement takes the row: two clicks on the same link cannot both verify.
  const take = db.prepare('DELETE FROM email_tokens WHERE hash = ? RETURNING *');
  const removeByAccount = db.prepare('DELETE FROM email_tokens WHERE account_id = ?');
  const expired = db.prepare('DELETE FROM email_tokens WHERE expires_at <= ?');
  return {
    async create(t) {
      insert.run(t.hash, t.accountId, t.email, ms(t.createdAt), ms(t.expiresAt));
    },
    async consume(hash, now) {
      const row = take.get(hash) as Row | undefined;
      const token = row ? emailTokenFromRow(row) : null;
      return token && token.expiresAt > now ? token : null;
    },
    async deleteByAccount(accountId) {
      return removeByAccount.run(accountId).changes;
    },
    async deleteExpired(now) {
      return expired.run(ms(now)).changes;
    },
  };
}

function jobRepo(db: Database.Database): JobRepo {
  const insert = db.prepare(`INSERT INTO jobs (id, account_id, batch_id, kind, plugin_id, op, input_format, output_format, options, inputs, status, progress,
      credit_cost, credit_period, via_api, created_at, inputs_expire_at, pipeline)
    VALUES (@id, @accountId, @batchId, @kind, @pluginId, @op, @inputFormat, @outputFormat, @options, @inputs, 'waiting', 0,
      @creditCost, @creditPeriod, @viaApi, @createdAt, @inputsExpireAt, @pipeline)`);
  const setPipeline = db.prepare(`UPDATE jobs SET pipeline = ? WHERE id = ? AND status IN ('waiting', 'active')`);
  const setExport = db.prepare('UPDATE jobs SET export_state = ? WHERE id = ?');
  const byId = db.prepare('SELECT * FROM jobs WHERE id = ?');
  const start = db.prepare(`UPDATE jobs SET status = 'active', attempts = attempts + 1, started_at = COALESCE(started_at, ?)
    WHERE id = ? AND status IN ('waiting', 'active') RETURNING *`);
  const progress = db.prepare(`UPDATE jobs SET progress = ? WHERE id = ? AND status = 'active'`);
  const complete = db.prepare(`UPDATE jobs SET status = 'done', progress = 100, output = ?, download_token_hash = ?, tool_report = ?, completed_at = ?, output_expires_at = ?
    WHERE id = ? AND status = 'active'`);
  const completeWithResult = db.prepare(`UPDATE jobs SET status = 'done', progress = 100, result = ?, completed_at = ? WHERE id = ? AND status = 'active'`);
  const clearResults = db.prepare(`UPDATE jobs SET result = NULL WHERE result IS NOT NULL AND created_at < ?`);
  const fail = db.prepare(`UPDATE jobs SET status = 'failed', error = ?, completed_at = ? WHERE id = ? AND status IN ('waiting', 'active')`);
  const refund = db.prepare('UPDATE jobs SET refunded = 1 WHERE id = ? AND refunded = 0');
  const count = db.prepare('SELECT COUNT(*) AS n FROM jobs WHERE account_id = ?');
  const page = db.prepare('SELECT * FROM jobs WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?');
  const byBatch = db.prepare('SELECT * FROM jobs WHERE batch_id = ? ORDER BY created_at, id');
  const unfinished = db.prepare(`SELECT * FROM jobs WHERE status IN ('waiting', 'active') ORDER BY created_at`);
  const finishedSince = db.prepare(`SELECT id, account_id, batch_id, kind, status, completed_at FROM jobs WHERE completed_at IS NOT NULL AND completed_at >= ? AND status IN ('done', 'failed')
    ORDER BY completed_at, id`);
  const inputsDue = db.prepare(`SELECT * FROM jobs WHERE inputs_expire_at <= ? AND inputs != '[]'`);
  const clearInputs = db.prepare(`UPDATE jobs SET inputs = '[]' WHERE id = ?`);
  const outputsDue = db.prepare('SELECT * FROM jobs WHERE output IS NOT NULL AND output_expires_at <= ?');
  const clearOutput = db.prepare('UPDATE jobs SET output = NULL, download_token_hash = NULL WHERE id = ?');
  const clearTokens = db.prepare('UPDATE jobs SET download_token_hash = NULL WHERE download_token_hash IS NOT NULL AND completed_at <= ?');
  const extend = db.prepare('UPDATE jobs SET output_expires_at = MAX(COALESCE(output_expires_at, 0), ?) WHERE id = ?');
  const one = (row: unknown) => (row ? jobFromRow(row as Row) : null);
  return {
    async create(job: NewJob) {
      insert.run({
        ...job, batchId: job.batchId ?? null, options: JSON.stringify(job.options), inputs: JSON.stringify(job.inputs), viaApi: job.viaApi ? 1 : 0,
        createdAt: ms(job.createdAt), inputsExpireAt: ms(job.inputsExpireAt), pipeline: job.pipeline ? JSON.stringify(job.pipeline) : null,
      });
      return jobFromRow(byId.get(job.id) as Row);
    },
    async get(id) {
      return one(byId.get(id));
    },
    async start(id, at) {
      return one(start.get(ms(at), id));
    },
    async setProgress(id, pct) {
      progress.run(pct, id);
    },
    async setPipeline(id, pipeline) {
      setPipeline.run(JSON.stringify(pipeline), id);
    },
    async setExport(id, state) {
      setExport.run(JSON.stringify(state), id);
    },
    async complete(id, r) {
      return complete.run(JSON.stringify(r.output), r.downloadTokenHash ?? null, r.toolReport ? JSON.stringify(r.toolReport) : null, ms(r.at), ms(r.outputExpiresAt), id).changes > 0;
    },
    async completeWithResult(id, r) {
      return completeWithResult.run(JSON.stringify(r.result), ms(r.at), id).changes > 0;
    },
    async clearResultsBefore(before) {
      clearResults.run(ms(before));
    },
    async fail(id, error, at) {
      return fail.run(error, ms(at), id).changes > 0;
    },
    async markRefunded(id) {
      return refund.run(id).changes > 0;
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
    async listFinishedSince(since) {
      return (finishedSince.all(ms(since)) as Row[]).map((r) => ({
        id: String(r.id), accountId: String(r.account_id), batchId: (r.batch_id as string | null) ?? null, kind: r.kind as JobRecord['kind'],
        status: r.status as JobRecord['status'], completedAt: toDate(r.completed_at)!,
      }));
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
  const insert = db.prepare('INSERT INTO batches (id, account_id, tool, total, errors, created_at) VALUES (?, ?, ?, ?, ?, ?)');
  const byId = db.prepare('SELECT * FROM batches WHERE id = ?');
  return {
    async create(b) {
      insert.run(b.id, b.accountId, b.tool, b.total, JSON.stringify(b.errors), ms(b.createdAt));
    },
    async get(id) {
      const r = byId.get(id) as Row | undefined;
      return r ? { id: String(r.id), accountId: String(r.account_id), tool: (r.tool as string | null) ?? null, total: Number(r.total), errors: json(r.errors), createdAt: toDate(r.created_at)! } : null;
    },
  };
}

function trialRepo(db: Database.Database): TrialRepo {
  const claim = db.prepare('INSERT INTO trials (account_id, tool, claimed_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING');
  const release = db.prepare('DELETE FROM trials WHERE account_id = ? AND tool = ?');
  return {
    async claim(accountId, tool, at) {
      return claim.run(accountId, tool, ms(at)).changes > 0;
    },
    async release(accountId, tool) {
      release.run(accountId, tool);
    },
  };
}

function tokenRepo(db: Database.Database): TokenRepo {
  const insert = db.prepare('INSERT INTO download_tokens (hash, job_id, kind, reusable, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?)');
  const byHash = db.prepare('SELECT * FROM download_tokens WHERE hash = ?');
  const consume = db.prepare('UPDATE download_tokens SET consumed_at = ? WHERE hash = ? AND consumed_at IS NULL');
  const expired = db.prepare('DELETE FROM download_tokens WHERE expires_at <= ?');
  return {
    async create(t) {
      insert.run(t.hash, t.jobId, t.kind, t.reusable ? 1 : 0, ms(t.expiresAt), ms(t.createdAt));
    },
    async get(hash) {
      const row = byHash.get(hash) as Row | undefined;
      return row ? tokenFromRow(row) : null;
    },
    async consume(hash, at) {
      return consume.run(ms(at), hash).changes > 0;
    },
    async deleteExpired(now) {
      return expired.run(ms(now)).changes;
    },
  };
}

function usageRepo(db: Database.Database): UsageRepo {
  const ensure = db.prepare('INSERT INTO usage (account_id, period, used) VALUES (?, ?, 0) ON CONFLICT DO NOTHING');
  const get = db.prepare('SELECT used FROM usage WHERE account_id = ? AND period = ?');
  // The condition and the increment are one statement: concurrent charges cannot both pass.
  const charge = db.prepare(`UPDATE usage SET used = used + @cost
    WHERE account_id = @accountId AND period = @period AND (@limit IS NULL OR used + @cost <= @limit) RETURNING used`);
  const refund = db.prepare('UPDATE usage SET used = MAX(0, used - ?) WHERE account_id = ? AND period = ?');
  const set = db.prepare(`INSERT INTO usage (account_id, period, used) VALUES (?, ?, ?)
    ON CONFLICT (account_id, period) DO UPDATE SET used = excluded.used`);
  const used = (accountId: string, period: string) => Number((get.get(accountId, period) as Row | undefined)?.used ?? 0);
  return {
    async get(accountId, period): Promise<UsageRecord> {
      return { accountId, period, used: used(accountId, period) };
    },
    async charge(accountId, period, cost, limit): Promise<ChargeResult> {
      ensure.run(accountId, period);
      const row = charge.get({ accountId, period, cost, limit }) as Row | undefined;
      return row ? { ok: true, used: Number(row.used) } : { ok: false, used: used(accountId, period) };
    },
    async refund(accountId, period, cost) {
      refund.run(cost, accountId, period);
    },
    async set(accountId, period, value) {
      set.run(accountId, period, value);
    },
  };
}

function rateRepo(db: Database.Database): RateRepo {
  const hit = db.prepare(`INSERT INTO rate_windows (key, window_start, count) VALUES (?, ?, 1)
    ON CONFLICT (key, window_start) DO UPDATE SET count = count + 1 RETURNING count`);
  const prune = db.prepare('DELETE FROM rate_windows WHERE window_start < ?');
  return {
    async hit(key, windowStart) {
      return Number((hit.get(key, windowStart) as Row).count);
    },
    async deleteBefore(windowStart) {
      prune.run(windowStart);
    },
  };
}

function endpointFromRow(r: Row): WebhookEndpointRecord {
  return {
    id: String(r.id), accountId: String(r.account_id), url: String(r.url), description: (r.description as string | null) ?? null,
    events: r.events ? json<WebhookEndpointRecord['events']>(r.events) : null, secret: String(r.secret),
    previousSecret: (r.previous_secret as string | null) ?? null, previousExpiresAt: toDate(r.previous_expires_at),
    disabledAt: toDate(r.disabled_at), disabledReason: (r.disabled_reason as string | null) ?? null, failingSince: toDate(r.failing_since),
    createdAt: toDate(r.created_at)!, updatedAt: toDate(r.updated_at)!,
  };
}

function webhookEndpointRepo(db: Database.Database): WebhookEndpointRepo {
  const insert = db.prepare(`INSERT INTO webhook_endpoints (id, account_id, url, description, events, secret, previous_secret, previous_expires_at,
      disabled_at, disabled_reason, failing_since, created_at, updated_at)
    VALUES (@id, @accountId, @url, @description, @events, @secret, @previousSecret, @previousExpiresAt, @disabledAt, @disabledReason, @failingSince, @createdAt, @updatedAt)`);
  const byId = db.prepare('SELECT * FROM webhook_endpoints WHERE id = ?');
  const byAccount = db.prepare('SELECT * FROM webhook_endpoints WHERE account_id = ? ORDER BY created_at, id');
  const remove = db.prepare('DELETE FROM webhook_endpoints WHERE id = ?');
  const removeAttempts = db.prepare('DELETE FROM webhook_attempts WHERE endpoint_id = ?');
  const columns: Record<string, string> = {
    url: 'url', description: 'description', events: 'events', secret: 'secret', previousSecret: 'previous_secret', previousExpiresAt: 'previous_expires_at',
    disabledAt: 'disabled_at', disabledReason: 'disabled_reason', failingSince: 'failing_since', updatedAt: 'updated_at',
  };
  const value = (v: unknown) => (v instanceof Date ? v.getTime() : Array.isArray(v) ? JSON.stringify(v) : v);
  return {
    async create(e) {
      insert.run({
        ...e, events: e.events ? JSON.stringify(e.events) : null, previousExpiresAt: ms(e.previousExpiresAt), disabledAt: ms(e.disabledAt),
        failingSince: ms(e.failingSince), createdAt: ms(e.createdAt), updatedAt: ms(e.updatedAt),
      });
    },
    async get(id) {
      const row = byId.get(id) as Row | undefined;
      return row ? endpointFromRow(row) : null;
    },
    async listByAccount(accountId) {
      return (byAccount.all(accountId) as Row[]).map(endpointFromRow);
    },
    async update(id, patch) {
      const entries = Object.entries(patch).filter(([k, v]) => v !== undefined && columns[k]);
      if (!entries.length) return;
      db.prepare(`UPDATE webhook_endpoints SET ${entries.map(([k]) => `${columns[k]} = ?`).join(', ')} WHERE id = ?`).run(...entries.map(([, v]) => value(v)), id);
    },
    async delete(id) {
      return db.transaction(() => {
        removeAttempts.run(id);
        return remove.run(id).changes > 0;
      })();
    },
  };
}

function webhookSecretRepo(db: Database.Database): WebhookAccountSecretRepo {
  const byId = db.prepare('SELECT * FROM webhook_account_secrets WHERE account_id = ?');
  const put = db.prepare(`INSERT INTO webhook_account_secrets (account_id, secret, previous_secret, previous_expires_at, created_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (account_id) DO UPDATE SET secret = excluded.secret, previous_secret = excluded.previous_secret,
      previous_expires_at = excluded.previous_expires_at, created_at = excluded.created_at`);
  return {
    async get(accountId) {
      const r = byId.get(accountId) as Row | undefined;
      return r
        ? { accountId: String(r.account_id), secret: String(r.secret), previousSecret: (r.previous_secret as string | null) ?? null,
          previousExpiresAt: toDate(r.previous_expires_at), createdAt: toDate(r.created_at)! }
        : null;
    },
    async put(r) {
      put.run(r.accountId, r.secret, r.previousSecret, ms(r.previousExpiresAt), ms(r.createdAt));
    },
  };
}

function deliveryFromRow(r: Row): WebhookDeliveryRecord {
  return {
    id: String(r.id), accountId: String(r.account_id), eventKey: String(r.event_key), type: r.type as WebhookDeliveryRecord['type'],
    subjectId: String(r.subject_id), endpointId: (r.endpoint_id as string | null) ?? null, url: String(r.url),
    status: r.status as WebhookDeliveryRecord['status'], attempts: Number(r.attempts), nextAttemptAt: toDate(r.next_attempt_at),
    lastStatusCode: (r.last_status_code as number | null) ?? null, lastError: (r.last_error as string | null) ?? null,
    createdAt: toDate(r.created_at)!, completedAt: toDate(r.completed_at),
  };
}

function webhookDeliveryRepo(db: Database.Database): WebhookDeliveryRepo {
  const insert = db.prepare(`INSERT INTO webhook_deliveries (id, account_id, event_key, target, type, subject_id, endpoint_id, url, status, next_attempt_at, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?) ON CONFLICT (event_key, target) DO NOTHING`);
  const byId = db.prepare('SELECT * FROM webhook_deliveries WHERE id = ?');
  const retry = db.prepare(`UPDATE webhook_deliveries SET attempts = attempts + 1, last_status_code = ?, last_error = ?, next_attempt_at = ?
    WHERE id = ? AND status = 'pending'`);
  const finish = db.prepare(`UPDATE webhook_deliveries SET status = ?, attempts = attempts + 1, last_status_code = ?, last_error = ?, next_attempt_at = NULL, completed_at = ?
    WHERE id = ? AND status = 'pending'`);
  const pending = db.prepare(`SELECT * FROM webhook_deliveries WHERE status = 'pending' ORDER BY created_at, id`);
  return {
    async create(d) {
      return insert.run(d.id, d.accountId, d.eventKey, deliveryTarget(d), d.type, d.subjectId, d.endpointId, d.url, ms(d.nextAttemptAt), ms(d.createdAt)).changes > 0;
    },
    async get(id) {
      const row = byId.get(id) as Row | undefined;
      return row ? deliveryFromRow(row) : null;
    },
    async retryLater(id, a) {
      return retry.run(a.statusCode, a.error, ms(a.nextAttemptAt), id).changes > 0;
    },
    async finish(id, o) {
      return finish.run(o.status, o.statusCode, o.error, ms(o.at), id).changes > 0;
    },
    async listPending() {
      return (pending.all() as Row[]).map(deliveryFromRow);
    },
  };
}

function webhookAttemptRepo(db: Database.Database): WebhookAttemptRepo {
  const insert = db.prepare(`INSERT INTO webhook_attempts (delivery_id, endpoint_id, type, at, status_code, latency_ms, error) VALUES (?, ?, ?, ?, ?, ?, ?)`);
  const prune = db.prepare(`DELETE FROM webhook_attempts WHERE endpoint_id = ? AND seq NOT IN
    (SELECT seq FROM webhook_attempts WHERE endpoint_id = ? ORDER BY seq DESC LIMIT ?)`);
  const pruneUnowned = db.prepare(`DELETE FROM webhook_attempts WHERE endpoint_id IS NULL AND at < ?`);
  const list = db.prepare('SELECT * FROM webhook_attempts WHERE endpoint_id = ? ORDER BY seq DESC LIMIT ?');
  return {
    async add(a, keep) {
      db.transaction(() => {
        insert.run(a.deliveryId, a.endpointId, a.type, ms(a.at), a.statusCode, a.latencyMs, a.error);
        // Attempts to override URLs belong to no endpoint's log: kept a day, for operators.
        if (a.endpointId === null) pruneUnowned.run(a.at.getTime() - 24 * 3600_000);
        else prune.run(a.endpointId, a.endpointId, keep);
      })();
    },
    async listByEndpoint(endpointId, limit) {
      return (list.all(endpointId, limit) as Row[]).map((r): WebhookAttemptRecord => ({
        deliveryId: String(r.delivery_id), endpointId: (r.endpoint_id as string | null) ?? null, type: r.type as WebhookAttemptRecord['type'],
        at: toDate(r.at)!, statusCode: (r.status_code as number | null) ?? null, latencyMs: Number(r.latency_ms), error: (r.error as string | null) ?? null,
      }));
    },
  };
}

function webhookTargetRepo(db: Database.Database): WebhookTargetRepo {
  const put = db.prepare(`INSERT INTO webhook_targets (subject_id, account_id, url, created_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (subject_id) DO UPDATE SET url = excluded.url`);
  const byId = db.prepare('SELECT * FROM webhook_targets WHERE subject_id = ?');
  return {
    async put(t) {
      put.run(t.subjectId, t.accountId, t.url, ms(t.createdAt));
    },
    async get(subjectId) {
      const r = byId.get(subjectId) as Row | undefined;
      return r ? { subjectId: String(r.subject_id), accountId: String(r.account_id), url: String(r.url), createdAt: toDate(r.created_at)! } : null;
    },
  };
}
