/**
 * The distributed store: MongoDB through the official driver. Every rule that must hold across
 * API instances and workers (one charge within the allowance, one consume per token, one
 * finish per job) is a single conditional write on one document.
 */
import { MongoClient, MongoServerError, type Collection, type Db, type Filter, type MongoClientOptions } from 'mongodb';
import type {
  Account, AccountRepo, ApiKeyRecord, BatchRecord, BatchRepo, ChargeResult, DownloadTokenRecord, EmailTokenRecord, EmailTokenRepo, JobRecord, JobRepo, KeyRepo,
  LoginRecord, LoginRepo, NewJob, RateRepo, SessionRecord, SessionRepo, Store,
  TokenRepo, TrialRepo, UsageRepo, WebhookAccountSecretRepo, WebhookAttemptRepo, WebhookDeliveryRecord, WebhookDeliveryRepo, WebhookEndpointRecord,
  WebhookEndpointRepo, WebhookTargetRepo,
} from '../types.js';
import { deliveryTarget } from '../types.js';
import {
  COLLECTIONS, INDEXES, type AccountDoc, type BatchDoc, type EmailTokenDoc, type JobDoc, type KeyDoc, type LoginDoc, type SessionDoc, type RateDoc, type TokenDoc, type TrialDoc, type UsageDoc,
  type WebhookAttemptDoc, type WebhookDeliveryDoc, type WebhookEndpointDoc, type WebhookSecretDoc, type WebhookTargetDoc,
} from './schema.js';

const UNFINISHED: JobRecord['status'][] = ['waiting', 'active'];
/** The index over plain download tokens that jobs carried before they were hashed (see migrate). */
export const LEGACY_PLAIN_TOKEN_INDEX = 'download_tokens_due';
const DUPLICATE_KEY = 11000;

/**
 * Two first writes to the same unique key can race: one upsert inserts, the other fails with a
 * duplicate key. Running it again then updates the row the winner inserted.
 */
async function retryOnDuplicateKey<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return write();
    throw err;
  }
}

/** Options and reports are JSON on the wire; storing them as JSON keeps both adapters alike (no undefined, no class instances). */
const asJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

function accountFromDoc({ _id, ...doc }: AccountDoc): Account {
  return {
    id: _id, plan: doc.plan, email: doc.email, emailVerified: doc.emailVerified, overageEnabled: doc.overageEnabled,
    creditsIncluded: doc.creditsIncluded, requestsPerMinute: doc.requestsPerMinute, createdAt: doc.createdAt,
  };
}

function keyFromDoc({ _id, ...doc }: KeyDoc): ApiKeyRecord {
  return {
    id: _id, accountId: doc.accountId, hash: doc.hash, prefix: doc.prefix, createdAt: doc.createdAt, revokedAt: doc.revokedAt,
    name: doc.name ?? null, lastUsedAt: doc.lastUsedAt ?? null,
  };
}

function loginFromDoc({ _id, ...doc }: LoginDoc): LoginRecord {
  return { email: _id, accountId: doc.accountId, passwordHash: doc.passwordHash, createdAt: doc.createdAt, updatedAt: doc.updatedAt };
}

function sessionFromDoc({ _id, ...doc }: SessionDoc): SessionRecord {
  return { hash: _id, accountId: doc.accountId, csrfHash: doc.csrfHash, createdAt: doc.createdAt, expiresAt: doc.expiresAt };
}

function emailTokenFromDoc({ _id, ...doc }: EmailTokenDoc): EmailTokenRecord {
  return { hash: _id, accountId: doc.accountId, email: doc.email, createdAt: doc.createdAt, expiresAt: doc.expiresAt };
}

function jobFromDoc({ _id, ...doc }: JobDoc): JobRecord {
  return {
    id: _id, accountId: doc.accountId, batchId: doc.batchId, kind: doc.kind, pluginId: doc.pluginId, op: doc.op, inputFormat: doc.inputFormat,
    outputFormat: doc.outputFormat, options: doc.options, inputs: doc.inputs, status: doc.status, progress: doc.progress,
    error: doc.error, toolReport: doc.toolReport, output: doc.output, result: doc.result ?? null, downloadTokenHash: doc.downloadTokenHash ?? null, creditCost: doc.creditCost,
    creditPeriod: doc.creditPeriod, refunded: doc.refunded, viaApi: doc.viaApi, attempts: doc.attempts, createdAt: doc.createdAt,
    startedAt: doc.startedAt, completedAt: doc.completedAt, inputsExpireAt: doc.inputsExpireAt, outputExpiresAt: doc.outputExpiresAt,
    ...(doc.pipeline ? { pipeline: doc.pipeline } : {}),
    ...(doc.export ? { export: doc.export } : {}),
  };
}

