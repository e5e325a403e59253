import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeContractSuite } from '../testing/suite.js';
import { LEGACY_PLAIN_TOKEN_INDEX, MongoStore } from './index.js';
import { COLLECTIONS, type AccountDoc, type BatchDoc, type JobDoc } from './schema.js';
import { describeWithMongo, dropDatabase, uniqueDatabaseName } from './testing/server.js';

/** A job document as earlier versions wrote it: its download token in plain, and `result` only when given. */
type LegacyJobDoc = JobDoc & { downloadToken: string | null };

/** A finished job of `acc_legacy` in that old shape; `fields` override. */
function legacyJob(id: string, at: Date, fields: Partial<LegacyJobDoc> = {}): LegacyJobDoc {
  return {
    _id: id,
    accountId: 'acc_legacy',
    batchId: null,
    kind: 'convert',
    pluginId: 'p',
    op: null,
    inputFormat: 'txt',
    outputFormat: 'md',
    options: {},
    inputs: [],
    status: 'done',
    progress: 100,
    error: null,
    toolReport: null,
    output: null,
    downloadToken: null,
    creditCost: 1,
    creditPeriod: '2030-01',
    refunded: false,
    viaApi: true,
    attempts: 1,
    createdAt: at,
    startedAt: at,
    completedAt: at,
    inputsExpireAt: at,
    outputExpiresAt: null,
    ...fields,
  };
}

describeWithMongo('MongoStore', (url) => {
  storeContractSuite('MongoStore', async () => {
    const dbName = uniqueDatabaseName();
    return {
      openStore: () => MongoStore.connect(url, { dbName }),
      destroy: () => dropDatabase(url, dbName),
    };
  });

  describe('MongoStore indexes', () => {
    const dbName = uniqueDatabaseName();
    let store: MongoStore;

    beforeAll(async () => {
      store = await MongoStore.connect(url, { dbName });
    });
    afterAll(async () => {
      await store.close();
      await dropDatabase(url, dbName);
    });

    const indexesOf = async (collection: string) =>
      Object.fromEntries((await store.db.collection(collection).indexes()).map((i) => [i.name, i]));

    it('creates unique, history and TTL indexes at start-up', async () => {
      expect((await indexesOf(COLLECTIONS.keys)).hash_unique).toMatchObject({ key: { hash: 1 }, unique: true });
      expect((await indexesOf(COLLECTIONS.jobs)).history).toMatchObject({
        key: { accountId: 1, createdAt: -1, _id: -1 },
      });
      expect((await indexesOf(COLLECTIONS.usage)).account_period_unique).toMatchObject({ unique: true });
      expect((await indexesOf(COLLECTIONS.tokens)).expired_after_grace).toMatchObject({
        expireAfterSeconds: 7 * 24 * 3600,
      });
      expect((await indexesOf(COLLECTIONS.rates)).expired_windows).toMatchObject({ expireAfterSeconds: 3600 });
      expect((await indexesOf(COLLECTIONS.trials)).account_tool_unique).toMatchObject({
        key: { accountId: 1, tool: 1 },
        unique: true,
      });
      for (const collection of [COLLECTIONS.jobs, COLLECTIONS.batches]) {
        expect((await indexesOf(collection)).open_exports).toMatchObject({ key: { 'export.status': 1 }, sparse: true });
      }
      expect((await indexesOf(COLLECTIONS.jobs)).results_due).toMatchObject({
        key: { createdAt: 1 },
        partialFilterExpression: { result: { $type: 'object' } },
      });
    });

    it('reads jobs and batches written before extraction (no result, no tool) as null', async () => {
      const now = new Date();
      await store.db.collection<AccountDoc>(COLLECTIONS.accounts).insertOne({
        _id: 'acc_legacy',
        plan: 'pro',
        email: null,
        emailVerified: false,
        overageEnabled: false,
        creditsIncluded: null,
        requestsPerMinute: null,
        createdAt: now,
      });
      // Documents as the adapter wrote them before jobs had `result` and batches had `tool`.
      const legacyJobs = store.db.collection<LegacyJobDoc>(COLLECTIONS.jobs);
      await legacyJobs.insertOne(legacyJob('job_legacy', now, { batchId: 'batch_legacy' }));
      await store.db
        .collection<Omit<BatchDoc, 'tool'>>(COLLECTIONS.batches)
        .insertOne({ _id: 'batch_legacy', accountId: 'acc_legacy', total: 1, errors: [], createdAt: now });
      expect((await store.jobs.jobs.get('job_legacy'))?.result).toBeNull();
      expect((await store.jobs.batches.get('batch_legacy'))?.tool).toBeNull();
      await store.jobs.jobs.clearResultsBefore(new Date(now.getTime() + 1000));
      expect(await legacyJobs.findOne({ _id: 'job_legacy' })).not.toHaveProperty('result');
    });

    it('removes the plain download tokens earlier versions kept on jobs, and their index', async () => {
      const now = new Date();
      const plain = 'P'.repeat(43);
      const jobs = store.db.collection<LegacyJobDoc>(COLLECTIONS.jobs);
      await jobs.createIndex(
        { completedAt: 1 },
        { name: LEGACY_PLAIN_TOKEN_INDEX, partialFilterExpression: { downloadToken: { $type: 'string' } } },
      );
      await jobs.insertOne(legacyJob('job_plain_token', now, { result: null, downloadToken: plain }));
      const upgraded = await MongoStore.connect(url, { dbName });
      try {
        expect(await jobs.findOne({ _id: 'job_plain_token' })).not.toHaveProperty('downloadToken');
        expect((await upgraded.jobs.jobs.get('job_plain_token'))?.downloadTokenHash).toBeNull();
        expect(await indexesOf(COLLECTIONS.jobs)).not.toHaveProperty(LEGACY_PLAIN_TOKEN_INDEX);
        expect((await indexesOf(COLLECTIONS.jobs)).download_token_hashes_due).toBeDefined();
      } finally {
        await upgraded.close();
      }
    });

    it('starts again on an existing database (index creation is idempotent)', async () => {
      const again = await MongoStore.connect(url, { dbName });
      await again.ping();
      await again.close();
    });
  });
});
