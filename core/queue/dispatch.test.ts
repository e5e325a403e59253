/**
 * Dispatch without the poll gap: with a poll every 5 s, a job accepted in the worker's own
 * process starts at once, and a job waiting for its plugin's only slot starts as soon as the slot
 * frees. Real SQLite queue.
 */
import { expect, it } from 'vitest';
import type { Logger } from '../contract/index.js';
import { measureDispatch } from './testing/dispatch.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

it('starts a local job at once, and the next one as soon as its plugin is free, whatever the poll interval', {
  timeout: 30_000,
}, async () => {
  const { firstWaitMs, secondWaitMs } = await measureDispatch({ log: silent });
  expect(firstWaitMs).toBeLessThan(1_000);
  expect(secondWaitMs).toBeLessThan(1_000);
});
