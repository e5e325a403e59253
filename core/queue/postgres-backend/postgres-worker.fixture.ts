/**
 * Child-process entry for the conformance suite's cross-process tests on PostgreSQL:
 * `node --import tsx postgres-worker.fixture.ts <url> <ConformanceWorkerOptions as JSON>`.
 */
import { runConformanceWorker, type ConformanceWorkerOptions } from '../sqlite-backend/conformance-worker.js';
import { queueBackendOn } from './index.js';

const [url, optionsJson] = process.argv.slice(2);
if (!url || !optionsJson) throw new Error('usage: postgres-worker.fixture.ts <url> <options JSON>');
await runConformanceWorker(queueBackendOn(url), JSON.parse(optionsJson) as ConformanceWorkerOptions);
