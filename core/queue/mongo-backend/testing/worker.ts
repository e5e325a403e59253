/**
 * Child-process entry for the conformance suite's cross-process tests on MongoDB:
 * `MONGODB_URL=... node --import tsx testing/worker.ts <collection> <ConformanceWorkerOptions as JSON>`.
 */
import { MongoBackend } from '@agendajs/mongo-backend';
import { runConformanceWorker, type ConformanceWorkerOptions } from '../../testing/suite-worker.js';

const [collection, optionsJson] = process.argv.slice(2);
const address = process.env.MONGODB_URL;
if (!address || !collection || !optionsJson)
  throw new Error('usage: MONGODB_URL=... testing/worker.ts <collection> <options JSON>');
await runConformanceWorker(
  new MongoBackend({ address, collection }),
  JSON.parse(optionsJson) as ConformanceWorkerOptions,
);
