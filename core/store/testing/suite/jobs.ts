/**
 * The store contract for jobs, batches and extraction results: every adapter's test file runs it (see ../suite.ts).
 */
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { BatchRecord, FailureRefund, JobRecord, RefundRule, Store } from '../../types.js';
import {
  type CreateStorage,
  MINUTE,
  HOUR,
  at,
  makeJob,
  extractionRow,
  completion,
  ids,
  useStoreHarness,
} from './harness.js';

/** A failure that gives nothing back, said so (the rule is required). */
const noRefund: RefundRule = () => null;

export function jobsContract(name: string, createStorage: CreateStorage): void {
  describe(`${name}: jobs, batches and extraction results`, () => {
    const harness = useStoreHarness(createStorage);
    let store: Store;
    beforeEach(() => {
      store = harness.store;
    });
    const { newAccount, newJob, doneJob, openAnother } = harness;

    describe('jobs', () => {
      let accountId: string;
      beforeEach(async () => {
        accountId = (await newAccount()).id;
      });

      it('creates a waiting job with every run field at its start value', async () => {
        const input = makeJob(accountId, { kind: 'tool', op: 'compress', viaApi: false });
        const created = await store.jobs.jobs.create(input);
        const expected: JobRecord = {
          ...input,
          batchId: null,
          status: 'waiting',
          progress: 0,
          error: null,
          toolReport: null,
          output: null,
          result: null,
          downloadTokenHash: null,
          refunded: false,
          attempts: 0,
          startedAt: null,
          completedAt: null,
          outputExpiresAt: null,
        };
        expect(created).toEqual(expected);
        expect(await store.jobs.jobs.get(input.id)).toEqual(expected);
        expect(await store.jobs.jobs.get('job_missing')).toBeNull();
      });

      it('createCharged records the job with its charge, or neither past the limit', async () => {
        const job = makeJob(accountId, { creditCost: 60 });
        const charged = await store.jobs.jobs.createCharged(job, 100);
        expect(charged).toEqual({ ok: true, used: 60, job: await store.jobs.jobs.get(job.id) });
        expect(charged.ok && charged.job).toMatchObject({ id: job.id, status: 'waiting', creditCost: 60 });
        const refused = makeJob(accountId, { creditCost: 41 });
        expect(await store.jobs.jobs.createCharged(refused, 100)).toEqual({ ok: false, used: 60 });
        expect(await store.jobs.jobs.get(refused.id)).toBeNull();
        expect((await store.jobs.jobs.createCharged(makeJob(accountId, { creditCost: 41 }), null)).ok).toBe(true);
        expect((await store.credits.usage.get(accountId, job.creditPeriod)).used).toBe(101);
      });

      it('createCharged: a job that cannot be written leaves no charge', async () => {
        const job = await store.jobs.jobs.createCharged(makeJob(accountId, { creditCost: 7 }), null);
        expect(job.ok).toBe(true);
        // The same id again: the job's write fails inside the charge's transaction.
        const again = makeJob(accountId, { id: job.ok ? job.job.id : '', creditCost: 5 });
        await expect(store.jobs.jobs.createCharged(again, null)).rejects.toThrow();
        expect((await store.credits.usage.get(accountId, again.creditPeriod)).used).toBe(7);
      });

      it('createCharged never overspends under concurrent acceptances from several instances', async () => {
        const stores = [store, await openAnother(), await openAnother()];
        // 30 jobs of 3 against 50: exactly 16 fit (48), each charged one has its job and no other has one.
        const jobs = [...Array(30)].map(() => makeJob(accountId, { creditCost: 3 }));
        const results = await Promise.all(
          jobs.map((job, i) => stores[i % stores.length]!.jobs.jobs.createCharged(job, 50)),
        );
        expect(results.filter((r) => r.ok)).toHaveLength(16);
        expect((await store.credits.usage.get(accountId, '2030-01')).used).toBe(48);
        expect((await store.jobs.jobs.listByAccount(accountId, 100, 0)).total).toBe(16);
      });

      it(
        'start moves waiting to active and counts attempts; a restart after a crash keeps the first start ' + 'time',
        async () => {
          const job = await newJob(accountId);
          const first = await store.jobs.jobs.start(job.id, at(1000));
          expect(first).toMatchObject({ status: 'active', attempts: 1, startedAt: at(1000) });
          const again = await store.jobs.jobs.start(job.id, at(5000));
          expect(again).toMatchObject({ status: 'active', attempts: 2, startedAt: at(1000) });
          expect(await store.jobs.jobs.start('job_missing', at())).toBeNull();
        },
      );

      it('start answers null once the job has finished', async () => {
        const done = await doneJob(accountId);
        expect(await store.jobs.jobs.start(done.id, at())).toBeNull();
        const failed = await newJob(accountId);
        await store.jobs.jobs.fail(failed.id, 'boom', at(), noRefund);
        expect(await store.jobs.jobs.start(failed.id, at())).toBeNull();
        expect((await store.jobs.jobs.get(failed.id))?.attempts).toBe(0);
      });

      it('records progress only while active', async () => {
        const job = await newJob(accountId);
        await store.jobs.jobs.setProgress(job.id, 30, 0);
        expect((await store.jobs.jobs.get(job.id))?.progress).toBe(0);
        await store.jobs.jobs.start(job.id, at());
        await store.jobs.jobs.setProgress(job.id, 40, 1);
        expect((await store.jobs.jobs.get(job.id))?.progress).toBe(40);
      });

      it("records progress only from the job's latest attempt: a superseded run's save changes nothing", async () => {
        const job = await newJob(accountId);
        await store.jobs.jobs.start(job.id, at());
        await store.jobs.jobs.setProgress(job.id, 20, 1);
        // The first run's queue lock lapsed and a second attempt started.
        await store.jobs.jobs.start(job.id, at(1000));
        await store.jobs.jobs.setProgress(job.id, 90, 1);
        expect((await store.jobs.jobs.get(job.id))?.progress).toBe(20);
        await store.jobs.jobs.setProgress(job.id, 35, 2);
        expect((await store.jobs.jobs.get(job.id))?.progress).toBe(35);
      });

      it('completes an active job once, with its output, token and report', async () => {
        const job = await newJob(accountId);
        expect(await store.jobs.jobs.complete(job.id, completion())).toBe(false);
        await store.jobs.jobs.start(job.id, at());
        const result = completion({
          toolReport: { op: 'detect-faces', detected: 3 },
          at: at(2000),
          outputExpiresAt: at(HOUR),
        });
        expect(await store.jobs.jobs.complete(job.id, result)).toBe(true);
        expect(await store.jobs.jobs.complete(job.id, completion())).toBe(false);
        expect(await store.jobs.jobs.fail(job.id, 'late failure', at(), noRefund)).toBe(false);
        expect(await store.jobs.jobs.get(job.id)).toMatchObject({
          status: 'done',
          progress: 100,
          output: result.output,
          downloadTokenHash: result.downloadTokenHash,
          toolReport: result.toolReport,
          completedAt: result.at,
          outputExpiresAt: result.outputExpiresAt,
          error: null,
        });
      });

      it('completes an active extraction job once with its row; never from waiting, done or failed', async () => {
        const job = await newJob(accountId, { kind: 'extract', pluginId: 'parse-cv', target: 'json' });
        const row = extractionRow();
        expect(await store.jobs.jobs.completeWithResult(job.id, { result: row, at: at() })).toBe(false);
        expect(await store.jobs.jobs.get(job.id)).toMatchObject({ status: 'waiting', result: null, completedAt: null });
        await store.jobs.jobs.setProgress(job.id, 10, 0);
        await store.jobs.jobs.start(job.id, at(1000));
        await store.jobs.jobs.setProgress(job.id, 60, 1);
        expect(await store.jobs.jobs.completeWithResult(job.id, { result: row, at: at(2000) })).toBe(true);
        expect(await store.jobs.jobs.completeWithResult(job.id, { result: { other: 1 }, at: at(3000) })).toBe(false);
        expect(await store.jobs.jobs.complete(job.id, completion())).toBe(false);
        expect(await store.jobs.jobs.fail(job.id, 'late failure', at(), noRefund)).toBe(false);
        const done = await store.jobs.jobs.get(job.id);
        expect(done).toEqual({
          ...job,
          status: 'done',
          progress: 100,
          attempts: 1,
          startedAt: at(1000),
          completedAt: at(2000),
          result: row,
        });
        expect(done?.result).toEqual(extractionRow());

        const failed = await newJob(accountId, { kind: 'extract' });
        await store.jobs.jobs.start(failed.id, at());
        await store.jobs.jobs.fail(failed.id, 'engine crashed', at(), noRefund);
        expect(await store.jobs.jobs.completeWithResult(failed.id, { result: row, at: at() })).toBe(false);
        expect(await store.jobs.jobs.get(failed.id)).toMatchObject({
          status: 'failed',
          result: null,
          error: 'engine crashed',
        });
        const converted = await doneJob(accountId);
        expect(await store.jobs.jobs.completeWithResult(converted.id, { result: row, at: at() })).toBe(false);
        expect((await store.jobs.jobs.get(converted.id))?.result).toBeNull();
        expect(await store.jobs.jobs.completeWithResult('job_missing', { result: row, at: at() })).toBe(false);
      });

      it('finishes an extraction job once even when workers on several instances race', async () => {
        const job = await newJob(accountId, { kind: 'extract' });
        await store.jobs.jobs.start(job.id, at());
        const stores = [store, await openAnother(), await openAnother()];
        const answers = await Promise.all(
          [...Array(9)].map((_, i) =>
            stores[i % 3]!.jobs.jobs.completeWithResult(job.id, { result: { worker: i }, at: at(i) }),
          ),
        );
        expect(answers.filter(Boolean)).toHaveLength(1);
        const winner = answers.indexOf(true);
        expect(await store.jobs.jobs.get(job.id)).toMatchObject({
          status: 'done',
          result: { worker: winner },
          completedAt: at(winner),
        });
      });

      it(
        'forgets extraction results of jobs created strictly before the cut-off, keeping everything ' + 'else',
        async () => {
          const finish = async (createdAt: Date) => {
            const job = await newJob(accountId, { kind: 'extract', createdAt });
            await store.jobs.jobs.start(job.id, at());
            await store.jobs.jobs.completeWithResult(job.id, { result: extractionRow(), at: at() });
            return job;
          };
          const old = await finish(at(-2 * HOUR));
          const edge = await finish(at(-HOUR));
          const recent = await finish(at(-MINUTE));
          const converted = await doneJob(accountId);
          await store.jobs.jobs.clearResultsBefore(at(-HOUR));
          expect(await store.jobs.jobs.get(old.id)).toMatchObject({
            status: 'done',
            result: null,
            completedAt: at(),
            progress: 100,
          });
          expect((await store.jobs.jobs.get(edge.id))?.result).toEqual(extractionRow());
          expect((await store.jobs.jobs.get(recent.id))?.result).toEqual(extractionRow());
          expect(await store.jobs.jobs.get(converted.id)).toEqual(converted);
          await store.jobs.jobs.clearResultsBefore(at());
          expect((await store.jobs.jobs.get(edge.id))?.result).toBeNull();
          expect((await store.jobs.jobs.get(recent.id))?.result).toBeNull();
          // Idempotent, and harmless on an empty set.
          await store.jobs.jobs.clearResultsBefore(at());
          expect((await store.jobs.jobs.get(old.id))?.result).toBeNull();
        },
      );

      it('fails a waiting or active job once', async () => {
        const waiting = await newJob(accountId);
        expect(await store.jobs.jobs.fail(waiting.id, 'could not queue', at(1000), noRefund)).toBe(true);
        expect(await store.jobs.jobs.get(waiting.id)).toMatchObject({
          status: 'failed',
          error: 'could not queue',
          completedAt: at(1000),
        });
        expect(await store.jobs.jobs.fail(waiting.id, 'again', at(), noRefund)).toBe(false);
        const active = await newJob(accountId);
        await store.jobs.jobs.start(active.id, at());
        expect(await store.jobs.jobs.fail(active.id, 'engine crashed', at(), noRefund)).toBe(true);
        expect(await store.jobs.jobs.complete(active.id, completion())).toBe(false);
        expect((await store.jobs.jobs.get(active.id))?.error).toBe('engine crashed');
      });

      describe('a failure and its refund, one write', () => {
        const PERIOD = '2030-01';
        /** The services' rule, as job-policy.ts's refundOf gives it for a charged job; counts its calls. */
        const creditsBack = () =>
          vi.fn((job: JobRecord): FailureRefund => ({ credits: job.creditCost, period: job.creditPeriod }));
        const used = async () => (await store.credits.usage.get(accountId, PERIOD)).used;
        beforeEach(async () => {
          await store.credits.usage.charge(accountId, PERIOD, 10, null);
        });

        it('gives the credits back once: a second fail, or a cancel after it, gives nothing', async () => {
          const job = await newJob(accountId, { creditCost: 4, creditPeriod: PERIOD });
          await store.jobs.jobs.start(job.id, at());
          const rule = creditsBack();
          expect(await store.jobs.jobs.fail(job.id, 'engine crashed', at(1000), rule)).toBe(true);
          expect(await used()).toBe(6);
          expect(await store.jobs.jobs.get(job.id)).toMatchObject({
            status: 'failed',
            error: 'engine crashed',
            refunded: true,
          });
          expect(await store.jobs.jobs.fail(job.id, 'again', at(2000), rule)).toBe(false);
          expect(await store.jobs.jobs.fail(job.id, 'Cancelled', at(3000), creditsBack())).toBe(false);
          expect(rule).toHaveBeenCalledTimes(1);
          expect(await used()).toBe(6);
          expect(await store.jobs.jobs.get(job.id)).toMatchObject({ error: 'engine crashed', completedAt: at(1000) });
        });

        it('gives them back once when several instances fail the job together', async () => {
          const job = await newJob(accountId, { creditCost: 3, creditPeriod: PERIOD });
          const stores = [store, await openAnother(), await openAnother()];
          const answers = await Promise.all(
            [...Array(9)].map((_, i) =>
              stores[i % stores.length]!.jobs.jobs.fail(job.id, `fail ${i}`, at(i), creditsBack()),
            ),
          );
          expect(answers.filter(Boolean)).toHaveLength(1);
          expect(await used()).toBe(7);
        });

        it('gives nothing for a job that was done, and leaves it done', async () => {
          const job = await doneJob(accountId);
          const rule = creditsBack();
          expect(await store.jobs.jobs.fail(job.id, 'Cancelled', at(), rule)).toBe(false);
          expect(rule).not.toHaveBeenCalled();
          expect(await used()).toBe(10);
          expect((await store.jobs.jobs.get(job.id))?.status).toBe('done');
        });

        it('reads the job as stored at the failure: an import true-up’s cost goes back', async () => {
          const job = await newJob(accountId, { creditCost: 2, creditPeriod: PERIOD });
          await store.jobs.jobs.start(job.id, at());
          await store.jobs.jobs.setImported(job.id, { inputs: [], creditCost: 5 });
          expect(await store.jobs.jobs.fail(job.id, 'too big', at(), creditsBack())).toBe(true);
          expect(await used()).toBe(5);
        });

        it('writes nothing when the rule throws: the job stays unfinished with its credits spent', async () => {
          const job = await newJob(accountId, { creditCost: 4, creditPeriod: PERIOD });
          const broken = () => {
            throw new Error('the process died here');
          };
          await expect(store.jobs.jobs.fail(job.id, 'engine crashed', at(), broken)).rejects.toThrow(
            'the process died',
          );
          expect(await store.jobs.jobs.get(job.id)).toMatchObject({ status: 'waiting', error: null, refunded: false });
          expect(await used()).toBe(10);
          expect(await store.jobs.jobs.fail(job.id, 'engine crashed', at(), creditsBack())).toBe(true);
          expect(await used()).toBe(6);
        });

        it('requires the refund rule: a failure without one writes nothing rather than skip the refund', async () => {
          const job = await newJob(accountId, { creditCost: 4, creditPeriod: PERIOD });
          // @ts-expect-error the rule is required by the port
          await expect(store.jobs.jobs.fail(job.id, 'engine crashed', at())).rejects.toThrow();
          expect(await store.jobs.jobs.get(job.id)).toMatchObject({ status: 'waiting', refunded: false });
          expect(await used()).toBe(10);
        });

        it('gives a free try back, once, and no credits', async () => {
          await store.credits.trials.claim(accountId, 'parse-cv', at());
          const job = await newJob(accountId, { kind: 'extract', op: 'parse-cv', creditCost: 0, creditPeriod: PERIOD });
          const trialBack = () => ({ trialOf: 'parse-cv' });
          expect(await store.jobs.jobs.fail(job.id, 'unreadable', at(), trialBack)).toBe(true);
          expect(await store.jobs.jobs.get(job.id)).toMatchObject({ status: 'failed', refunded: false });
          expect(await used()).toBe(10);
          expect(await store.credits.trials.claim(accountId, 'parse-cv', at(1000))).toBe(true);
          // A second fail does not release the trial taken again.
          expect(await store.jobs.jobs.fail(job.id, 'Cancelled', at(), trialBack)).toBe(false);
          expect(await store.credits.trials.claim(accountId, 'parse-cv', at(2000))).toBe(false);
        });
      });

      it('lists an account’s history newest first, paged, with the total', async () => {
        const other = await newAccount();
        const created: JobRecord[] = [];
        for (let i = 0; i < 5; i++) created.push(await newJob(accountId, { createdAt: at(i * 1000) }));
        await newJob(other.id);
        const newestFirst = ids(created).reverse();
        expect(await store.jobs.jobs.listByAccount(accountId, 10, 0)).toEqual({
          total: 5,
          jobs: [...created].reverse(),
        });
        expect(ids((await store.jobs.jobs.listByAccount(accountId, 2, 0)).jobs)).toEqual(newestFirst.slice(0, 2));
        const page = await store.jobs.jobs.listByAccount(accountId, 2, 3);
        expect(page.total).toBe(5);
        expect(ids(page.jobs)).toEqual(newestFirst.slice(3, 5));
        expect(await store.jobs.jobs.listByAccount(accountId, 10, 5)).toEqual({ total: 5, jobs: [] });
        expect(await store.jobs.jobs.listByAccount('acc_missing', 10, 0)).toEqual({ total: 0, jobs: [] });
      });

      it('orders history by id, descending, among jobs created at the same instant', async () => {
        const same = at();
        for (const id of ['job_b', 'job_c', 'job_a']) await newJob(accountId, { id, createdAt: same });
        expect(ids((await store.jobs.jobs.listByAccount(accountId, 10, 0)).jobs)).toEqual(['job_c', 'job_b', 'job_a']);
      });

      it('lists a batch’s jobs oldest first', async () => {
        const second = await newJob(accountId, { batchId: 'batch_1', createdAt: at(2000) });
        const first = await newJob(accountId, { batchId: 'batch_1', createdAt: at(1000) });
        await newJob(accountId, { batchId: 'batch_2' });
        await newJob(accountId);
        expect(await store.jobs.jobs.listByBatch('batch_1')).toEqual([first, second]);
        expect(first.batchId).toBe('batch_1');
        expect(await store.jobs.jobs.listByBatch('batch_missing')).toEqual([]);
      });

      it('lists unfinished (waiting and active) jobs, oldest first', async () => {
        const active = await newJob(accountId, { createdAt: at(2000) });
        await store.jobs.jobs.start(active.id, at());
        const waiting = await newJob(accountId, { createdAt: at(1000) });
        await doneJob(accountId);
        const failed = await newJob(accountId);
        await store.jobs.jobs.fail(failed.id, 'x', at(), noRefund);
        expect(ids(await store.jobs.jobs.listUnfinished())).toEqual([waiting.id, active.id]);
      });

      it("counts waiting jobs by plugin with the oldest one's acceptance time (queue metrics)", async () => {
        expect(await store.jobs.jobs.waitingByPlugin()).toEqual([]);
        await newJob(accountId, { pluginId: 'image-convert', createdAt: at(3000) });
        await newJob(accountId, { pluginId: 'image-convert', createdAt: at(1000) });
        await newJob(accountId, { pluginId: 'data-convert', createdAt: at(2000) });
        const started = await newJob(accountId, { pluginId: 'data-convert', createdAt: at(500) });
        await store.jobs.jobs.start(started.id, at());
        expect(await store.jobs.jobs.waitingByPlugin()).toEqual([
          { pluginId: 'data-convert', count: 1, oldestAt: at(2000) },
          { pluginId: 'image-convert', count: 2, oldestAt: at(1000) },
        ]);
      });

      it('keeps a pending URL import, then its fetched inputs and trued-up cost while active', async () => {
        const pending = {
          blobKey: 'uploads/u1',
          filename: 'a.png',
          format: 'png' as const,
          bytes: 0,
          source: { url: 'https://example.com/a.png', maxBytes: 1000 },
        };
        const job = await newJob(accountId, { inputs: [pending], creditCost: 1 });
        expect(job.inputs).toEqual([pending]);
        const fetched = { blobKey: 'uploads/u1', filename: 'a.png', format: 'png' as const, bytes: 900 };
        // Only an active job takes them (a cancelled one has nothing to import).
        expect(await store.jobs.jobs.setImported(job.id, { inputs: [fetched], creditCost: 3 })).toBe(false);
        await store.jobs.jobs.start(job.id, at());
        expect(await store.jobs.jobs.setImported(job.id, { inputs: [fetched], creditCost: 3 })).toBe(true);
        const now = (await store.jobs.jobs.get(job.id))!;
        expect([now.inputs, now.creditCost, now.pipeline ?? null]).toEqual([[fetched], 3, null]);
        // A run whose lock lapsed (attempt 1) after another attempt started changes nothing; the latest does.
        await store.jobs.jobs.start(job.id, at());
        expect(await store.jobs.jobs.setImported(job.id, { inputs: [pending], creditCost: 7, attempt: 1 })).toBe(false);
        expect(await store.jobs.jobs.setImported(job.id, { inputs: [fetched], creditCost: 4, attempt: 2 })).toBe(true);
        expect((await store.jobs.jobs.get(job.id))!.creditCost).toBe(4);
      });

      it("keeps a pipeline's steps and an export's state", async () => {
        const step = {
          to: 'pdf',
          pluginId: 'office-convert',
          kind: 'convert' as const,
          options: {},
          inputFormat: 'docx' as const,
          target: 'pdf' as const,
          creditCost: 5,
          status: 'waiting' as const,
          progress: 0,
        };
        const job = await newJob(accountId, {
          pipeline: {
            steps: [
              step,
              {
                ...step,
                to: undefined,
                op: 'compress-pdf',
                pluginId: 'compress-pdf',
                kind: 'tool',
                inputFormat: 'pdf',
              },
            ],
          },
        });
        expect(job.pipeline?.steps).toHaveLength(2);
        const plain = await newJob(accountId);
        expect(plain.pipeline ?? null).toBeNull();
        expect(plain.export ?? null).toBeNull();
        await store.jobs.jobs.setPipeline(job.id, { steps: [{ ...step, status: 'done', progress: 100 }] });
        expect((await store.jobs.jobs.get(job.id))!.pipeline).toEqual({
          steps: [{ ...step, status: 'done', progress: 100 }],
        });
        // Saved by a run: only while its attempt is the job's latest (a run whose lock lapsed changes nothing).
        await store.jobs.jobs.start(job.id, at());
        await store.jobs.jobs.start(job.id, at());
        await store.jobs.jobs.setPipeline(job.id, { steps: [] }, 1);
        expect((await store.jobs.jobs.get(job.id))!.pipeline?.steps).toHaveLength(1);
        await store.jobs.jobs.setPipeline(job.id, { steps: [{ ...step, status: 'active', progress: 50 }] }, 2);
        expect((await store.jobs.jobs.get(job.id))!.pipeline?.steps).toEqual([
          { ...step, status: 'active', progress: 50 },
        ]);
        await store.jobs.jobs.fail(job.id, 'x', at(), noRefund);
        // A finished job's steps stay as they were; its export state may still change.
        await store.jobs.jobs.setPipeline(job.id, { steps: [] });
        expect((await store.jobs.jobs.get(job.id))!.pipeline?.steps).toHaveLength(1);
        await store.jobs.jobs.setExport(job.id, {
          type: 's3',
          bucket: 'b',
          key: 'out/x.pdf',
          status: 'done',
          location: 'http://s3/b/out/x.pdf',
          etag: '"e"',
        });
        expect((await store.jobs.jobs.get(job.id))!.export).toEqual({
          type: 's3',
          bucket: 'b',
          key: 'out/x.pdf',
          status: 'done',
          location: 'http://s3/b/out/x.pdf',
          etag: '"e"',
        });
      });

      it("view reads what a poll shows, as get has it; an extraction's row only with a pipeline", async () => {
        const viewOf = ({
          id,
          accountId,
          status,
          progress,
          error,
          toolReport,
          output,
          result,
          ...rest
        }: JobRecord) => ({
          id,
          accountId,
          status,
          progress,
          error,
          toolReport,
          output,
          result,
          downloadTokenHash: rest.downloadTokenHash,
          completedAt: rest.completedAt,
          ...(rest.pipeline ? { pipeline: rest.pipeline } : {}),
          ...(rest.export ? { export: rest.export } : {}),
        });
        const waiting = await newJob(accountId);
        expect(await store.jobs.jobs.view(waiting.id)).toEqual(viewOf(waiting));
        const converted = await newJob(accountId);
        await store.jobs.jobs.start(converted.id, at());
        await store.jobs.jobs.complete(converted.id, completion({ toolReport: { op: 'detect-faces', detected: 1 } }));
        await store.jobs.jobs.setExport(converted.id, { type: 's3', bucket: 'b', key: 'k', status: 'pending' });
        expect(await store.jobs.jobs.view(converted.id)).toEqual(viewOf((await store.jobs.jobs.get(converted.id))!));
        const failed = await newJob(accountId);
        await store.jobs.jobs.fail(failed.id, 'engine crashed', at(5), noRefund);
        expect(await store.jobs.jobs.view(failed.id)).toEqual(viewOf((await store.jobs.jobs.get(failed.id))!));

        const step = {
          extract: 'pdf-to-markdown',
          pluginId: 'pdf-to-markdown',
          kind: 'extract' as const,
          options: {},
          inputFormat: 'pdf' as const,
          target: 'json' as const,
          creditCost: 1,
          status: 'done' as const,
          progress: 100,
        };
        const row = extractionRow();
        const extracted = await newJob(accountId, { kind: 'extract', target: 'json' });
        const piped = await newJob(accountId, { kind: 'extract', target: 'json', pipeline: { steps: [step] } });
        for (const job of [extracted, piped]) {
          await store.jobs.jobs.start(job.id, at());
          await store.jobs.jobs.completeWithResult(job.id, { result: row, at: at(2000) });
        }
        // Without a pipeline the poll shows no row: a store may leave it out.
        const { result, ...extractedView } = (await store.jobs.jobs.view(extracted.id))!;
        expect(extractedView).toEqual({ ...viewOf((await store.jobs.jobs.get(extracted.id))!), result: undefined });
        expect([null, row]).toContainEqual(result);
        const pipedView = await store.jobs.jobs.view(piped.id);
        expect(pipedView).toEqual(viewOf((await store.jobs.jobs.get(piped.id))!));
        expect(pipedView?.result).toEqual(row);
        expect(await store.jobs.jobs.view('job_missing')).toBeNull();
      });

      it('lists jobs whose inputs are due and still present, until they are cleared', async () => {
        const now = at();
        const due = await newJob(accountId, { inputsExpireAt: at(-MINUTE) });
        const dueNow = await newJob(accountId, { inputsExpireAt: now });
        await newJob(accountId, { inputsExpireAt: at(MINUTE) });
        await newJob(accountId, { inputsExpireAt: at(-MINUTE), inputs: [] });
        expect(ids(await store.jobs.jobs.listInputsDue(now)).sort()).toEqual([due.id, dueNow.id].sort());
        await store.jobs.jobs.clearInputs(due.id);
        expect((await store.jobs.jobs.get(due.id))?.inputs).toEqual([]);
        expect(ids(await store.jobs.jobs.listInputsDue(now))).toEqual([dueNow.id]);
      });

      it('lists outputs due after their expiry; clearing removes the output and its token', async () => {
        const now = at();
        const due = await doneJob(accountId, completion({ outputExpiresAt: at(-MINUTE) }));
        await doneJob(accountId, completion({ outputExpiresAt: at(MINUTE) }));
        await newJob(accountId);
        expect(ids(await store.jobs.jobs.listOutputsDue(now))).toEqual([due.id]);
        await store.jobs.jobs.clearOutput(due.id);
        expect(await store.jobs.jobs.get(due.id)).toMatchObject({
          status: 'done',
          output: null,
          downloadTokenHash: null,
        });
        expect(await store.jobs.jobs.listOutputsDue(now)).toEqual([]);
      });

      it('extends an output’s life but never shortens it', async () => {
        const job = await doneJob(accountId, completion({ outputExpiresAt: at(HOUR) }));
        await store.jobs.jobs.extendOutput(job.id, at(2 * HOUR));
        expect((await store.jobs.jobs.get(job.id))?.outputExpiresAt).toEqual(at(2 * HOUR));
        await store.jobs.jobs.extendOutput(job.id, at(MINUTE));
        expect((await store.jobs.jobs.get(job.id))?.outputExpiresAt).toEqual(at(2 * HOUR));
        expect(ids(await store.jobs.jobs.listOutputsDue(at(HOUR + MINUTE)))).toEqual([]);
      });

      it('forgets download-token hashes of jobs completed at or before the cut-off, keeping the output', async () => {
        const old = await doneJob(accountId, completion({ at: at(-20 * MINUTE) }));
        const edge = await doneJob(accountId, completion({ at: at(-15 * MINUTE) }));
        const recent = await doneJob(accountId, completion({ at: at(-MINUTE) }));
        await store.jobs.jobs.clearExpiredDownloadTokens(at(-15 * MINUTE));
        expect(await store.jobs.jobs.get(old.id)).toMatchObject({ downloadTokenHash: null, output: old.output });
        expect((await store.jobs.jobs.get(edge.id))?.downloadTokenHash).toBeNull();
        expect((await store.jobs.jobs.get(recent.id))?.downloadTokenHash).toBe(recent.downloadTokenHash);
      });
    });

    describe('batches', () => {
      it('round-trips a batch conversion (tool null) and answers null for an unknown id', async () => {
        const account = await newAccount();
        const batch: BatchRecord = {
          id: `batch_${randomUUID()}`,
          accountId: account.id,
          tool: null,
          total: 3,
          errors: [{ filename: 'x.xyz', error: 'Unsupported format: xyz' }],
          createdAt: at(),
        };
        await store.jobs.batches.create(batch);
        expect(await store.jobs.batches.get(batch.id)).toEqual(batch);
        expect(await store.jobs.batches.get('batch_missing')).toBeNull();
      });

      it('round-trips an extraction batch with its tool', async () => {
        const account = await newAccount();
        const batch: BatchRecord = {
          id: `batch_${randomUUID()}`,
          accountId: account.id,
          tool: 'parse-cv',
          total: 1,
          errors: [],
          createdAt: at(1000),
        };
        await store.jobs.batches.create(batch);
        expect(await store.jobs.batches.get(batch.id)).toEqual(batch);
      });

      it("keeps a batch's export state and replaces it as the upload goes", async () => {
        const account = await newAccount();
        const batch: BatchRecord = {
          id: `batch_${randomUUID()}`,
          accountId: account.id,
          tool: null,
          total: 2,
          errors: [],
          createdAt: at(),
        };
        await store.jobs.batches.create(batch);
        expect((await store.jobs.batches.get(batch.id))!.export ?? null).toBeNull();
        await store.jobs.batches.setExport(batch.id, {
          type: 's3',
          bucket: 'b',
          key: 'out/all.zip',
          status: 'pending',
        });
        expect((await store.jobs.batches.get(batch.id))!.export).toEqual({
          type: 's3',
          bucket: 'b',
          key: 'out/all.zip',
          status: 'pending',
        });
        await store.jobs.batches.setExport(batch.id, {
          type: 's3',
          bucket: 'b',
          key: 'out/all.zip',
          status: 'failed',
          error: 'NoSuchBucket: gone',
        });
        expect((await store.jobs.batches.get(batch.id))!.export).toEqual({
          type: 's3',
          bucket: 'b',
          key: 'out/all.zip',
          status: 'failed',
          error: 'NoSuchBucket: gone',
        });
      });

      it('lists the exports of jobs and batches still pending or uploading (abandoned-export recovery)', async () => {
        const account = await newAccount();
        const state = { type: 's3' as const, bucket: 'b', key: 'k', heldUntil: at(5000).toISOString() };
        const jobs = await Promise.all([1, 2, 3].map(() => newJob(account.id)));
        await store.jobs.jobs.setExport(jobs[0]!.id, { ...state, status: 'pending' });
        await store.jobs.jobs.setExport(jobs[1]!.id, { ...state, status: 'uploading' });
        await store.jobs.jobs.setExport(jobs[2]!.id, { ...state, status: 'done' });
        const batch: BatchRecord = {
          id: `batch_${randomUUID()}`,
          accountId: account.id,
          tool: null,
          total: 1,
          errors: [],
          createdAt: at(),
        };
        await store.jobs.batches.create(batch);
        await store.jobs.batches.setExport(batch.id, { ...state, status: 'pending' });
        const mine = (list: Array<{ id: string }>, ids: string[]) =>
          list.filter((e) => ids.includes(e.id)).sort((a, b) => ids.indexOf(a.id) - ids.indexOf(b.id));
        expect(
          mine(
            await store.jobs.jobs.listOpenExports(),
            jobs.map((j) => j.id),
          ),
        ).toEqual([
          { id: jobs[0]!.id, export: { ...state, status: 'pending' } },
          { id: jobs[1]!.id, export: { ...state, status: 'uploading' } },
        ]);
        expect(mine(await store.jobs.batches.listOpenExports(), [batch.id])).toEqual([
          { id: batch.id, export: { ...state, status: 'pending' } },
        ]);
      });
    });
  });
}
