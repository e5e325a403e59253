/** The store contract for webhooks: every adapter's test file runs it (see ../suite.ts). */
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { NewWebhookDelivery, Store, WebhookEndpointRecord } from '../../types.js';
import { type CreateStorage, HOUR, at, completion, useStoreHarness } from './harness.js';

export function webhooksContract(name: string, createStorage: CreateStorage): void {
  describe(`${name}: webhooks`, () => {
    const harness = useStoreHarness(createStorage);
    let store: Store;
    beforeEach(() => {
      store = harness.store;
    });
    const { newAccount, newJob, doneJob, openAnother } = harness;

    describe('webhooks', () => {
      function makeEndpoint(accountId: string, overrides: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord {
        return {
          id: `whe_${randomUUID()}`,
          accountId,
          url: 'https://hooks.example.com/in',
          description: 'Zoë’s receiver',
          events: ['job.done', 'batch.done'],
          secret: 'sealed-1',
          previousSecret: null,
          previousExpiresAt: null,
          disabledAt: null,
          disabledReason: null,
          failingSince: null,
          createdAt: at(),
          updatedAt: at(),
          ...overrides,
        };
      }
      function makeDelivery(accountId: string, overrides: Partial<NewWebhookDelivery> = {}): NewWebhookDelivery {
        return {
          id: `msg_${randomUUID()}`,
          accountId,
          eventKey: `job.done:${randomUUID()}`,
          type: 'job.done',
          subjectId: 'job_1',
          endpointId: 'whe_1',
          url: 'https://hooks.example.com/in',
          nextAttemptAt: at(),
          createdAt: at(),
          ...overrides,
        };
      }

      it('endpoints: round-trip, list oldest first, update only what is given, delete with their log', async () => {
        const account = await newAccount();
        const first = makeEndpoint(account.id);
        const second = makeEndpoint(account.id, { createdAt: at(1000), events: null, description: null });
        await store.webhooks.webhookEndpoints.create(second);
        await store.webhooks.webhookEndpoints.create(first);
        await store.webhooks.webhookEndpoints.create(makeEndpoint((await newAccount()).id));
        expect(await store.webhooks.webhookEndpoints.get(first.id)).toEqual(first);
        expect(await store.webhooks.webhookEndpoints.get('whe_missing')).toBeNull();
        expect((await store.webhooks.webhookEndpoints.listByAccount(account.id)).map((e) => e.id)).toEqual([
          first.id,
          second.id,
        ]);
        await store.webhooks.webhookEndpoints.update(first.id, {
          url: 'https://b.example.com',
          events: ['job.failed'],
          previousSecret: 'sealed-0',
          previousExpiresAt: at(HOUR),
          disabledAt: at(5),
          disabledReason: 'x',
          failingSince: at(2),
          updatedAt: at(9),
          description: undefined,
        });
        expect(await store.webhooks.webhookEndpoints.get(first.id)).toEqual({
          ...first,
          url: 'https://b.example.com',
          events: ['job.failed'],
          previousSecret: 'sealed-0',
          previousExpiresAt: at(HOUR),
          disabledAt: at(5),
          disabledReason: 'x',
          failingSince: at(2),
          updatedAt: at(9),
        });
        await store.webhooks.webhookEndpoints.update(first.id, {
          disabledAt: null,
          disabledReason: null,
          failingSince: null,
          description: null,
        });
        expect(await store.webhooks.webhookEndpoints.get(first.id)).toMatchObject({
          disabledAt: null,
          disabledReason: null,
          failingSince: null,
          description: null,
        });
        await store.webhooks.webhookAttempts.add(
          {
            deliveryId: 'msg_1',
            endpointId: first.id,
            type: 'job.done',
            at: at(),
            statusCode: 200,
            latencyMs: 3,
            error: null,
          },
          100,
        );
        expect(await store.webhooks.webhookEndpoints.delete(first.id)).toBe(true);
        expect(await store.webhooks.webhookEndpoints.delete(first.id)).toBe(false);
        expect(await store.webhooks.webhookEndpoints.get(first.id)).toBeNull();
        expect(await store.webhooks.webhookAttempts.listByEndpoint(first.id, 100)).toEqual([]);
      });

      it('account secrets: put creates, then replaces', async () => {
        const account = await newAccount();
        expect(await store.webhooks.webhookSecrets.get(account.id)).toBeNull();
        const record = {
          accountId: account.id,
          secret: 's1',
          previousSecret: null,
          previousExpiresAt: null,
          createdAt: at(),
        };
        await store.webhooks.webhookSecrets.put(record);
        expect(await store.webhooks.webhookSecrets.get(account.id)).toEqual(record);
        const rotated = {
          ...record,
          secret: 's2',
          previousSecret: 's1',
          previousExpiresAt: at(HOUR),
          createdAt: at(5),
        };
        await store.webhooks.webhookSecrets.put(rotated);
        expect(await store.webhooks.webhookSecrets.get(account.id)).toEqual(rotated);
      });

      it('deliveries: one record per event and target, even from concurrent stores', async () => {
        const account = await newAccount();
        const delivery = makeDelivery(account.id);
        const other = await openAnother();
        const rivals = [
          delivery,
          { ...delivery, id: `msg_${randomUUID()}` },
          { ...delivery, id: `msg_${randomUUID()}` },
        ];
        const results = await Promise.all([
          store.webhooks.webhookDeliveries.create(rivals[0]!),
          other.webhooks.webhookDeliveries.create(rivals[1]!),
          store.webhooks.webhookDeliveries.create(rivals[2]!),
        ]);
        expect(results.filter(Boolean)).toHaveLength(1);
        // Whichever insert won (concurrent stores promise no order) is the one record.
        const winner = rivals[results.indexOf(true)]!;
        // Another target of the same event, and an override URL of it, are their own records.
        expect(
          await store.webhooks.webhookDeliveries.create({
            ...delivery,
            id: `msg_${randomUUID()}`,
            endpointId: 'whe_2',
          }),
        ).toBe(true);
        expect(
          await store.webhooks.webhookDeliveries.create({ ...delivery, id: `msg_${randomUUID()}`, endpointId: null }),
        ).toBe(true);
        expect(
          await store.webhooks.webhookDeliveries.create({ ...delivery, id: `msg_${randomUUID()}`, endpointId: null }),
        ).toBe(false);
        expect(await store.webhooks.webhookDeliveries.get(winner.id)).toEqual({
          ...winner,
          status: 'pending',
          attempts: 0,
          lastStatusCode: null,
          lastError: null,
          completedAt: null,
        });
        expect(await store.webhooks.webhookDeliveries.get('msg_missing')).toBeNull();
      });

      it('deliveries: retried while pending, finished once, listed while pending', async () => {
        const account = await newAccount();
        const a = makeDelivery(account.id);
        const b = makeDelivery(account.id, { createdAt: at(1000) });
        await store.webhooks.webhookDeliveries.create(b);
        await store.webhooks.webhookDeliveries.create(a);
        expect((await store.webhooks.webhookDeliveries.listPending()).map((d) => d.id)).toEqual([a.id, b.id]);
        expect(
          await store.webhooks.webhookDeliveries.retryLater(a.id, {
            statusCode: 500,
            error: 'HTTP 500',
            nextAttemptAt: at(5000),
          }),
        ).toBe(true);
        expect(await store.webhooks.webhookDeliveries.get(a.id)).toMatchObject({
          status: 'pending',
          attempts: 1,
          lastStatusCode: 500,
          lastError: 'HTTP 500',
          nextAttemptAt: at(5000),
        });
        expect(
          await store.webhooks.webhookDeliveries.finish(a.id, {
            status: 'delivered',
            statusCode: 204,
            error: null,
            at: at(6000),
          }),
        ).toBe(true);
        expect(
          await store.webhooks.webhookDeliveries.finish(a.id, {
            status: 'failed',
            statusCode: null,
            error: 'late',
            at: at(7000),
          }),
        ).toBe(false);
        expect(
          await store.webhooks.webhookDeliveries.retryLater(a.id, {
            statusCode: 500,
            error: 'late',
            nextAttemptAt: at(8000),
          }),
        ).toBe(false);
        expect(await store.webhooks.webhookDeliveries.get(a.id)).toMatchObject({
          status: 'delivered',
          attempts: 2,
          lastStatusCode: 204,
          lastError: null,
          nextAttemptAt: null,
          completedAt: at(6000),
        });
        await store.webhooks.webhookDeliveries.finish(b.id, {
          status: 'failed',
          statusCode: null,
          error: 'timed out',
          at: at(9000),
        });
        expect(await store.webhooks.webhookDeliveries.listPending()).toEqual([]);
      });

      it('attempts: newest first, only the newest kept per endpoint', async () => {
        for (let i = 0; i < 7; i++) {
          await store.webhooks.webhookAttempts.add(
            {
              deliveryId: `msg_${i}`,
              endpointId: 'whe_log',
              type: 'job.done',
              at: at(i),
              statusCode: i % 2 ? 500 : null,
              latencyMs: i,
              error: i % 2 ? null : 'refused',
            },
            5,
          );
        }
        await store.webhooks.webhookAttempts.add(
          {
            deliveryId: 'msg_x',
            endpointId: 'whe_other',
            type: 'webhook.test',
            at: at(),
            statusCode: 200,
            latencyMs: 1,
            error: null,
          },
          5,
        );
        const log = await store.webhooks.webhookAttempts.listByEndpoint('whe_log', 100);
        expect(log.map((a) => a.deliveryId)).toEqual(['msg_6', 'msg_5', 'msg_4', 'msg_3', 'msg_2']);
        expect(log[1]).toEqual({
          deliveryId: 'msg_5',
          endpointId: 'whe_log',
          type: 'job.done',
          at: at(5),
          statusCode: 500,
          latencyMs: 5,
          error: null,
        });
        expect(await store.webhooks.webhookAttempts.listByEndpoint('whe_log', 2)).toHaveLength(2);
      });

      it('jobs finished since a time: done and failed, oldest first, ids and times', async () => {
        const account = await newAccount();
        const early = await doneJob(account.id, completion({ at: at(-HOUR) }));
        const done = await doneJob(account.id, completion({ at: at(2000) }));
        const failed = await newJob(account.id);
        await store.jobs.jobs.fail(failed.id, 'nope', at(1000), () => null);
        await newJob(account.id); // waiting
        const active = await newJob(account.id);
        await store.jobs.jobs.start(active.id, at());
        const batched = await newJob(account.id, { batchId: 'batch_1', kind: 'extract' });
        await store.jobs.jobs.start(batched.id, at());
        await store.jobs.jobs.completeWithResult(batched.id, { result: {}, at: at(3000) });
        expect(await store.jobs.jobs.listFinishedSince(at())).toEqual([
          {
            id: failed.id,
            accountId: account.id,
            batchId: null,
            kind: 'convert',
            status: 'failed',
            completedAt: at(1000),
          },
          { id: done.id, accountId: account.id, batchId: null, kind: 'convert', status: 'done', completedAt: at(2000) },
          {
            id: batched.id,
            accountId: account.id,
            batchId: 'batch_1',
            kind: 'extract',
            status: 'done',
            completedAt: at(3000),
          },
        ]);
        expect((await store.jobs.jobs.listFinishedSince(at(-HOUR))).map((j) => j.id)).toEqual([
          early.id,
          failed.id,
          done.id,
          batched.id,
        ]);
      });

      it('targets: the override URL of a job or batch', async () => {
        const account = await newAccount();
        expect(await store.webhooks.webhookTargets.get('job_x')).toBeNull();
        await store.webhooks.webhookTargets.put({
          subjectId: 'job_x',
          accountId: account.id,
          url: 'https://a.example.com/',
          createdAt: at(),
        });
        expect(await store.webhooks.webhookTargets.get('job_x')).toEqual({
          subjectId: 'job_x',
          accountId: account.id,
          url: 'https://a.example.com/',
          createdAt: at(),
        });
      });
    });
  });
}
