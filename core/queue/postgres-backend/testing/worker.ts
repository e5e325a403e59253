/**
 * Child-process entry for the conformance suite's cross-process tests on PostgreSQL:
 * `node --import tsx testing/worker.ts <url> <ConformanceWorkerOptions as JSON>`.
 */
import { runConformanceWorker, type ConformanceWorkerOptions } from '../../testing/suite-worker.js';
import { queueBackendOn } from '../index.js';

const [url, optionsJson] = process.argv.slice(2);
if (!url || !optionsJson) throw new Error('usage: testing/worker.ts <url> <options JSON>');
await runConformanceWorker(queueBackendOn(url), JSON.parse(optionsJson) as ConformanceWorkerOptions);
