import { createInterface } from 'node:readline';
import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it as vitestIt } from 'vitest';
import { Agenda, type AgendaBackend, type JobParameters, type JobRepository } from 'agenda';
import type { ConformanceWorkerOptions, WorkerEvent } from './suite-worker.js';

/**
 * Storage for one run of the suite (a database file, a schema, a key prefix...) that any
 * number of backends can connect to, each with its own connection, as separate worker
 * processes would.
 */
export interface BackendStorage {
  /** A new, not yet connected backend on this storage. */
  openBackend(): AgendaBackend;
  /**
   * Starts another OS process on this storage whose entry point calls `runConformanceWorker`
   * (suite-worker.ts) with `options`, stdout piped. Cross-process tests are skipped without it.
   */
  spawnWorker?(options: ConformanceWorkerOptions): ChildProcess;
  /** Closes whatever the storage holds open and deletes it. */
  destroy(): Promise<void>;
}

const PROCESS_EVERY_MS = 50;
const HOUR_MS = 60 * 60 * 1000;

function jobParams(name: string, overrides: Partial<JobParameters> = {}): JobParameters {
  return { name, priority: 0, nextRunAt: new Date(), type: 'normal', data: {}, ...overrides };
}

function ago(ms: number): Date {
  return new Date(Date.now() - ms);
}

function fromNow(ms: number): Date {
  return new Date(Date.now() + ms);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

/**
 * The repository's own lock picker as a worker calls it: due before the next scan, locks older than lockLifetime
 * expired.
 */
function nextJob(repository: JobRepository, name: string, lockLifetimeMs = 10 * 60 * 1000) {
  return repository.getNextJobToRun(name, fromNow(PROCESS_EVERY_MS), ago(lockLifetimeMs), new Date(), undefined);
}

/** Collects the JSON lines a conformance worker prints. */
function recordWorkerEvents(child: ChildProcess, events: WorkerEvent[]): void {
  if (!child.stdout) throw new Error('spawnWorker must pipe the child’s stdout');
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line.startsWith('{')) events.push(JSON.parse(line) as WorkerEvent);
  });
}

async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(3000).then(() => child.kill('SIGKILL'))]);
}

/**
 * Behaviour every Agenda 6 backend must show, modelled on Agenda's shared backend tests
 * (repository contract, then Agenda running on the backend), plus the multi-worker
 * guarantees this project relies on: a job is never run twice at once, and a job whose
 * worker died is picked up again once its lock expires.
 */
