/**
 * Child-process entry for the conformance suite's cross-process tests:
 * `node --import tsx testing/worker.ts <database path> <ConformanceWorkerOptions as JSON>`.
 */
import { runConformanceWorker, type ConformanceWorkerOptions } from '../../testing/suite-worker.js';
import { SqliteBackend } from '../index.js';

const [databasePath, optionsJson] = process.argv.slice(2);
if (!databasePath || !optionsJson) throw new Error('usage: testing/worker.ts <database path> <options JSON>');
await runConformanceWorker(
  new SqliteBackend({ path: databasePath }),
  JSON.parse(optionsJson) as ConformanceWorkerOptions,
);
