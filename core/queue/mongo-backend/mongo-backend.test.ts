import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { MongoBackend, type MongoJobRepository } from '@agendajs/mongo-backend';
import type { JobRepository } from 'agenda';
import { MongoClient } from 'mongodb';
import { describeWithMongo } from '../../store/mongo/testing/server.js';
import { lockCheckedSavesSuite } from '../testing/lock-suite.js';
import { backendConformanceSuite } from '../testing/suite.js';
import { MongoQueueBackend } from './index.js';

const workerEntry = fileURLToPath(new URL('./testing/worker.ts', import.meta.url));

/** The next update commits, then throws as when the connection drops before the reply (the lock suite's fault). */
function loseNextReply(repository: JobRepository): void {
  const collection = (repository as MongoJobRepository).collection as unknown as {
    updateOne(...args: unknown[]): Promise<unknown>;
  };
  const updateOne = collection.updateOne;
  collection.updateOne = async function (this: unknown, ...args: unknown[]) {
    Reflect.deleteProperty(collection, 'updateOne');
    await updateOne.apply(this, args);
    throw new Error('connection closed before the reply');
  };
}

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
      loseNextReply,
    };
  });
});
