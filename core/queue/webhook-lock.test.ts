/**
 * Webhook deliveries hold their queue lock like conversion runs: renewed while an attempt waits on its receiver, so a
 * slow one is never taken over and posted twice; and at shutdown an attempt in flight is stopped and its entry handed
 * back, due now, instead of staying locked for a lock lifetime. Real SQLite queue.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, expect, it } from 'vitest';
import type { Logger } from '../contract/index.js';
import { SqliteStore, openSqliteDatabase } from '../store/sqlite/index.js';
import { SqliteBackend } from './sqlite-backend/index.js';
import { Queue } from './index.js';
import type { JobRunnerPort, WebhookDeliveryPort } from './types.js';

const LOCK_MS = 600;
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const idle: JobRunnerPort = { run: async () => undefined, triage: async () => 'queue' };
const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

async function waitFor(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

async function queueOnFreshStore() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-webhook-lock-'));
  const db = openSqliteDatabase(path.join(dir, 'transmute.db'));
  const store = new SqliteStore(db);
  cleanup.push(
    () => rm(dir, { recursive: true, force: true }),
    () => store.close(),
  );
  const open = async (webhooks: WebhookDeliveryPort) => {
    const queue = new Queue({
      backend: new SqliteBackend({ database: db }),
      processEveryMs: 50,
      lockLifetimeMs: 10_000,
      webhookLockLifetimeMs: LOCK_MS,
      log: quiet,
    });
    await queue.agenda.ready;
    const start = () =>
      queue.startWorkers({
        runner: idle,
        retention: { purge: async () => undefined },
        store,
        concurrency: 1,
        plugins: [],
        webhooks,
      });
    return { queue, start };
  };
  const entry = () =>
    db
      .prepare(`SELECT locked_at, next_run_at FROM agenda_jobs WHERE json_extract(data, '$.deliveryId') = 'dlv-1'`)
      .get() as { locked_at: number | null; next_run_at: number | null } | undefined;
  return { open, entry };
}

it('an attempt slower than its lock lifetime renews the lock: it is never taken over and posted twice', {
  timeout: 60_000,
}, async () => {
  const { open, entry } = await queueOnFreshStore();
  let attempts = 0;
  const lockedAt: number[] = [];
  const { queue, start } = await open({
    pending: async () => [],
    async deliver() {
      attempts++;
      for (let waited = 0; waited < LOCK_MS * 4; waited += LOCK_MS / 2) {
        lockedAt.push(entry()!.locked_at!);
        await sleep(LOCK_MS / 2);
      }
      return null;
    },
  });
  cleanup.push(() => queue.stop(1_000));
  await queue.enqueueDelivery('dlv-1');
  await start();
  await waitFor(() => entry() === undefined, 'the delivered entry to be removed');
  expect(attempts).toBe(1);
  // Renewed while the receiver kept it waiting: the lock never grew older than its lifetime.
  expect(lockedAt.at(-1)!).toBeGreaterThan(lockedAt[0]!);
  for (let i = 1; i < lockedAt.length; i++) expect(lockedAt[i]! - lockedAt[i - 1]!).toBeLessThan(LOCK_MS);
});

it('at shutdown an attempt in flight is stopped and its entry handed back due now, not left locked', {
  timeout: 60_000,
}, async () => {
  const { open, entry } = await queueOnFreshStore();
  const signals: AbortSignal[] = [];
  const first = await open({
    pending: async () => [],
    async deliver(_id, signal) {
      if (signal) signals.push(signal);
      // A receiver that does not answer: the attempt ends when it is stopped.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 30_000);
        const stop = () => {
          clearTimeout(timer);
          resolve();
        };
        signal?.addEventListener('abort', stop, { once: true });
      });
      return signal?.aborted ? new Date() : null;
    },
  });
  await first.queue.enqueueDelivery('dlv-1');
  await first.start();
  await waitFor(() => signals.length === 1, 'the attempt to start');
  const stoppedAt = Date.now();
  await first.queue.stop(200);
  expect(signals[0]!.aborted).toBe(true);
  // Handed back: unlocked and due, for the next worker at once rather than after a lock lifetime.
  expect(entry()).toMatchObject({ locked_at: null, next_run_at: expect.any(Number) });
  expect(entry()!.next_run_at!).toBeLessThanOrEqual(Date.now());
  expect(entry()!.next_run_at!).toBeGreaterThanOrEqual(stoppedAt);

  let delivered = 0;
  const second = await open({
    pending: async () => [],
    async deliver() {
      delivered++;
      return null;
    },
  });
  cleanup.push(() => second.queue.stop(1_000));
  await second.start();
  await waitFor(() => entry() === undefined, 'the next worker to deliver it');
  expect(delivered).toBe(1);
});
