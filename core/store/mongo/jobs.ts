/** Jobs, batches and extraction results in MongoDB. */
import type { ClientSession, Collection, Db, Filter, MongoClient } from 'mongodb';
import type {
  JobRecord,
  BatchRecord,
  ChargedJob,
  ExportRecord,
  NewJob,
  JobRepo,
  BatchRepo,
  JobsStore,
} from '../types.js';
import { chargeUsage, ensureUsage, givingBack, refundUpdate } from './credits.js';
import { pipelineFromStored, storedPipeline } from '../stored-pipeline.js';
import { asJson } from './documents.js';
import { COLLECTIONS, type BatchDoc, type JobDoc, type UsageDoc } from './schema.js';

const UNFINISHED: JobRecord['status'][] = ['waiting', 'active'];
const OPEN_EXPORT: ExportRecord['status'][] = ['pending', 'uploading'];

function jobFromDoc({ _id, ...doc }: JobDoc): JobRecord {
  return {
    id: _id,
    accountId: doc.accountId,
    batchId: doc.batchId,
    kind: doc.kind,
    pluginId: doc.pluginId,
    op: doc.op,
    inputFormat: doc.inputFormat,
    target: doc.outputFormat,
    options: doc.options,
    inputs: doc.inputs,
    status: doc.status,
    progress: doc.progress,
    error: doc.error,
    toolReport: doc.toolReport,
    output: doc.output,
    result: doc.result ?? null,
    downloadTokenHash: doc.downloadTokenHash ?? null,
    creditCost: doc.creditCost,
    creditPeriod: doc.creditPeriod,
    refunded: doc.refunded,
    viaApi: doc.viaApi,
    attempts: doc.attempts,
    createdAt: doc.createdAt,
    startedAt: doc.startedAt,
    completedAt: doc.completedAt,
    inputsExpireAt: doc.inputsExpireAt,
    outputExpiresAt: doc.outputExpiresAt,
    ...(doc.pipeline ? { pipeline: pipelineFromStored(doc.pipeline) } : {}),
    ...(doc.export ? { export: doc.export } : {}),
  };
}

function newJobDoc(job: NewJob): JobDoc {
  return {
    _id: job.id,
    accountId: job.accountId,
    batchId: job.batchId ?? null,
    kind: job.kind,
    pluginId: job.pluginId,
    op: job.op,
    inputFormat: job.inputFormat,
    outputFormat: job.target,
    options: asJson(job.options),
    inputs: asJson(job.inputs),
    status: 'waiting',
    progress: 0,
    error: null,
    toolReport: null,
    output: null,
    result: null,
    downloadTokenHash: null,
    creditCost: job.creditCost,
    creditPeriod: job.creditPeriod,
    refunded: false,
    viaApi: job.viaApi,
    attempts: 0,
    createdAt: job.createdAt,
    startedAt: null,
    completedAt: null,
    inputsExpireAt: job.inputsExpireAt,
    outputExpiresAt: null,
    ...(job.pipeline ? { pipeline: asJson(storedPipeline(job.pipeline)) } : {}),
  };
}

function batchFromDoc({ _id, ...doc }: BatchDoc): BatchRecord {
  return {
    id: _id,
    accountId: doc.accountId,
    tool: doc.tool ?? null,
    total: doc.total,
    errors: doc.errors,
    createdAt: doc.createdAt,
    ...(doc.export ? { export: doc.export } : {}),
  };
}

/**
 * `transactions`: the client, when the deployment runs multi-document transactions (a replica set or a sharded
 * cluster), else null.
 */
