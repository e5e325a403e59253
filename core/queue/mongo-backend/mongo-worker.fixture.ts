/**
 * Child-process entry for the conformance suite's cross-process tests on MongoDB:
 * `MONGODB_URL=... node --import tsx mongo-worker.fixture.ts <collection> <ConformanceWorkerOptions as JSON>`.
 */
import { MongoBackend } from '@agendajs/mongo-backend';
import { runConformanceWorker, type ConformanceWorkerOptions } from '../sqlite-backend/conformance-worker.js';

const [collection, optionsJson] = process.argv.slice(2);
const address = process.env.MONGODB_URL;
if (!address || !collection || !optionsJson)
  throw new Error('usage: MONGODB_URL=... mongo-worker.fixture.ts <collection> <options JSON>');
await runConformanceWorker(
  new MongoBackend({ address, collection }),
  JSON.parse(optionsJson) as ConformanceWorkerOptions,
);
