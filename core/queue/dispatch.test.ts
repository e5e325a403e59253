/**
 * Dispatch without the poll gap: with a poll that never comes within the test, a job accepted in
 * the worker's own process starts, and a job waiting for its plugin's only slot starts once the
 * slot frees. Real SQLite queue.
 */
import { expect, it } from 'vitest';
import type { Logger } from '../contract/index.js';
import { runDispatchScenario } from './testing/dispatch.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

it('starts a local job at once, and the next one as soon as its plugin is free, whatever the poll interval', {
  timeout: 60_000,
}, async () => {
  const { finished } = await runDispatchScenario({ log: silent });
  expect(finished).toEqual(['first', 'second']);
});