function batchFromDoc({ _id, ...doc }: BatchDoc): BatchRecord {
  return { id: _id, accountId: doc.accountId, tool: doc.tool ?? null, total: doc.total, errors: doc.errors, createdAt: doc.createdAt };
}

function tokenFromDoc({ _id, ...doc }: TokenDoc): DownloadTokenRecord {
  return {
    hash: _id, jobId: doc.jobId, kind: doc.kind, reusable: doc.reusable, expiresAt: doc.expiresAt, consumedAt: doc.consumedAt,
    createdAt: doc.createdAt,
  };
}

export class MongoStore implements Store {
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

  /**
   * Connects and creates the indexes. The database is the one named in the URL
   * (mongodb://host/transmute) unless `dbName` is given. The store owns the client: close()
   * closes it, so the blob store and queue built on `db` must be stopped first.
   */
  static async connect(url: string, options: { dbName?: string; client?: MongoClientOptions } = {}): Promise<MongoStore> {
    const client = await MongoClient.connect(url, options.client);
    try {
      const store = new MongoStore(client, client.db(options.dbName));
      await store.createIndexes();
      await store.migrate();
      return store;
    } catch (err) {
      await client.close();
      throw err;
    }
  }

  private constructor(readonly client: MongoClient, readonly db: Db) {
    this.accounts = accountRepo(db.collection<AccountDoc>(COLLECTIONS.accounts));
    this.keys = keyRepo(db.collection<KeyDoc>(COLLECTIONS.keys));
    this.logins = loginRepo(db.collection<LoginDoc>(COLLECTIONS.logins));
    this.sessions = sessionRepo(db.collection<SessionDoc>(COLLECTIONS.sessions));
    this.emailTokens = emailTokenRepo(db.collection<EmailTokenDoc>(COLLECTIONS.emailTokens));
    this.jobs = jobRepo(db.collection<JobDoc>(COLLECTIONS.jobs));
    this.batches = batchRepo(db.collection<BatchDoc>(COLLECTIONS.batches));
    this.trials = trialRepo(db.collection<TrialDoc>(COLLECTIONS.trials));
    this.tokens = tokenRepo(db.collection<TokenDoc>(COLLECTIONS.tokens));
    this.usage = usageRepo(db.collection<UsageDoc>(COLLECTIONS.usage));
    this.rates = rateRepo(db.collection<RateDoc>(COLLECTIONS.rates));
    const attempts = db.collection<WebhookAttemptDoc>(COLLECTIONS.webhookAttempts);
    this.webhookEndpoints = webhookEndpointRepo(db.collection<WebhookEndpointDoc>(COLLECTIONS.webhookEndpoints), attempts);
    this.webhookSecrets = webhookSecretRepo(db.collection<WebhookSecretDoc>(COLLECTIONS.webhookSecrets));
    this.webhookDeliveries = webhookDeliveryRepo(db.collection<WebhookDeliveryDoc>(COLLECTIONS.webhookDeliveries));
    this.webhookAttempts = webhookAttemptRepo(attempts);
    this.webhookTargets = webhookTargetRepo(db.collection<WebhookTargetDoc>(COLLECTIONS.webhookTargets));
  }

  /** Idempotent: creating an index that exists with the same options does nothing. */
  private async createIndexes(): Promise<void> {
    for (const [name, indexes] of Object.entries(INDEXES) as Array<[keyof typeof COLLECTIONS, typeof INDEXES.jobs]>) {
      if (indexes.length) await this.db.collection(COLLECTIONS[name]).createIndexes(indexes);
    }
  }