export function backendConformanceSuite(
  name: string,
  createStorage: () => Promise<BackendStorage>,
  options: { deviations?: Record<string, string> } = {},
): void {
  // A backend this project uses as published may differ where the project relies on nothing:
  // each such test is listed by title with the reason, and shows as skipped with it.
  const deviations = options.deviations ?? {};
  const it = ((title: string, ...rest: unknown[]) => {
    const reason = deviations[title];
    return reason
      ? Reflect.apply(vitestIt.skip, undefined, [`${title} (${name} differs: ${reason})`, ...rest])
      : Reflect.apply(vitestIt, undefined, [title, ...rest]);
  }) as typeof vitestIt;
  describe(`${name}: backend conformance`, () => {
    let storage: BackendStorage;
    let backend: AgendaBackend;
    let repo: JobRepository;

    beforeAll(async () => {
      storage = await createStorage();
      backend = storage.openBackend();
      await backend.connect();
      repo = backend.repository;
    });

    afterAll(async () => {
      await backend.disconnect();
      await storage.destroy();
    });

    beforeEach(async () => {
      await repo.purgeAllJobs();
    });

    describe('saveJob', () => {
      it('inserts a job, assigns an id and round-trips every field', async () => {
        const dates = { nextRunAt: fromNow(1000), startDate: ago(HOUR_MS), endDate: fromNow(HOUR_MS) };
        const saved = await repo.saveJob(
          jobParams('round-trip', {
            ...dates,
            priority: 10,
            data: { text: 'é', list: [1, 2], nested: { ok: true } },
            repeatInterval: 60_000,
            repeatTimezone: 'Europe/Paris',
            skipDays: [0, 6],
            disabled: true,
          }),
          { lastModifiedBy: 'tester' },
        );
        expect(saved._id).toEqual(expect.any(String));
        const stored = await repo.getJobById(String(saved._id));
        expect(stored).toMatchObject({
          _id: saved._id,
          name: 'round-trip',
          priority: 10,
          type: 'normal',
          data: { text: 'é', list: [1, 2], nested: { ok: true } },
          repeatInterval: 60_000,
          repeatTimezone: 'Europe/Paris',
          skipDays: [0, 6],
          disabled: true,
          lastModifiedBy: 'tester',
          ...dates,
        });
        expect(stored?.nextRunAt).toBeInstanceOf(Date);
        expect(stored?.lockedAt ?? null).toBeNull();
      });

      it('keeps a string repeatInterval a string', async () => {
        const saved = await repo.saveJob(jobParams('interval', { repeatInterval: '5 minutes' }), undefined);
        expect((await repo.getJobById(String(saved._id)))?.repeatInterval).toBe('5 minutes');
      });

      it('updates a job that has an id, keeping the id', async () => {
        const saved = await repo.saveJob(jobParams('update', { priority: 5, data: { version: 1 } }), undefined);
        const updated = await repo.saveJob(
          { ...saved, priority: 20, data: { version: 2 } },
          { lastModifiedBy: 'editor' },
        );
        expect(updated._id).toBe(saved._id);
        expect(updated).toMatchObject({ priority: 20, data: { version: 2 }, lastModifiedBy: 'editor' });
        expect((await repo.queryJobs({ name: 'update' })).total).toBe(1);
      });

      it('returns a job removed meanwhile unchanged instead of recreating it', async () => {
        const saved = await repo.saveJob(jobParams('removed'), undefined);
        await repo.removeJobs({ id: saved._id });
        const result = await repo.saveJob({ ...saved, priority: 3 }, undefined);
        expect(result.priority).toBe(3);
        expect(await repo.getJobById(String(saved._id))).toBeNull();
      });

      it('does not release the lock of a running job when saved without run-state fields', async () => {
        const saved = await repo.saveJob(jobParams('locked-save', { nextRunAt: ago(1000) }), undefined);
        const locked = await repo.lockJob(saved, undefined);
        expect(locked?.lockedAt).toBeInstanceOf(Date);
        // What Job.save() sends: everything but the processor-managed fields.
        const { lockedAt: _lockedAt, ...userFields } = locked!;
        await repo.saveJob({ ...userFields, data: { edited: true } }, undefined);
        const stored = await repo.getJobById(String(saved._id));
        expect(stored?.lockedAt?.getTime()).toBe(locked?.lockedAt?.getTime());
        expect(stored?.data).toEqual({ edited: true });
      });

      describe("type 'single' (every)", () => {
        it('keeps one job per name, updated in place', async () => {
          const first = await repo.saveJob(
            jobParams('single', { type: 'single', nextRunAt: fromNow(60_000), data: { run: 1 } }),
            undefined,
          );
          const second = await repo.saveJob(
            jobParams('single', { type: 'single', nextRunAt: fromNow(120_000), priority: 10, data: { run: 2 } }),
            undefined,
          );
          expect(second._id).toBe(first._id);
          expect(second).toMatchObject({ priority: 10, data: { run: 2 } });
          expect(second.nextRunAt?.getTime()).toBeGreaterThan(first.nextRunAt!.getTime());
          expect((await repo.queryJobs({ name: 'single' })).total).toBe(1);
        });

        it('keeps the stored schedule when saved again with a nextRunAt already due', async () => {
          const scheduled = fromNow(60_000);
          await repo.saveJob(jobParams('single-due', { type: 'single', nextRunAt: scheduled }), undefined);
          const again = await repo.saveJob(
            jobParams('single-due', { type: 'single', nextRunAt: new Date() }),
            undefined,
          );
          expect(again.nextRunAt?.getTime()).toBe(scheduled.getTime());
        });

        it('does not merge with normal jobs of the same name', async () => {
          await repo.saveJob(jobParams('mixed'), undefined);
          await repo.saveJob(jobParams('mixed', { type: 'single' }), undefined);
          await repo.saveJob(jobParams('mixed', { type: 'single' }), undefined);
          expect((await repo.queryJobs({ name: 'mixed' })).total).toBe(2);
        });
      });

      describe('unique', () => {
        it('updates the job matching the unique query instead of inserting', async () => {
          const first = await repo.saveJob(
            jobParams('uniq', { data: { userId: 1, v: 1 }, unique: { 'data.userId': 1 } }),
            undefined,
          );
          const second = await repo.saveJob(
            jobParams('uniq', { data: { userId: 1, v: 2 }, unique: { 'data.userId': 1 } }),
            undefined,
          );
          const other = await repo.saveJob(
            jobParams('uniq', { data: { userId: 2, v: 1 }, unique: { 'data.userId': 2 } }),
            undefined,
          );
          expect(second._id).toBe(first._id);
          expect(second.data).toEqual({ userId: 1, v: 2 });
          expect(other._id).not.toBe(first._id);
          expect((await repo.queryJobs({ name: 'uniq' })).total).toBe(2);
        });

        it('matches values type-exactly', async () => {
          await repo.saveJob(jobParams('uniq-type', { data: { key: 1 }, unique: { 'data.key': 1 } }), undefined);
          await repo.saveJob(jobParams('uniq-type', { data: { key: '1' }, unique: { 'data.key': '1' } }), undefined);
          expect((await repo.queryJobs({ name: 'uniq-type' })).total).toBe(2);
        });

        it('with insertOnly, returns the existing job untouched', async () => {
          const opts = { unique: { 'data.key': 'k' }, uniqueOpts: { insertOnly: true } };
          const first = await repo.saveJob(jobParams('insert-only', { data: { key: 'k', v: 1 }, ...opts }), undefined);
          const second = await repo.saveJob(jobParams('insert-only', { data: { key: 'k', v: 2 }, ...opts }), undefined);
          expect(second._id).toBe(first._id);
          expect(second.data).toEqual({ key: 'k', v: 1 });
        });

        it('with trailing debounce, pushes nextRunAt back on each save, capped by maxWait', async () => {
          const opts = { unique: { 'data.key': 'd' }, uniqueOpts: { debounce: { delay: 1000, maxWait: 1500 } } };
          const before = Date.now();
          const first = await repo.saveJob(jobParams('debounce', { data: { key: 'd' }, ...opts }), undefined);
          expect(first.nextRunAt!.getTime()).toBeGreaterThanOrEqual(before + 1000);
          expect(first.debounceStartedAt).toBeInstanceOf(Date);
          await sleep(700);
          const second = await repo.saveJob(jobParams('debounce', { data: { key: 'd', n: 2 }, ...opts }), undefined);
          expect(second._id).toBe(first._id);
          expect(second.data).toEqual({ key: 'd', n: 2 });
          // now + 1000 would be past debounceStartedAt + maxWait.
          expect(second.nextRunAt!.getTime()).toBe(first.debounceStartedAt!.getTime() + 1500);
          await sleep(900);
          const third = await repo.saveJob(jobParams('debounce', { data: { key: 'd', n: 3 }, ...opts }), undefined);
          expect(third.nextRunAt!.getTime()).toBeLessThanOrEqual(Date.now());
          expect(third.debounceStartedAt ?? undefined).toBeUndefined();
        });

        it('with leading debounce, keeps the first nextRunAt and updates the data', async () => {
          const opts = {
            unique: { 'data.key': 'l' },
            uniqueOpts: { debounce: { delay: 5000, strategy: 'leading' as const } },
          };
          const first = await repo.saveJob(jobParams('leading', { data: { key: 'l', n: 1 }, ...opts }), undefined);
          expect(first.nextRunAt!.getTime()).toBeLessThanOrEqual(Date.now());
          const second = await repo.saveJob(
            jobParams('leading', { nextRunAt: fromNow(10), data: { key: 'l', n: 2 }, ...opts }),
            undefined,
          );
          expect(second.nextRunAt?.getTime()).toBe(first.nextRunAt?.getTime());
          expect(second.data).toEqual({ key: 'l', n: 2 });
        });
      });
    });

    describe('reading', () => {
      it('getJobById returns null for an unknown id', async () => {
        const saved = await repo.saveJob(jobParams('temp'), undefined);
        await repo.removeJobs({ id: saved._id });
        expect(await repo.getJobById(String(saved._id))).toBeNull();
      });

      it('getDistinctJobNames lists each name once', async () => {
        expect(await repo.getDistinctJobNames()).toEqual([]);
        for (const name of ['b', 'a', 'b']) await repo.saveJob(jobParams(name), undefined);
        expect((await repo.getDistinctJobNames()).sort()).toEqual(['a', 'b']);
      });

      it('getQueueSize counts jobs whose nextRunAt has passed', async () => {
        await repo.saveJob(jobParams('q', { nextRunAt: ago(60_000) }), undefined);
        await repo.saveJob(jobParams('q', { nextRunAt: ago(30_000) }), undefined);
        await repo.saveJob(jobParams('q', { nextRunAt: fromNow(60_000) }), undefined);
        await repo.saveJob(jobParams('q', { nextRunAt: null }), undefined);
        expect(await repo.getQueueSize()).toBe(2);
      });
    });

    describe('queryJobs', () => {
      let ids: string[];

      beforeEach(async () => {
        const saved = [
          await repo.saveJob(
            jobParams('job-a', { priority: 10, nextRunAt: fromNow(60_000), data: { type: 'alpha', count: 1 } }),
            undefined,
          ),
          await repo.saveJob(
            jobParams('job-b', { priority: 5, nextRunAt: fromNow(120_000), data: { type: 'beta', count: 2 } }),
            undefined,
          ),
          await repo.saveJob(
            jobParams('job-a', { priority: 15, nextRunAt: fromNow(180_000), data: { type: 'alpha', count: 3 } }),
            undefined,
          ),
          await repo.saveJob(
            jobParams('other_%', { nextRunAt: ago(1000), data: { type: 'gamma', deep: { flag: true } } }),
            undefined,
          ),
        ];
        ids = saved.map((job) => String(job._id));
      });

      it('returns every job with its state when unfiltered', async () => {
        const result = await repo.queryJobs();
        expect(result.total).toBe(4);
        expect(result.jobs.map((job) => job.state).sort()).toEqual(['queued', 'scheduled', 'scheduled', 'scheduled']);
      });

      it('filters by name, names, id and ids', async () => {
        expect((await repo.queryJobs({ name: 'job-a' })).total).toBe(2);
        expect((await repo.queryJobs({ names: ['job-a', 'job-b'] })).total).toBe(3);
        expect((await repo.queryJobs({ id: ids[1] })).jobs.map((job) => job.name)).toEqual(['job-b']);
        expect((await repo.queryJobs({ ids: [ids[0]!, ids[3]!] })).total).toBe(2);
        expect((await repo.queryJobs({ id: 'no-such-id' })).total).toBe(0);
      });

      it('searches names case-insensitively, with LIKE wildcards taken literally', async () => {
        expect((await repo.queryJobs({ search: 'JOB' })).total).toBe(3);
        expect((await repo.queryJobs({ search: '_%' })).jobs.map((job) => job.name)).toEqual(['other_%']);
      });

      it('matches data partially, nested, and type-exactly', async () => {
        expect((await repo.queryJobs({ data: { type: 'alpha' } })).total).toBe(2);
        expect((await repo.queryJobs({ data: { type: 'alpha', count: 3 } })).total).toBe(1);
        expect((await repo.queryJobs({ data: { count: '3' } })).total).toBe(0);
        expect((await repo.queryJobs({ data: { deep: { flag: true } } })).total).toBe(1);
      });

      it('paginates with skip and limit, reporting the unpaginated total', async () => {
        const all = await repo.queryJobs({ sort: { priority: 'desc' } });
        const page = await repo.queryJobs({ sort: { priority: 'desc' }, skip: 1, limit: 2 });
        expect(page.total).toBe(4);
        expect(page.jobs.map((job) => job._id)).toEqual(all.jobs.slice(1, 3).map((job) => job._id));
        expect(all.jobs.map((job) => job.priority)).toEqual([15, 10, 5, 0]);
      });

      it('sorts ascending and descending, ignoring unknown sort fields', async () => {
        const ascending = await repo.queryJobs({ sort: { nextRunAt: 'asc' } });
        expect(ascending.jobs.map((job) => job.name)).toEqual(['other_%', 'job-a', 'job-b', 'job-a']);
        const descending = await repo.queryJobs({ sort: { nextRunAt: 'desc', ['bogus; DROP' as 'name']: 'asc' } });
        expect(descending.jobs.map((job) => job.name)).toEqual(['job-a', 'job-b', 'job-a', 'other_%']);
      });

      it('filters by computed state, with disabled jobs reported as paused', async () => {
        await repo.disableJobs({ name: 'job-b' });
        expect((await repo.queryJobs({ state: 'scheduled' })).total).toBe(2);
        expect((await repo.queryJobs({ state: 'queued' })).total).toBe(1);
        const paused = await repo.queryJobs({ state: 'paused' });
        expect(paused.jobs.map((job) => job.name)).toEqual(['job-b']);
        const limited = await repo.queryJobs({ state: 'scheduled', limit: 1 });
        expect(limited).toMatchObject({ total: 2, jobs: [expect.objectContaining({ state: 'scheduled' })] });
      });

      it('excludes disabled jobs when includeDisabled is false', async () => {
        await repo.disableJobs({ id: ids[0] });
        expect((await repo.queryJobs({ includeDisabled: true })).total).toBe(4);
        expect((await repo.queryJobs({ includeDisabled: false })).total).toBe(3);
      });
    });

    it('getJobsOverview counts each name’s jobs per state', async () => {
      const running = await repo.saveJob(jobParams('overview', { nextRunAt: ago(1000) }), undefined);
      await repo.lockJob(running, undefined);
      await repo.saveJob(jobParams('overview', { nextRunAt: fromNow(60_000) }), undefined);
      await repo.saveJob(jobParams('overview', { nextRunAt: null, lastFinishedAt: new Date() }), undefined);
      await repo.saveJob(
        jobParams('overview', { nextRunAt: null, failedAt: new Date(), failReason: 'boom', failCount: 1 }),
        undefined,
      );
      await repo.saveJob(jobParams('overview', { repeatInterval: '1 hour', nextRunAt: fromNow(60_000) }), undefined);
      await repo.saveJob(jobParams('overview', { disabled: true }), undefined);
      await repo.saveJob(jobParams('elsewhere', { nextRunAt: ago(1000) }), undefined);
      const overview = await repo.getJobsOverview();
      expect(overview.find((entry) => entry.name === 'overview')).toEqual({
        name: 'overview',
        total: 6,
        running: 1,
        scheduled: 1,
        queued: 0,
        completed: 1,
        failed: 1,
        repeating: 1,
        paused: 1,
      });
      expect(overview.find((entry) => entry.name === 'elsewhere')).toMatchObject({ total: 1, queued: 1 });
    });

    describe('removing, disabling, purging', () => {
      it('removes by id, ids, name, names, notNames and data, and nothing without criteria', async () => {
        const [a1, a2, b, c] = [
          await repo.saveJob(jobParams('a', { data: { tag: 'x' } }), undefined),
          await repo.saveJob(jobParams('a', { data: { tag: 'y' } }), undefined),
          await repo.saveJob(jobParams('b'), undefined),
          await repo.saveJob(jobParams('c'), undefined),
        ];
        expect(await repo.removeJobs({})).toBe(0);
        expect(await repo.removeJobs({ name: 'none' })).toBe(0);
        expect(await repo.removeJobs({ name: 'a', data: { tag: 'x' } })).toBe(1);
        expect(await repo.getJobById(String(a1._id))).toBeNull();
        expect(await repo.removeJobs({ ids: [a2._id!, b._id!] })).toBe(2);
        await repo.saveJob(jobParams('d'), undefined);
        expect(await repo.removeJobs({ notNames: ['c'] })).toBe(1);
        expect(await repo.removeJobs({ names: ['c', 'zzz'] })).toBe(1);
        expect(await repo.getJobById(String(c._id))).toBeNull();
      });

      it('disables and enables, counting only jobs that changed', async () => {
        await repo.saveJob(jobParams('toggle'), undefined);
        await repo.saveJob(jobParams('toggle', { disabled: true }), undefined);
        expect(await repo.disableJobs({})).toBe(0);
        expect(await repo.disableJobs({ name: 'toggle' })).toBe(1);
        expect((await repo.queryJobs({ name: 'toggle' })).jobs.every((job) => job.disabled)).toBe(true);
        expect(await repo.enableJobs({ name: 'toggle' })).toBe(2);
        expect((await repo.queryJobs({ name: 'toggle' })).jobs.some((job) => job.disabled)).toBe(false);
      });

      it('purgeAllJobs removes everything', async () => {
        await repo.saveJob(jobParams('x'), undefined);
        await repo.saveJob(jobParams('y', { type: 'single' }), undefined);
        expect(await repo.purgeAllJobs()).toBe(2);
        expect((await repo.queryJobs()).total).toBe(0);
      });
    });

    describe('locking', () => {
      it('lockJob locks an unlocked job once', async () => {
        const saved = await repo.saveJob(jobParams('lock', { nextRunAt: ago(1000) }), undefined);
        const locked = await repo.lockJob(saved, { lastModifiedBy: 'worker-1' });
        expect(locked).toMatchObject({ _id: saved._id, lastModifiedBy: 'worker-1' });
        expect(locked?.lockedAt).toBeInstanceOf(Date);
        expect(await repo.lockJob(saved, undefined)).toBeUndefined();
      });

      it('lockJob refuses a disabled job or one rescheduled since it was read', async () => {
        const disabled = await repo.saveJob(jobParams('lock-disabled', { disabled: true }), undefined);
        expect(await repo.lockJob(disabled, undefined)).toBeUndefined();
        const saved = await repo.saveJob(jobParams('lock-moved', { nextRunAt: ago(1000) }), undefined);
        await repo.saveJob({ ...saved, nextRunAt: fromNow(5000) }, undefined);
        expect(await repo.lockJob(saved, undefined)).toBeUndefined();
      });

      it('unlockJob releases a scheduled job but not a running one-shot job (nextRunAt null)', async () => {
        const scheduled = await repo.saveJob(jobParams('unlock', { nextRunAt: ago(1000) }), undefined);
        const locked = await repo.lockJob(scheduled, undefined);
        await repo.unlockJob(locked!);
        expect((await repo.getJobById(String(scheduled._id)))?.lockedAt ?? null).toBeNull();

        const oneShot = await nextJob(repo, 'unlock');
        await repo.saveJobState({ ...oneShot!, nextRunAt: null, lastRunAt: new Date() }, undefined);
        await repo.unlockJob({ ...oneShot!, nextRunAt: null });
        expect((await repo.getJobById(String(scheduled._id)))?.lockedAt).toBeInstanceOf(Date);
      });

      it('unlockJobs releases every listed job whatever its nextRunAt', async () => {
        const first = await repo.saveJob(jobParams('unlock-many', { nextRunAt: ago(1000) }), undefined);
        const second = await repo.saveJob(jobParams('unlock-many', { nextRunAt: ago(1000) }), undefined);
        await repo.lockJob(first, undefined);
        const locked = await repo.lockJob(second, undefined);
        await repo.saveJobState({ ...locked!, nextRunAt: null }, undefined);
        await repo.unlockJobs([]);
        await repo.unlockJobs([first._id!, second._id!]);
        for (const job of [first, second])
          expect((await repo.getJobById(String(job._id)))?.lockedAt ?? null).toBeNull();
      });
    });

    describe('getNextJobToRun', () => {
      it('locks and returns a due job, stamped with the given time and worker name', async () => {
        await repo.saveJob(jobParams('next', { nextRunAt: ago(60_000), data: { n: 1 } }), undefined);
        const now = new Date(Date.now() - 5);
        const job = await repo.getNextJobToRun('next', fromNow(5000), ago(600_000), now, { lastModifiedBy: 'w1' });
        expect(job).toMatchObject({ name: 'next', data: { n: 1 }, lastModifiedBy: 'w1' });
        expect(job?.lockedAt?.getTime()).toBe(now.getTime());
        expect(await nextJob(repo, 'next')).toBeUndefined();
      });

      it('takes the earliest nextRunAt first, then the highest priority', async () => {
        const sameTime = ago(60_000);
        await repo.saveJob(jobParams('order', { nextRunAt: ago(10_000), priority: 100, data: 'late' }), undefined);
        await repo.saveJob(jobParams('order', { nextRunAt: sameTime, priority: 5, data: 'low' }), undefined);
        await repo.saveJob(jobParams('order', { nextRunAt: sameTime, priority: 10, data: 'high' }), undefined);
        const order = [];
        for (let job = await nextJob(repo, 'order'); job; job = await nextJob(repo, 'order')) order.push(job.data);
        expect(order).toEqual(['high', 'low', 'late']);
      });

      it('includes jobs due before the next scan and skips later, disabled or other jobs', async () => {
        await repo.saveJob(jobParams('window', { nextRunAt: fromNow(5000) }), undefined);
        await repo.saveJob(jobParams('window', { nextRunAt: ago(1000), disabled: true }), undefined);
        await repo.saveJob(jobParams('window-other', { nextRunAt: ago(1000) }), undefined);
        await repo.saveJob(jobParams('window', { nextRunAt: null }), undefined);
        expect(await nextJob(repo, 'window')).toBeUndefined();
        const soon = await repo.saveJob(jobParams('window', { nextRunAt: fromNow(PROCESS_EVERY_MS / 2) }), undefined);
        expect((await nextJob(repo, 'window'))?._id).toBe(soon._id);
      });

      it('takes over a job whose lock is older than the lock lifetime, even a one-shot one', async () => {
        const crashed = await repo.saveJob(jobParams('stale', { nextRunAt: ago(5000) }), undefined);
        // What a worker leaves behind when it dies mid-run.
        await repo.saveJobState({ ...crashed, lockedAt: ago(2000), lastRunAt: ago(2000), nextRunAt: null }, undefined);
        expect(await nextJob(repo, 'stale', 5000)).toBeUndefined();
        const recovered = await nextJob(repo, 'stale', 1000);
        expect(recovered?._id).toBe(crashed._id);
        expect(recovered!.lockedAt!.getTime()).toBeGreaterThan(Date.now() - 1000);
      });

      it('never hands the same job to two connections', async () => {
        const other = storage.openBackend();
        await other.connect();
        try {
          for (let i = 0; i < 20; i++) await repo.saveJob(jobParams('contended', { nextRunAt: ago(1000) }), undefined);
          const taken: string[] = [];
          const pickers = [repo, other.repository].map(async (picker) => {
            for (let job = await nextJob(picker, 'contended'); job; job = await nextJob(picker, 'contended')) {
              taken.push(String(job._id));
              await sleep(1);
            }
          });
          await Promise.all(pickers);
          expect(taken).toHaveLength(20);
          expect(new Set(taken).size).toBe(20);
        } finally {
          await other.disconnect();
        }
      });
    });

    describe('saveJobState', () => {
      it('writes the run-state fields and clears the lock', async () => {
        const saved = await repo.saveJob(jobParams('state', { nextRunAt: ago(1000) }), undefined);
        const locked = await repo.lockJob(saved, undefined);
        const finishedAt = new Date();
        await repo.saveJobState(
          {
            ...locked!,
            lockedAt: undefined,
            lastRunAt: ago(10),
            lastFinishedAt: finishedAt,
            progress: 50,
            failCount: 1,
            failReason: 'boom',
            failedAt: finishedAt,
            nextRunAt: null,
          },
          { lastModifiedBy: 'w2' },
        );
        const stored = await repo.getJobById(String(saved._id));
        expect(stored).toMatchObject({
          progress: 50,
          failCount: 1,
          failReason: 'boom',
          failedAt: finishedAt,
          lastFinishedAt: finishedAt,
          nextRunAt: null,
          lastModifiedBy: 'w2',
        });
        expect(stored?.lockedAt ?? null).toBeNull();
      });

      it('throws for a job that no longer exists', async () => {
        const saved = await repo.saveJob(jobParams('gone'), undefined);
        await repo.removeJobs({ id: saved._id });
        await expect(repo.saveJobState(saved, undefined)).rejects.toThrow(/cannot be updated/);
      });
    });

    describe('Agenda on this backend', () => {
      const agendas: Agenda[] = [];
      const children: ChildProcess[] = [];

      async function startAgenda(
        options: { name?: string; lockLimit?: number; maxConcurrency?: number } = {},
      ): Promise<Agenda> {
        const agenda = new Agenda({ backend: storage.openBackend(), processEvery: PROCESS_EVERY_MS, ...options });
        agendas.push(agenda);
        await agenda.ready;
        return agenda;
      }

      afterEach(async () => {
        await Promise.all(agendas.splice(0).map((agenda) => agenda.stop()));
        await Promise.all(children.splice(0).map(stopWorker));
      });

      it('runs a job scheduled with now(), passing its data, and records completion', async () => {
        const agenda = await startAgenda();
        const received: unknown[] = [];
        agenda.define('greet', async (job) => {
          received.push(job.attrs.data);
        });
        await agenda.start();
        const job = await agenda.now('greet', { to: 'world' });
        await waitFor(() => received.length > 0, 5000, 'the job to run');
        expect(received).toEqual([{ to: 'world' }]);
        await waitFor(
          async () => (await repo.getJobById(String(job.attrs._id)))?.lastFinishedAt !== undefined,
          5000,
          'completion',
        );
        const stored = await repo.getJobById(String(job.attrs._id));
        expect(stored?.lockedAt ?? null).toBeNull();
        expect(stored?.nextRunAt ?? null).toBeNull();
      });

      it('records a failing job', async () => {
        const agenda = await startAgenda();
        agenda.define('explode', async () => {
          throw new Error('kaboom');
        });
        const failed = new Promise<Error>((resolve) => agenda.on('fail:explode', (error: Error) => resolve(error)));
        await agenda.start();
        const job = await agenda.now('explode');
        expect((await failed).message).toBe('kaboom');
        await waitFor(
          async () => (await repo.getJobById(String(job.attrs._id)))?.failCount === 1,
          5000,
          'the failure to be stored',
        );
        expect(await repo.getJobById(String(job.attrs._id))).toMatchObject({
          failReason: 'kaboom',
          failedAt: expect.any(Date),
        });
      });

      it('repeats a job scheduled with every(), keeping a single row', async () => {
        const agenda = await startAgenda();
        let runs = 0;
        agenda.define('tick', async () => {
          runs++;
        });
        await agenda.start();
        await agenda.every(150, 'tick');
        await agenda.every(150, 'tick');
        await waitFor(() => runs >= 3, 5000, 'three runs');
        const stored = await agenda.queryJobs({ name: 'tick' });
        expect(stored.total).toBe(1);
        expect(stored.jobs[0]).toMatchObject({ type: 'single', repeatInterval: 150 });
      });

      it('does not run disabled jobs', async () => {
        const agenda = await startAgenda();
        let runs = 0;
        agenda.define('dormant', async () => {
          runs++;
        });
        const job = await agenda.now('dormant');
        await job.disable().save();
        await agenda.start();
        await sleep(PROCESS_EVERY_MS * 6);
        expect(runs).toBe(0);
      });

      it('runs higher-priority jobs first', async () => {
        const agenda = await startAgenda({ maxConcurrency: 1 });
        const order: number[] = [];
        agenda.define('ranked', async (job) => {
          order.push(job.attrs.priority);
        });
        const when = ago(1000);
        for (const priority of [-10, 10, 0]) await agenda.create('ranked').schedule(when).priority(priority).save();
        await agenda.start();
        await waitFor(() => order.length === 3, 5000, 'three runs');
        expect(order).toEqual([10, 0, -10]);
      });

      it('picks up a job left locked by a crashed worker once its lock lifetime has passed', async () => {
        const crashed = await repo.saveJob(jobParams('orphan', { nextRunAt: ago(3000) }), undefined);
        await repo.saveJobState({ ...crashed, lockedAt: ago(2000), lastRunAt: ago(2000), nextRunAt: null }, undefined);
        const fresh = await repo.saveJob(jobParams('orphan', { nextRunAt: ago(3000) }), undefined);
        await repo.saveJobState({ ...fresh, lockedAt: new Date(), nextRunAt: null }, undefined);

        const agenda = await startAgenda();
        const ran: string[] = [];
        agenda.define(
          'orphan',
          async (job) => {
            ran.push(String(job.attrs._id));
          },
          { lockLifetime: 1000 },
        );
        await agenda.start();
        await waitFor(() => ran.length > 0, 5000, 'the orphaned job to run');
        expect(ran).toEqual([String(crashed._id)]);
      });

      it('two Agenda instances on separate connections never run the same job twice', async () => {
        const runs = new Map<string, string[]>();
        for (const workerName of ['first', 'second']) {
          const agenda = await startAgenda({ name: workerName, lockLimit: 2 });
          agenda.define('shared', async (job) => {
            const id = String(job.attrs._id);
            runs.set(id, [...(runs.get(id) ?? []), workerName]);
            await sleep(10);
          });
          await agenda.start();
        }
        for (let i = 0; i < 30; i++) await repo.saveJob(jobParams('shared', { nextRunAt: ago(10) }), undefined);
        await waitFor(() => runs.size === 30, 15_000, 'all jobs to run');
        await sleep(PROCESS_EVERY_MS * 4);
        expect([...runs.values()].filter((workers) => workers.length > 1)).toEqual([]);
        const workersUsed = new Set([...runs.values()].flat());
        expect(workersUsed).toEqual(new Set(['first', 'second']));
      });

      describe('across processes', () => {
        const workerOptions = (
          workerName: string,
          overrides: Partial<ConformanceWorkerOptions> = {},
        ): ConformanceWorkerOptions => ({
          workerName,
          jobName: 'cross-process',
          jobDurationMs: 20,
          processEvery: PROCESS_EVERY_MS,
          lockLimit: 2,
          lockLifetime: 10 * 60 * 1000,
          ...overrides,
        });

        async function spawnReadyWorker(
          options: ConformanceWorkerOptions,
          events: WorkerEvent[],
        ): Promise<ChildProcess> {
          const child = storage.spawnWorker!(options);
          children.push(child);
          recordWorkerEvents(child, events);
          await waitFor(
            () => events.some((e) => e.event === 'ready' && e.worker === options.workerName),
            15_000,
            `worker ${options.workerName} to start`,
          );
          return child;
        }

        it('worker processes and an in-process Agenda never run the same job twice', async ({ skip }) => {
          if (!storage.spawnWorker) skip();
          const events: WorkerEvent[] = [];
          await Promise.all(
            ['child-1', 'child-2'].map((workerName) => spawnReadyWorker(workerOptions(workerName), events)),
          );
          const agenda = await startAgenda({ name: 'parent', lockLimit: 2 });
          agenda.define('cross-process', async (job) => {
            const jobId = String(job.attrs._id);
            events.push({ event: 'start', worker: 'parent', jobId });
            await sleep(20);
            events.push({ event: 'finish', worker: 'parent', jobId });
          });
          await agenda.start();

          const jobCount = 60;
          for (let i = 0; i < jobCount; i++)
            await repo.saveJob(jobParams('cross-process', { nextRunAt: ago(10) }), undefined);
          const finished = () =>
            new Set(events.filter((e) => e.event === 'finish').map((e) => (e as { jobId: string }).jobId));
          await waitFor(() => finished().size === jobCount, 20_000, 'all jobs to finish');
          await sleep(PROCESS_EVERY_MS * 4);

          const starts = events.filter((e) => e.event === 'start');
          expect(starts).toHaveLength(jobCount);
          expect(new Set(starts.map((e) => e.worker))).toEqual(new Set(['child-1', 'child-2', 'parent']));
        });

        it('a job whose worker process was killed mid-run is run again after its lock expires', async ({ skip }) => {
          if (!storage.spawnWorker) skip();
          const events: WorkerEvent[] = [];
          const child = await spawnReadyWorker(
            workerOptions('doomed', { jobDurationMs: 60_000, lockLifetime: 500 }),
            events,
          );
          const job = await repo.saveJob(jobParams('cross-process', { nextRunAt: ago(10) }), undefined);
          await waitFor(() => events.some((e) => e.event === 'start'), 10_000, 'the child to start the job');
          child.kill('SIGKILL');
          await new Promise((resolve) => child.once('exit', resolve));
          expect((await repo.getJobById(String(job._id)))?.lockedAt).toBeInstanceOf(Date);

          const agenda = await startAgenda({ name: 'rescuer' });
          const rescued: string[] = [];
          agenda.define(
            'cross-process',
            async (rescuedJob) => {
              rescued.push(String(rescuedJob.attrs._id));
            },
            { lockLifetime: 500 },
          );
          await agenda.start();
          await waitFor(() => rescued.length > 0, 5000, 'the rescued run');
          expect(rescued).toEqual([String(job._id)]);
        });
      });
    });
  });
}
