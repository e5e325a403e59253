/**
 * Webhook deliveries per second from one worker against a local receiver, as ratios against
 * plain fetch loops in the same run (sequential, and as many in flight as the worker runs).
 * The worker path is the production one: a real SQLite store and Agenda queue, one
 * deliver-webhook entry per delivery, each attempt checked (DNS, address class), signed
 * (Standard Webhooks), posted, logged and recorded. A third row times WebhookService.deliver
 * called in a loop, without the queue, to tell the queue's share from the service's.
 *
 *   npx tsx bench/webhooks.ts [deliveries=500]
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../core/contract/index.js';
import { Queue } from '../core/queue/index.js';
import { SqliteBackend } from '../core/queue/sqlite-backend/index.js';
import { WebhookService } from '../core/services/webhooks.js';
import { SqliteStore, openSqliteDatabase } from '../core/store/sqlite/index.js';

const total = Number(process.argv[2] ?? 500);
const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(204).end());
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-webhooks-'));
const db = openSqliteDatabase(path.join(dir, 'transmute.db'));
const store = new SqliteStore(db);
const queue = new Queue({
  backend: new SqliteBackend({ database: db }),
  processEveryMs: 50,
  lockLifetimeMs: 60_000,
  log: silent,
});
const sources = {
  job: async () => ({ status: 'done', downloadUrl: 'http://localhost/api/download/x', expiresIn: 900 }),
  batch: async () => ({}),
  extraction: async () => ({}),
};
const webhooks = new WebhookService(
  store,
  { now: () => new Date() },
  silent,
  { tokenSecret: 'b'.repeat(32), allowPrivate: true },
  sources,
  queue,
);

try {
  const account = {
    id: `acc_${randomUUID()}`,
    plan: 'business' as const,
    email: null,
    emailVerified: true,
    overageEnabled: false,
    creditsIncluded: null,
    requestsPerMinute: null,
    createdAt: new Date(),
  };
  await store.accounts.accounts.create(account);
  const principal = { account, keyId: 'bench' };
  const { endpoint } = await webhooks.create(principal, { url });
  const body = JSON.stringify({ type: 'job.done', timestamp: new Date().toISOString(), data: await sources.job() });

  const newDeliveries = async (n: number) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const id = `msg_${randomUUID()}`;
      await store.webhooks.webhookDeliveries.create({
        id,
        accountId: account.id,
        eventKey: `job.done:${id}`,
        type: 'job.done',
        subjectId: id,
        endpointId: endpoint.id,
        url,
        nextAttemptAt: new Date(),
        createdAt: new Date(),
      });
      ids.push(id);
    }
    return ids;
  };

  // 1. Plain fetch, one at a time.
  let started = performance.now();
  for (let i = 0; i < total; i++)
    await (await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json' } })).arrayBuffer();
  const fetchSequential = total / ((performance.now() - started) / 1000);

  // 2. Plain fetch, 16 in flight (what one worker runs at once).
  started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next++ < total)
        await (
          await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json' } })
        ).arrayBuffer();
    }),
  );
  const fetchParallel = total / ((performance.now() - started) / 1000);

  // 3. WebhookService.deliver in a loop: no queue.
  const direct = await newDeliveries(total);
  started = performance.now();
  for (const id of direct) await webhooks.deliver(id);
  const serviceSequential = total / ((performance.now() - started) / 1000);

  // 4. The worker: deliveries queued, one worker (16 at once) takes them off the queue.
  const queued = await newDeliveries(total);
  for (const id of queued) await queue.enqueueDelivery(id);
  started = performance.now();
  await queue.startWorkers({
    runner: { run: async () => undefined, triage: async () => 'leave' },
    retention: { purge: async () => undefined },
    store,
    concurrency: 1,
    plugins: [],
    webhooks,
  });
  for (;;) {
    const pending = await store.webhooks.webhookDeliveries.listPending();
    if (!pending.length) break;
    await sleep(20);
  }
  const worker = total / ((performance.now() - started) / 1000);
  const delivered = (await Promise.all(queued.map((id) => store.webhooks.webhookDeliveries.get(id)))).filter(
    (d) => d?.status === 'delivered',
  ).length;

  console.log(
    `webhooks bench: ${total} deliveries per row, local receiver answering 204; ${os.cpus().length} CPUs, load ` +
      `average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
  );
  console.log('| path | deliveries/s | vs sequential fetch | vs 16 fetches in flight |');
  console.log('|---|---|---|---|');
  const row = (name: string, rate: number) =>
    console.log(
      `| ${name} | ${rate.toFixed(0)} | ${(rate / fetchSequential).toFixed(2)} | ` +
        `${(rate / fetchParallel).toFixed(2)} |`,
    );
  row('plain fetch, sequential', fetchSequential);
  row('plain fetch, 16 in flight', fetchParallel);
  row('WebhookService.deliver, sequential (no queue)', serviceSequential);
  row('one worker (queue, 16 at once)', worker);
  console.log(`worker: ${delivered}/${total} delivered, one record each`);
} finally {
  await queue.stop(1_000);
  await store.close();
  receiver.close();
  await rm(dir, { recursive: true, force: true });
}
