import { MongoClient } from 'mongodb';
import { dropDatabase, describeWithMongo, uniqueDatabaseName } from '../store/mongo/testing/server.js';
import { blobStoreContractSuite } from './testing/suite.js';
import { GridFsBlobStore } from './gridfs.js';

describeWithMongo('GridFsBlobStore', (url) => {
  blobStoreContractSuite('GridFsBlobStore', async () => {
    const dbName = uniqueDatabaseName();
    const client = await MongoClient.connect(url);
    return {
      blobs: new GridFsBlobStore(client.db(dbName)),
      destroy: async () => {
        await client.close();
        await dropDatabase(url, dbName);
      },
    };
  });
});
