import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeContractSuite } from '../contract.js';
import { MongoStore } from './index.js';
import { COLLECTIONS } from './schema.js';
import { describeWithMongo, dropDatabase, uniqueDatabaseName } from './testing.js';

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

    const indexesOf = async (collection: string) => Object.fromEntries((await store.db.collection(collection).indexes()).map((i) => [i.name, i]));

    it('creates unique, history and TTL indexes at start-up', async () => {
      expect((await indexesOf(COLLECTIONS.keys)).hash_unique).toMatchObject({ key: { hash: 1 }, unique: true });
      expect((await indexesOf(COLLECTIONS.jobs)).history).toMatchObject({ key: { accountId: 1, createdAt: -1, _id: -1 } });
      expect((await indexesOf(COLLECTIONS.usage)).account_period_unique).toMatchObject({ unique: true });
      expect((await indexesOf(COLLECTIONS.tokens)).expired_after_grace).toMatchObject({ expireAfterSeconds: 7 * 24 * 3600 });
      expect((await indexesOf(COLLECTIONS.rates)).expired_windows).toMatchObject({ expireAfterSeconds: 3600 });
    });

    it('starts again on an existing database (index creation is idempotent)', async () => {
      const again = await MongoStore.connect(url, { dbName });
      await again.ping();
      await again.close();
    });
  });
});
