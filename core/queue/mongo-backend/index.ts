/** Agenda on MongoDB (distributed mode), through @agendajs/mongo-backend. */
import { MongoBackend } from '@agendajs/mongo-backend';
import type { Db } from 'mongodb';

export const QUEUE_COLLECTION = 'agendaJobs';
const UNIQUE_INDEX = 'run_job_unique_by_job';

/**
 * The backend on the store's database and connection. Adds the one index Agenda does not make:
 * a conversion job has at most one queue entry (whatever its plugin's entry name), so workers
 * that re-enqueue unfinished jobs at the same moment (starting together after an outage) cannot
 * queue it twice. Agenda's unique save is an upsert, which without a unique index may insert
 * twice under a race. Only conversion entries carry `data.jobId`.
 */
export async function createMongoQueueBackend(db: Db): Promise<MongoBackend> {
  const collection = db.collection(QUEUE_COLLECTION);
  // The index of earlier versions covered the single `run-job` name only.
  await collection.dropIndex('run_job_unique').catch(() => undefined);
  await collection.createIndex({ 'data.jobId': 1 }, { name: UNIQUE_INDEX, unique: true, partialFilterExpression: { 'data.jobId': { $exists: true } } });
  return new MongoBackend({ mongo: db, collection: QUEUE_COLLECTION });
}
