/**
 * Child-process entry for the conformance suite's cross-process tests:
 * `node --import tsx sqlite-worker.fixture.ts <database path> <ConformanceWorkerOptions as JSON>`.
 */
import { runConformanceWorker, type ConformanceWorkerOptions } from './conformance-worker.js';
import { SqliteBackend } from './index.js';

const [databasePath, optionsJson] = process.argv.slice(2);
if (!databasePath || !optionsJson) throw new Error('usage: sqlite-worker.fixture.ts <database path> <options JSON>');
await runConformanceWorker(
  new SqliteBackend({ path: databasePath }),
  JSON.parse(optionsJson) as ConformanceWorkerOptions,
);