function jobRepo(
  jobs: Collection<JobDoc>,
  usage: Collection<UsageDoc>,
  giveBack: ReturnType<typeof givingBack>,
  transactions: MongoClient | null,
): JobRepo {
  /** Oldest first, as the SQLite adapter lists them. */
  const list = async (filter: Filter<JobDoc>) =>
    (await jobs.find(filter).sort({ createdAt: 1, _id: 1 }).toArray()).map(jobFromDoc);
  const get = async (id: string) => {
    const doc = await jobs.findOne({ _id: id });
    return doc ? jobFromDoc(doc) : null;
  };
  return {
    async create(job: NewJob) {
      const doc = newJobDoc(job);
      await jobs.insertOne(doc);
      return jobFromDoc(doc);
    },
    async createCharged(job, limit) {
      const doc = newJobDoc(job);
      await ensureUsage(usage, job.accountId, job.creditPeriod);
      const chargeAndInsert = async (session?: ClientSession): Promise<ChargedJob> => {
        const charged = await chargeUsage(usage, job.accountId, job.creditPeriod, job.creditCost, limit, session);
        if (!charged.ok) return charged;
        await jobs.insertOne(doc, session ? { session } : {});
        return { ...charged, job: jobFromDoc(doc) };
      };
      if (transactions)
        return transactions.withSession((session) => session.withTransaction(() => chargeAndInsert(session)));
      // A single node has no transactions: a job write that fails gives its charge back at once (a process dying
      // between the two writes still keeps the charge there; docs/SCALE-OUT.md).
      const charged = await chargeUsage(usage, job.accountId, job.creditPeriod, job.creditCost, limit);
      if (!charged.ok) return charged;
      try {
        await jobs.insertOne(doc);
      } catch (err) {
        await usage.updateOne({ accountId: job.accountId, period: job.creditPeriod }, refundUpdate(job.creditCost));
        throw err;
      }
      return { ...charged, job: jobFromDoc(doc) };
    },
    get,
    // The whole document (MongoDB has no poll-rate figure to tune against here; a projection would be the next cut).
    view: get,
    async start(id, at) {
      // A pipeline update, so the first start time survives a restart after a crash.
      const doc = await jobs.findOneAndUpdate(
        { _id: id, status: { $in: UNFINISHED } },
        [
          {
            $set: {
              status: 'active',
              attempts: { $add: ['$attempts', 1] },
              startedAt: { $ifNull: ['$startedAt', at] },
            },
          },
        ],
        { returnDocument: 'after' },
      );
      return doc ? jobFromDoc(doc) : null;
    },
    async setProgress(id, progress, attempt) {
      await jobs.updateOne({ _id: id, status: 'active', attempts: attempt }, { $set: { progress } });
    },
    async setPipeline(id, pipeline, attempt) {
      await jobs.updateOne(
        { _id: id, status: { $in: UNFINISHED }, ...(attempt === undefined ? {} : { attempts: attempt }) },
        { $set: { pipeline: asJson(storedPipeline(pipeline)) } },
      );
    },
    async setImported(id, imported) {
      const result = await jobs.updateOne(
        { _id: id, status: 'active', ...(imported.attempt === undefined ? {} : { attempts: imported.attempt }) },
        {
          $set: {
            inputs: asJson(imported.inputs),
            creditCost: imported.creditCost,
            ...(imported.pipeline ? { pipeline: asJson(storedPipeline(imported.pipeline)) } : {}),
          },
        },
      );
      return result.matchedCount > 0;
    },
    async setExport(id, state) {
      await jobs.updateOne({ _id: id }, { $set: { export: asJson(state) } });
    },
    async listOpenExports() {
      const docs = await jobs.find({ 'export.status': { $in: OPEN_EXPORT } }, { projection: { export: 1 } }).toArray();
      return docs.map((doc) => ({ id: doc._id, export: doc.export! }));
    },
    async complete(id, r) {
      const result = await jobs.updateOne(
        { _id: id, status: 'active' },
        {
          $set: {
            status: 'done',
            progress: 100,
            output: asJson(r.output),
            downloadTokenHash: r.downloadTokenHash ?? null,
            toolReport: r.toolReport ? asJson(r.toolReport) : null,
            completedAt: r.at,
            outputExpiresAt: r.outputExpiresAt,
            result: r.result ? asJson(r.result) : null,
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
    async fail(id, error, at, refundOf) {
      /** One try: false when the job had ended, 'changed' when it changed between its read and the write. */
      const attempt = async (session?: ClientSession): Promise<boolean | 'changed'> => {
        const options = session ? { session } : {};
        const job = await jobs.findOne({ _id: id, status: { $in: UNFINISHED } }, options);
        if (!job) return false;
        const given = refundOf(jobFromDoc(job));
        // The write that wins once, and only on the job as the rule read it (its cost and steps).
        const { modifiedCount } = await jobs.updateOne(
          { _id: id, status: job.status, creditCost: job.creditCost, pipeline: job.pipeline ?? null },
          { $set: { status: 'failed', error, completedAt: at, refunded: Boolean(given && 'credits' in given) } },
          options,
        );
        if (!modifiedCount) return 'changed';
        await giveBack(job.accountId, given, session);
        return true;
      };
      for (;;) {
        // A single node has no transactions (and is supported: docs/SCALE-OUT.md): there the refund is a second
        // write right after the failure's, which alone still decides that it happens once.
        const outcome = transactions
          ? await transactions.withSession((session) => session.withTransaction(() => attempt(session)))
          : await attempt();
        if (outcome !== 'changed') return outcome;
      }
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
    async waitingByPlugin() {
      const groups = await jobs
        .aggregate<{ _id: string; count: number; oldestAt: Date }>([
          { $match: { status: 'waiting' } },
          { $group: { _id: '$pluginId', count: { $sum: 1 }, oldestAt: { $min: '$createdAt' } } },
          { $sort: { _id: 1 } },
        ])
        .toArray();
      return groups.map((g) => ({ pluginId: g._id, count: g.count, oldestAt: g.oldestAt }));
    },
    async listFinishedSince(since) {
      const docs = await jobs
        .find(
          { completedAt: { $gte: since }, status: { $in: ['done', 'failed'] } },
          { projection: { _id: 1, accountId: 1, batchId: 1, kind: 1, status: 1, completedAt: 1 } },
        )
        .sort({ completedAt: 1, _id: 1 })
        .toArray();
      return docs.map((d) => ({
        id: d._id,
        accountId: d.accountId,
        batchId: d.batchId,
        kind: d.kind,
        status: d.status,
        completedAt: d.completedAt!,
      }));
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
      await jobs.updateMany(
        { downloadTokenHash: { $type: 'string' }, completedAt: { $lte: before } },
        { $set: { downloadTokenHash: null } },
      );
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
      await batches.insertOne({
        _id: b.id,
        accountId: b.accountId,
        tool: b.tool,
        total: b.total,
        errors: asJson(b.errors),
        createdAt: b.createdAt,
      });
    },
    async get(id) {
      const doc = await batches.findOne({ _id: id });
      return doc ? batchFromDoc(doc) : null;
    },
    async setExport(id, state) {
      await batches.updateOne({ _id: id }, { $set: { export: asJson(state) } });
    },
    async listOpenExports() {
      const docs = await batches
        .find({ 'export.status': { $in: OPEN_EXPORT } }, { projection: { export: 1 } })
        .toArray();
      return docs.map((doc) => ({ id: doc._id, export: doc.export! }));
    },
  };
}

export function mongoJobs(db: Db, transactions: MongoClient | null): JobsStore {
  return {
    jobs: jobRepo(
      db.collection<JobDoc>(COLLECTIONS.jobs),
      db.collection<UsageDoc>(COLLECTIONS.usage),
      givingBack(db),
      transactions,
    ),
    batches: batchRepo(db.collection<BatchDoc>(COLLECTIONS.batches)),
  };
}
