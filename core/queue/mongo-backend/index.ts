/** Agenda on MongoDB (distributed mode), through @agendajs/mongo-backend. */
import { MongoBackend } from '@agendajs/mongo-backend';
import type { Db } from 'mongodb';
import { RUN_JOB } from '../index.js';

export const QUEUE_COLLECTION = 'agendaJobs';

/**
 * The backend on the store's database and connection. Adds the one index Agenda does not make:
 * a conversion job has at most one queue entry, so workers that re-enqueue unfinished jobs at
 * the same moment (starting together after an outage) cannot queue it twice. Agenda's unique
 * save is an upsert, which without a unique index may insert twice under a race.
 */
export async function createMongoQueueBackend(db: Db): Promise<MongoBackend> {
  await db
    .collection(QUEUE_COLLECTION)
    .createIndex({ 'data.jobId': 1 }, { name: 'run_job_unique', unique: true, partialFilterExpression: { name: RUN_JOB } });
  return new MongoBackend({ mongo: db, collection: QUEUE_COLLECTION });
}