  /**
   * Upgrades what earlier versions wrote; idempotent, run at every start. Jobs once kept their
   * plain download token (indexed by `download_tokens_due`): the index marks a database not yet
   * upgraded, so the tokens are removed first and the index last. Links minted before keep
   * opening until they expire (their hashes are in downloadTokens); polls no longer show them.
   */
  private async migrate(): Promise<void> {
    const jobs = this.db.collection(COLLECTIONS.jobs);
    if (!(await jobs.indexes()).some((index) => index.name === LEGACY_PLAIN_TOKEN_INDEX)) return;
    await jobs.updateMany({ downloadToken: { $exists: true } }, { $unset: { downloadToken: '' } });
    await jobs.dropIndex(LEGACY_PLAIN_TOKEN_INDEX);
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

function accountRepo(accounts: Collection<AccountDoc>): AccountRepo {
  const updatable = ['plan', 'email', 'emailVerified', 'overageEnabled', 'creditsIncluded', 'requestsPerMinute'] as const;
  return {
    async create(a) {
      await accounts.insertOne({
        _id: a.id, plan: a.plan, email: a.email, emailVerified: a.emailVerified, overageEnabled: a.overageEnabled,
        creditsIncluded: a.creditsIncluded, requestsPerMinute: a.requestsPerMinute, createdAt: a.createdAt,
      });
    },
    async get(id) {
      const doc = await accounts.findOne({ _id: id });
      return doc ? accountFromDoc(doc) : null;
    },
    async update(id, patch) {
      const set = Object.fromEntries(updatable.filter((field) => patch[field] !== undefined).map((field) => [field, patch[field]]));
      if (Object.keys(set).length) await accounts.updateOne({ _id: id }, { $set: set });
    },
  };
}

function keyRepo(keys: Collection<KeyDoc>): KeyRepo {
  return {
    async create(k) {
      await keys.insertOne({
        _id: k.id, accountId: k.accountId, hash: k.hash, prefix: k.prefix, createdAt: k.createdAt, revokedAt: k.revokedAt, name: k.name ?? null, lastUsedAt: k.lastUsedAt ?? null,
      });
    },
    async revokeById(accountId, id, at) {
      return (await keys.updateOne({ _id: id, accountId, revokedAt: null }, { $set: { revokedAt: at } })).modifiedCount > 0;
    },
    async markUsed(id, at, staleBefore) {
      // A missing field (keys made before it existed) counts as never used.
      await keys.updateOne({ _id: id, $or: [{ lastUsedAt: null }, { lastUsedAt: { $lt: staleBefore } }] }, { $set: { lastUsedAt: at } });
    },
    async findActiveByHash(hash) {
      const doc = await keys.findOne({ hash, revokedAt: null });
      return doc ? keyFromDoc(doc) : null;
    },
    async listByAccount(accountId) {
      return (await keys.find({ accountId }).sort({ createdAt: 1, _id: 1 }).toArray()).map(keyFromDoc);
    },
    async revokeByHash(hash, at) {
      return (await keys.updateOne({ hash, revokedAt: null }, { $set: { revokedAt: at } })).modifiedCount > 0;
    },
  };
}

function loginRepo(logins: Collection<LoginDoc>): LoginRepo {
  return {
    async create(l) {
      try {
        await logins.insertOne({ _id: l.email, accountId: l.accountId, passwordHash: l.passwordHash, createdAt: l.createdAt, updatedAt: l.updatedAt });
        return true;
      } catch (err) {
        if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return false;
        throw err;
      }
    },
    async findByEmail(email) {
      const doc = await logins.findOne({ _id: email });
      return doc ? loginFromDoc(doc) : null;
    },
    async getByAccount(accountId) {
      const doc = await logins.findOne({ accountId });
      return doc ? loginFromDoc(doc) : null;
    },
    async setPasswordHash(accountId, passwordHash, at) {
      return (await logins.updateOne({ accountId }, { $set: { passwordHash, updatedAt: at } })).matchedCount > 0;
    },
  };
}

function sessionRepo(sessions: Collection<SessionDoc>): SessionRepo {
  return {
    async create(s) {
      await sessions.insertOne({ _id: s.hash, accountId: s.accountId, csrfHash: s.csrfHash, createdAt: s.createdAt, expiresAt: s.expiresAt });
    },
    async findActive(hash, now) {
      const doc = await sessions.findOne({ _id: hash, expiresAt: { $gt: now } });
      return doc ? sessionFromDoc(doc) : null;
    },
    async extend(hash, expiresAt) {
      await sessions.updateOne({ _id: hash }, { $max: { expiresAt } });
    },
    async delete(hash) {
      await sessions.deleteOne({ _id: hash });
    },
    async deleteByAccount(accountId) {
      return (await sessions.deleteMany({ accountId })).deletedCount;
    },
    async deleteExpired(now) {
      return (await sessions.deleteMany({ expiresAt: { $lte: now } })).deletedCount;
    },
  };
}

function emailTokenRepo(tokens: Collection<EmailTokenDoc>): EmailTokenRepo {
  return {
    async create(t) {
      await tokens.insertOne({ _id: t.hash, accountId: t.accountId, email: t.email, createdAt: t.createdAt, expiresAt: t.expiresAt });
    },
    async consume(hash, now) {
      // One delete takes the document: two clicks on the same link cannot both verify.
      const doc = await tokens.findOneAndDelete({ _id: hash });
      const token = doc ? emailTokenFromDoc(doc) : null;
      return token && token.expiresAt > now ? token : null;
    },
    async deleteByAccount(accountId) {
      return (await tokens.deleteMany({ accountId })).deletedCount;
    },
    async deleteExpired(now) {
      return (await tokens.deleteMany({ expiresAt: { $lte: now } })).deletedCount;
    },
  };
}

function jobRepo(jobs: Collection<JobDoc>): JobRepo {
  /** Oldest first, as the SQLite adapter lists them. */
  const list = async (filter: Filter<JobDoc>) => (await jobs.find(filter).sort({ createdAt: 1, _id: 1 }).toArray()).map(jobFromDoc);
  return {
    async create(job: NewJob) {
      const doc: JobDoc = {
        _id: job.id, accountId: job.accountId, batchId: job.batchId ?? null, kind: job.kind, pluginId: job.pluginId, op: job.op, inputFormat: job.inputFormat,
        outputFormat: job.outputFormat, options: asJson(job.options), inputs: asJson(job.inputs), status: 'waiting', progress: 0,
        error: null, toolReport: null, output: null, result: null, downloadTokenHash: null, creditCost: job.creditCost, creditPeriod: job.creditPeriod,
        refunded: false, viaApi: job.viaApi, attempts: 0, createdAt: job.createdAt, startedAt: null, completedAt: null,
        inputsExpireAt: job.inputsExpireAt, outputExpiresAt: null, ...(job.pipeline ? { pipeline: asJson(job.pipeline) } : {}),
      };
      await jobs.insertOne(doc);
      return jobFromDoc(doc);
    },
    async get(id) {
      const doc = await jobs.findOne({ _id: id });
      return doc ? jobFromDoc(doc) : null;
    },
    async start(id, at) {
      // A pipeline update, so the first start time survives a restart after a crash.
      const doc = await jobs.findOneAndUpdate(
        { _id: id, status: { $in: UNFINISHED } },
        [{ $set: { status: 'active', attempts: { $add: ['$attempts', 1] }, startedAt: { $ifNull: ['$startedAt', at] } } }],
        { returnDocument: 'after' },
      );
      return doc ? jobFromDoc(doc) : null;
    },
    async setProgress(id, progress) {
      await jobs.updateOne({ _id: id, status: 'active' }, { $set: { progress } });
    },
    async setPipeline(id, pipeline) {
      await jobs.updateOne({ _id: id, status: { $in: UNFINISHED } }, { $set: { pipeline: asJson(pipeline) } });
    },
    async setExport(id, state) {
      await jobs.updateOne({ _id: id }, { $set: { export: asJson(state) } });
    },
    async complete(id, r) {
      const result = await jobs.updateOne(
        { _id: id, status: 'active' },
        {
          $set: {
            status: 'done', progress: 100, output: asJson(r.output), downloadTokenHash: r.downloadTokenHash ?? null,
            toolReport: r.toolReport ? asJson(r.toolReport) : null, completedAt: r.at, outputExpiresAt: r.outputExpiresAt,
          },
        },
      );
      return result.modifiedCount > 0;
    },
    async completeWithResult(id, r) {
      const result = await jobs.updateOne(
        { _id: id, status: 'active' },
        { $set: { status: 'done', progress: 100, result: asJson(r.result), completedAt: r.at } },
      );
      return result.modifiedCount > 0;
    },
    async fail(id, error, at) {
      const result = await jobs.updateOne({ _id: id, status: { $in: UNFINISHED } }, { $set: { status: 'failed', error, completedAt: at } });
      return result.modifiedCount > 0;
    },
    async markRefunded(id) {
      return (await jobs.updateOne({ _id: id, refunded: false }, { $set: { refunded: true } })).modifiedCount > 0;
    },
    async listByAccount(accountId, limit, offset) {
      const [total, page] = await Promise.all([
        jobs.countDocuments({ accountId }),
        // limit(0) means "no limit" to MongoDB, not an empty page.
        limit > 0 ? jobs.find({ accountId }).sort({ createdAt: -1, _id: -1 }).skip(offset).limit(limit).toArray() : [],
      ]);
      return { total, jobs: page.map(jobFromDoc) };
    },
    async listByBatch(batchId) {
      return list({ batchId });
    },
    async listUnfinished() {
      return list({ status: { $in: UNFINISHED } });
    },
    async listFinishedSince(since) {
      const docs = await jobs.find({ completedAt: { $gte: since }, status: { $in: ['done', 'failed'] } }, { projection: { _id: 1, accountId: 1, batchId: 1, kind: 1, status: 1, completedAt: 1 } })
        .sort({ completedAt: 1, _id: 1 }).toArray();
      return docs.map((d) => ({ id: d._id, accountId: d.accountId, batchId: d.batchId, kind: d.kind, status: d.status, completedAt: d.completedAt! }));
    },
    async listInputsDue(now) {
      return list({ inputsExpireAt: { $lte: now }, 'inputs.0': { $exists: true } });
    },
    async clearInputs(id) {
      await jobs.updateOne({ _id: id }, { $set: { inputs: [] } });
    },
    async clearResultsBefore(before) {
      // Strictly before, as the SQLite adapter; `$type: 'object'` is the results_due index's filter.
      await jobs.updateMany({ result: { $type: 'object' }, createdAt: { $lt: before } }, { $set: { result: null } });
    },
    async clearExpiredDownloadTokens(before) {
      await jobs.updateMany({ downloadTokenHash: { $type: 'string' }, completedAt: { $lte: before } }, { $set: { downloadTokenHash: null } });
    },
    async listOutputsDue(now) {
      return list({ output: { $ne: null }, outputExpiresAt: { $lte: now } });
    },
    async clearOutput(id) {
      await jobs.updateOne({ _id: id }, { $set: { output: null, downloadTokenHash: null } });
    },
    async extendOutput(id, until) {
      // $max treats a missing or null expiry as earlier than any date.
      await jobs.updateOne({ _id: id }, { $max: { outputExpiresAt: until } });
    },
  };
}

function batchRepo(batches: Collection<BatchDoc>): BatchRepo {
  return {
    async create(b) {
      await batches.insertOne({ _id: b.id, accountId: b.accountId, tool: b.tool, total: b.total, errors: asJson(b.errors), createdAt: b.createdAt });
    },
    async get(id) {
      const doc = await batches.findOne({ _id: id });
      return doc ? batchFromDoc(doc) : null;
    },
  };
}

function trialRepo(trials: Collection<TrialDoc>): TrialRepo {
  return {
    async claim(accountId, tool, at) {
      // The unique (accountId, tool) index decides between concurrent claims: one insert wins.
      try {
        await trials.insertOne({ accountId, tool, claimedAt: at });
        return true;
      } catch (err) {
        if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return false;
        throw err;
      }
    },
    async release(accountId, tool) {
      await trials.deleteOne({ accountId, tool });
    },
  };
}

function tokenRepo(tokens: Collection<TokenDoc>): TokenRepo {
  return {
    async create(t) {
      await tokens.insertOne({ _id: t.hash, jobId: t.jobId, kind: t.kind, reusable: t.reusable, expiresAt: t.expiresAt, consumedAt: t.consumedAt, createdAt: t.createdAt });
    },
    async get(hash) {
      const doc = await tokens.findOne({ _id: hash });
      return doc ? tokenFromDoc(doc) : null;
    },
    async consume(hash, at) {
      return (await tokens.updateOne({ _id: hash, consumedAt: null }, { $set: { consumedAt: at } })).modifiedCount > 0;
    },
    async deleteExpired(now) {
      return (await tokens.deleteMany({ expiresAt: { $lte: now } })).deletedCount;
    },
  };
}

function usageRepo(usage: Collection<UsageDoc>): UsageRepo {
  const usedIn = async (accountId: string, period: string) => (await usage.findOne({ accountId, period }))?.used ?? 0;
  return {
    async get(accountId, period) {
      return { accountId, period, used: await usedIn(accountId, period) };
    },
    async charge(accountId, period, cost, limit): Promise<ChargeResult> {
      // The zero row first (a no-op when it exists), so the charge below never has to upsert.
      await retryOnDuplicateKey(() => usage.updateOne({ accountId, period }, { $setOnInsert: { used: 0 } }, { upsert: true }));
      // The allowance check and the increment are one conditional write: concurrent charges cannot both pass.
      const withinLimit = limit === null ? {} : { $expr: { $lte: [{ $add: ['$used', cost] }, limit] } };
      const charged = await usage.findOneAndUpdate({ accountId, period, ...withinLimit }, { $inc: { used: cost } }, { returnDocument: 'after' });
      return charged ? { ok: true, used: charged.used } : { ok: false, used: await usedIn(accountId, period) };
    },
    async refund(accountId, period, cost) {
      await usage.updateOne({ accountId, period }, [{ $set: { used: { $max: [0, { $subtract: ['$used', cost] }] } } }]);
    },
    async set(accountId, period, used) {
      await retryOnDuplicateKey(() => usage.updateOne({ accountId, period }, { $set: { used } }, { upsert: true }));
    },
  };
}

function rateRepo(rates: Collection<RateDoc>): RateRepo {
  return {
    async hit(key, windowStart) {
      const doc = await retryOnDuplicateKey(() =>
        rates.findOneAndUpdate(
          { key, windowStart },
          { $inc: { count: 1 }, $setOnInsert: { createdAt: new Date() } },
          { upsert: true, returnDocument: 'after' },
        ),
      );
      if (!doc) throw new Error('rate window upsert returned no document');
      return doc.count;
    },
    async deleteBefore(windowStart) {
      await rates.deleteMany({ windowStart: { $lt: windowStart } });
    },
  };
}

function endpointFromDoc({ _id, ...doc }: WebhookEndpointDoc): WebhookEndpointRecord {
  return {
    id: _id, accountId: doc.accountId, url: doc.url, description: doc.description, events: doc.events, secret: doc.secret,
    previousSecret: doc.previousSecret, previousExpiresAt: doc.previousExpiresAt, disabledAt: doc.disabledAt, disabledReason: doc.disabledReason,
    failingSince: doc.failingSince, createdAt: doc.createdAt, updatedAt: doc.updatedAt,
  };
}

function webhookEndpointRepo(endpoints: Collection<WebhookEndpointDoc>, attempts: Collection<WebhookAttemptDoc>): WebhookEndpointRepo {
  const updatable = ['url', 'description', 'events', 'secret', 'previousSecret', 'previousExpiresAt', 'disabledAt', 'disabledReason', 'failingSince', 'updatedAt'] as const;
  return {
    async create({ id, ...e }) {
      await endpoints.insertOne({ _id: id, ...e, events: e.events ? [...e.events] : null });
    },
    async get(id) {
      const doc = await endpoints.findOne({ _id: id });
      return doc ? endpointFromDoc(doc) : null;
    },
    async listByAccount(accountId) {
      return (await endpoints.find({ accountId }).sort({ createdAt: 1, _id: 1 }).toArray()).map(endpointFromDoc);
    },
    async update(id, patch) {
      const set = Object.fromEntries(updatable.filter((field) => patch[field] !== undefined).map((field) => [field, patch[field]]));
      if (Object.keys(set).length) await endpoints.updateOne({ _id: id }, { $set: set });
    },
    async delete(id) {
      const deleted = (await endpoints.deleteOne({ _id: id })).deletedCount > 0;
      await attempts.deleteMany({ endpointId: id });
      return deleted;
    },
  };
}

function webhookSecretRepo(secrets: Collection<WebhookSecretDoc>): WebhookAccountSecretRepo {
  return {
    async get(accountId) {
      const doc = await secrets.findOne({ _id: accountId });
      return doc
        ? { accountId: doc._id, secret: doc.secret, previousSecret: doc.previousSecret, previousExpiresAt: doc.previousExpiresAt, createdAt: doc.createdAt }
        : null;
    },
    async put({ accountId, ...r }) {
      await retryOnDuplicateKey(() => secrets.replaceOne({ _id: accountId }, r, { upsert: true }));
    },
  };
}

function deliveryFromDoc({ _id, target: _target, ...doc }: WebhookDeliveryDoc): WebhookDeliveryRecord {
  return {
    id: _id, accountId: doc.accountId, eventKey: doc.eventKey, type: doc.type, subjectId: doc.subjectId, endpointId: doc.endpointId, url: doc.url,
    status: doc.status, attempts: doc.attempts, nextAttemptAt: doc.nextAttemptAt, lastStatusCode: doc.lastStatusCode, lastError: doc.lastError,
    createdAt: doc.createdAt, completedAt: doc.completedAt,
  };
}

function webhookDeliveryRepo(deliveries: Collection<WebhookDeliveryDoc>): WebhookDeliveryRepo {
  return {
    async create({ id, ...d }) {
      // The unique (eventKey, target) index decides between concurrent emissions: one insert wins.
      try {
        await deliveries.insertOne({
          _id: id, ...d, target: deliveryTarget(d), status: 'pending', attempts: 0, lastStatusCode: null, lastError: null, completedAt: null,
        });
        return true;
      } catch (err) {
        if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return false;
        throw err;
      }
    },
    async get(id) {
      const doc = await deliveries.findOne({ _id: id });
      return doc ? deliveryFromDoc(doc) : null;
    },
    async retryLater(id, a) {
      const result = await deliveries.updateOne(
        { _id: id, status: 'pending' },
        { $inc: { attempts: 1 }, $set: { lastStatusCode: a.statusCode, lastError: a.error, nextAttemptAt: a.nextAttemptAt } },
      );
      return result.modifiedCount > 0;
    },
    async finish(id, o) {
      const result = await deliveries.updateOne(
        { _id: id, status: 'pending' },
        { $inc: { attempts: 1 }, $set: { status: o.status, lastStatusCode: o.statusCode, lastError: o.error, nextAttemptAt: null, completedAt: o.at } },
      );
      return result.modifiedCount > 0;
    },
    async listPending() {
      return (await deliveries.find({ status: 'pending' }).sort({ createdAt: 1, _id: 1 }).toArray()).map(deliveryFromDoc);
    },
  };
}

function webhookAttemptRepo(attempts: Collection<WebhookAttemptDoc>): WebhookAttemptRepo {
  let last = 0;
  return {
    async add(a, keep) {
      // Increasing within this process, and by time across processes: the log's order.
      const seq = Math.max(Date.now() * 1000, last + 1);
      last = seq;
      await attempts.insertOne({ ...a, seq });
      if (a.endpointId === null) {
        await attempts.deleteMany({ endpointId: null, at: { $lt: new Date(a.at.getTime() - 24 * 3600_000) } });
        return;
      }
      const kept = await attempts.find({ endpointId: a.endpointId }).sort({ seq: -1 }).skip(keep - 1).limit(1).toArray();
      if (kept[0]) await attempts.deleteMany({ endpointId: a.endpointId, seq: { $lt: kept[0].seq } });
    },
    async listByEndpoint(endpointId, limit) {
      const docs = await attempts.find({ endpointId }).sort({ seq: -1 }).limit(limit).toArray();
      return docs.map((d) => ({ deliveryId: d.deliveryId, endpointId: d.endpointId, type: d.type, at: d.at, statusCode: d.statusCode, latencyMs: d.latencyMs, error: d.error }));
    },
  };
}

function webhookTargetRepo(targets: Collection<WebhookTargetDoc>): WebhookTargetRepo {
  return {
    async put(t) {
      await retryOnDuplicateKey(() => targets.updateOne({ _id: t.subjectId }, { $set: { url: t.url }, $setOnInsert: { accountId: t.accountId, createdAt: t.createdAt } }, { upsert: true }));
    },
    async get(subjectId) {
      const doc = await targets.findOne({ _id: subjectId });
      return doc ? { subjectId: doc._id, accountId: doc.accountId, url: doc.url, createdAt: doc.createdAt } : null;
    },
  };
}
