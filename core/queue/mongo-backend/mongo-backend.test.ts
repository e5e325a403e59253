import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { MongoBackend } from '@agendajs/mongo-backend';
import { MongoClient } from 'mongodb';
import { describeWithMongo } from '../../store/mongo/testing/server.js';
import { lockCheckedSavesSuite } from '../testing/lock-suite.js';
import { backendConformanceSuite } from '../testing/suite.js';
import { MongoQueueBackend } from './index.js';

const workerEntry = fileURLToPath(new URL('./testing/worker.ts', import.meta.url));

describeWithMongo('MongoBackend (Agenda)', (url) => {
  // Each run gets its own collection in the URL's database; every backend opens its own connection.
  backendConformanceSuite('MongoBackend', async () => {
    const collection = `agenda_conformance_${randomUUID().slice(0, 8)}`;
    return {
      openBackend: () => new MongoBackend({ address: url, collection }),
      spawnWorker: (options) =>
        spawn(process.execPath, ['--import', 'tsx', workerEntry, collection, JSON.stringify(options)], {
          stdio: ['ignore', 'pipe', 'inherit'],
        }),
      destroy: async () => {
        const client = await MongoClient.connect(url);
        try {
          await client.db().collection(collection).drop();
        } finally {
          await client.close();
        }
      },
    };
  });
  lockCheckedSavesSuite('MongoQueueBackend', async () => {
    const client = await MongoClient.connect(url);
    const db = client.db(`transmute_lock_${randomUUID().slice(0, 8)}`);
    return {
      openBackend: () => new MongoQueueBackend(db),
      destroy: async () => {
        await db.dropDatabase();
        await client.close();
      },
    };
  });
});
