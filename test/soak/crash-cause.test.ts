/** The soak's crash line names the error a crashed process printed, not only its exit code. */
import { expect, it } from 'vitest';
import { crashCause } from './cluster.js';

it("finds an uncaught error in Node's report, past the source excerpt", () => {
  const stderr = [
    '/app/node_modules/pg-pool/index.js:45',
    '    Error.captureStackTrace(err)',
    '          ^',
    '',
    'error: terminating connection due to administrator command',
    '    at /app/node_modules/pg-pool/index.js:45:11',
    '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
    '    at async LockCheckedRepository.unlockJob (/app/core/queue/postgres-backend/index.ts:156:5) {',
    "  code: '57P01',",
    '}',
    '',
    'Node.js v20.20.2',
  ].join('\n');
  expect(crashCause(stderr)).toBe(
    'error: terminating connection due to administrator command | at /app/node_modules/pg-pool/index.js:45:11 | ' +
      'at async LockCheckedRepository.unlockJob (/app/core/queue/postgres-backend/index.ts:156:5) {',
  );
});

it("an unhandled 'error' event, and nothing at all", () => {
  const stderr =
    "node:events:502\n      throw er; // Unhandled 'error' event\n      ^\n\nError: Connection terminated\n";
  expect(crashCause(stderr)).toBe('Error: Connection terminated');
  expect(crashCause('')).toBe('nothing on stderr');
});
