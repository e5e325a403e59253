import { Agenda, Job, type AgendaBackend, type JobParameters, type JobRepository } from 'agenda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LockLost, guardRemoval, heldLock } from '../held-lock.js';
import type { BackendStorage } from './suite.js';

const NAME = 'lock-checked';
const HOUR_MS = 60 * 60 * 1000;
const ago = (ms: number) => new Date(Date.now() - ms);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The entry a worker claims, as Agenda's processor asks for it: locks older than `lifetimeMs` are expired. */
const claim = (repository: JobRepository, lifetimeMs = HOUR_MS) =>
  repository.getNextJobToRun(NAME, new Date(Date.now() + 50), ago(lifetimeMs), new Date(), undefined);

/** An Agenda on `backend` that runs nothing: what a Job needs to save through it. */
async function agendaOn(backend: AgendaBackend): Promise<Agenda> {
  const agenda = new Agenda({ backend });
  await agenda.ready;
  return agenda;
}

/** A one-shot entry, due. */
const queued = (repository: JobRepository) =>
  repository.saveJob({ name: NAME, priority: 0, nextRunAt: ago(1000), type: 'normal', data: {} }, undefined);

/** What Agenda's Job.run saves when it starts a one-shot run. */
async function start(repository: JobRepository, run: JobParameters): Promise<void> {
  run.lastRunAt = new Date();
  run.nextRunAt = null;
  await repository.saveJobState(run, undefined);
}

/** A backend's storage for the lock suite: with a way to lose a write's reply, as a dropped connection does. */
export interface LockSuiteStorage extends BackendStorage {
  /**
   * The next UPDATE `repository` sends commits, but its caller sees it fail (as when the connection drops before
   * the reply arrives). Later statements answer as usual.
   */
  loseNextReply(repository: JobRepository): void;
}

/**
 * The repository methods Agenda 6.2.6 calls while it runs jobs, each reviewed for how it locks: an entry is locked
 * for a run only by getNextJobToRun (and lockJob, which it does not call), both tagged (held-lock.ts). A method not
 * listed means Agenda changed how it works: review held-lock.ts, tag its locking paths, then list it here.
 */
const REVIEWED_REPOSITORY_CALLS = new Set([
  'connect',
  'getNextJobToRun',
  'lockJob',
  'saveJobState',
  'saveJob',
  'unlockJob',
  'unlockJobs',
  'removeJobs',
  'getJobById',
  'queryJobs',
]);

/**
 * `backend` with its repository behind a recorder: the names of the repository methods Agenda calls (not those the
 * repository calls on itself) go into `called`.
 */
function recordingCalls(backend: AgendaBackend, called: Set<string>): AgendaBackend {
  const repository = new Proxy(backend.repository, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        called.add(String(property));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return {
    name: backend.name,
    repository,
    notificationChannel: backend.notificationChannel,
    logger: backend.logger,
    get ownsConnection() {
      return backend.ownsConnection;
    },
    connect: () => backend.connect(),
    disconnect: () => backend.disconnect(),
  } as AgendaBackend;
}

/**
 * Lock-checked saves on a backend this project uses for its queue (held-lock.ts): a run's saves apply while the
 * entry's lock is still the run's, and change nothing once another attempt took the entry over (the run's lock
 * lapsed: its process stalled past the lock lifetime).
 */
export function lockCheckedSavesSuite(name: string, createStorage: () => Promise<LockSuiteStorage>): void {
  describe(`${name}: lock-checked saves`, () => {
    let storage: LockSuiteStorage;
    let backends: AgendaBackend[];
    let repo: JobRepository;
    let otherWorker: JobRepository;

    beforeAll(async () => {
      storage = await createStorage();
      backends = [storage.openBackend(), storage.openBackend()];
      for (const backend of backends) await backend.connect();
      [repo, otherWorker] = backends.map((backend) => backend.repository) as [JobRepository, JobRepository];
    });

    afterAll(async () => {
      for (const backend of backends ?? []) await backend.disconnect();
      await storage?.destroy();
    });

    beforeEach(async () => {
      await repo.purgeAllJobs();
    });

    it('a run starts, renews and saves its entry unlocked while the lock is its own', async () => {
      const saved = await queued(repo);
      const run = (await claim(repo))!;
      await start(repo, run);
      for (let renewal = 0; renewal < 2; renewal++) {
        await sleep(5);
        run.lockedAt = new Date();
        await repo.saveJobState(run, undefined);
        expect((await repo.getJobById(String(saved._id)))!.lockedAt).toEqual(run.lockedAt);
      }
      run.lockedAt = undefined;
      run.lastFinishedAt = new Date();
      await repo.saveJobState(run, undefined);
      const stored = (await repo.getJobById(String(saved._id)))!;
      expect(stored.lockedAt ?? null).toBeNull();
      expect(stored.lastFinishedAt).toEqual(run.lastFinishedAt);
      expect(heldLock(run)).toEqual({ lockedAt: null, unconfirmed: [], lost: false });
    });

    it("once another attempt took the entry over, the first run's renewal, save and unlock do nothing", async () => {
      const saved = await queued(repo);
      const first = (await claim(repo))!;
      await start(repo, first);
      await sleep(20);
      // The first run's lock is older than a 10 ms lifetime: another worker takes the entry over.
      const second = (await claim(otherWorker, 10))!;
      expect(second._id).toEqual(first._id);
      await start(otherWorker, second);
      const held = await repo.getJobById(String(saved._id));

      first.lockedAt = new Date();
      await expect(repo.saveJobState(first, undefined)).rejects.toBeInstanceOf(LockLost);
      // Its end, handed back unlocked and due now, as an interrupted run's is.
      first.lockedAt = undefined;
      first.nextRunAt = new Date();
      first.lastFinishedAt = new Date();
      await expect(repo.saveJobState(first, undefined)).rejects.toBeInstanceOf(LockLost);
      await repo.unlockJob(first);
      expect(await repo.getJobById(String(saved._id))).toEqual(held);
      expect(heldLock(first)?.lost).toBe(true);

      // The attempt holding the entry renews and finishes as usual.
      second.lockedAt = new Date();
      await otherWorker.saveJobState(second, undefined);
      second.lockedAt = undefined;
      second.lastFinishedAt = new Date();
      await otherWorker.saveJobState(second, undefined);
      expect((await repo.getJobById(String(saved._id)))!.lockedAt ?? null).toBeNull();
    });

    it("a renewal that committed but whose reply was lost leaves the run's next saves applying", async () => {
      const saved = await queued(repo);
      const run = (await claim(repo))!;
      await start(repo, run);
      await sleep(5);
      run.lockedAt = new Date();
      storage.loseNextReply(repo);
      const lostReply = await repo.saveJobState(run, undefined).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(lostReply).toBeInstanceOf(Error);
      expect(lostReply).not.toBeInstanceOf(LockLost);
      // The write is in: the stored lock is the one the run wrote, not the one it saw applied.
      expect((await repo.getJobById(String(saved._id)))!.lockedAt).toEqual(run.lockedAt);

      await sleep(5);
      run.lockedAt = new Date();
      await repo.saveJobState(run, undefined);
      expect((await repo.getJobById(String(saved._id)))!.lockedAt).toEqual(run.lockedAt);
      expect(heldLock(run)).toMatchObject({ lockedAt: run.lockedAt, unconfirmed: [], lost: false });
      run.lockedAt = undefined;
      run.lastFinishedAt = new Date();
      await repo.saveJobState(run, undefined);
      expect((await repo.getJobById(String(saved._id)))!.lockedAt ?? null).toBeNull();
    });

    it('a run whose reply was lost still loses the entry another attempt took over meanwhile', async () => {
      const saved = await queued(repo);
      const run = (await claim(repo))!;
      await start(repo, run);
      await sleep(5);
      run.lockedAt = new Date();
      storage.loseNextReply(repo);
      await expect(repo.saveJobState(run, undefined)).rejects.toThrow();
      await sleep(20);
      const second = (await claim(otherWorker, 10))!;
      expect(second._id).toEqual(run._id);
      const held = await repo.getJobById(String(saved._id));
      run.lockedAt = new Date();
      await expect(repo.saveJobState(run, undefined)).rejects.toBeInstanceOf(LockLost);
      run.lockedAt = undefined;
      run.nextRunAt = new Date();
      await repo.unlockJob(run);
      expect(await repo.getJobById(String(saved._id))).toEqual(held);
    });

    it('a release that fails resolves (Agenda does not await it: a rejection would end the process)', async () => {
      const saved = await queued(repo);
      const run = (await claim(repo))!;
      // Released as Agenda releases a locked entry it will not run now: due later, not started.
      run.nextRunAt = new Date(Date.now() + HOUR_MS);
      storage.loseNextReply(repo);
      await expect(repo.unlockJob(run)).resolves.toBeUndefined();
      // An entry not locked for a run (untagged) is released through the published statement: the same.
      storage.loseNextReply(repo);
      await expect(repo.unlockJob({ ...saved, nextRunAt: new Date() })).resolves.toBeUndefined();
    });

    it('an entry locked through lockJob carries its hold: its saves are lock-checked too', async () => {
      const saved = await queued(repo);
      const locked = (await repo.lockJob(saved, undefined))!;
      expect(heldLock(locked)).toMatchObject({ lost: false });
      expect(heldLock(locked)!.lockedAt).toEqual((await repo.getJobById(String(saved._id)))!.lockedAt);
      await sleep(5);
      locked.lockedAt = new Date();
      await repo.saveJobState(locked, undefined);
      expect((await repo.getJobById(String(saved._id)))!.lockedAt).toEqual(locked.lockedAt);
      // Its lock lapses and another worker takes the entry: the first holder's saves change nothing.
      await sleep(20);
      expect((await claim(otherWorker, 10))!._id).toEqual(saved._id);
      const held = await repo.getJobById(String(saved._id));
      locked.lockedAt = new Date();
      await expect(repo.saveJobState(locked, undefined)).rejects.toBeInstanceOf(LockLost);
      expect(await repo.getJobById(String(saved._id))).toEqual(held);
    });

    it('every run Agenda starts carries its hold, and Agenda locks through no path this project has not reviewed', {
      timeout: 30_000,
    }, async () => {
      const called = new Set<string>();
      const backend = recordingCalls(storage.openBackend(), called);
      const agenda = new Agenda({ backend, processEvery: 50, defaultLockLifetime: HOUR_MS });
      const runs: Array<{ held: boolean }> = [];
      const wanted = 4;
      const done = new Promise<void>((resolve) => {
        agenda.define(NAME, async (job: Job) => {
          runs.push({ held: heldLock(job.attrs) !== undefined });
          await job.touch();
          if (runs.length >= wanted) resolve();
        });
      });
      try {
        await agenda.start();
        // A run now, one scheduled, one repeating: each way Agenda queues a run.
        await agenda.now(NAME, {});
        await agenda.schedule(new Date(Date.now() + 100), NAME, {});
        await agenda.every('1 second', NAME, {});
        await done;
      } finally {
        await agenda.stop();
      }
      expect(runs.length).toBeGreaterThanOrEqual(wanted);
      expect(runs.every((run) => run.held)).toBe(true);
      expect([...called].filter((method) => !REVIEWED_REPOSITORY_CALLS.has(method))).toEqual([]);
      expect(called.has('getNextJobToRun') || called.has('lockJob')).toBe(true);
    });

    it('a save for an entry removed meanwhile is refused', async () => {
      await queued(repo);
      const run = (await claim(repo))!;
      await repo.removeJobs({ id: run._id });
      run.lockedAt = new Date();
      await expect(repo.saveJobState(run, undefined)).rejects.toBeInstanceOf(LockLost);
    });

    it("Agenda's Job made from a claimed entry carries its hold, so Agenda's own saves are lock-checked", async () => {
      await queued(repo);
      const claimed = (await claim(repo))!;
      const job = new Job(await agendaOn(backends[0]!), claimed, true);
      expect(heldLock(job.attrs)).toBe(heldLock(claimed));
      // Plain saves (a job created or rescheduled, not a run) stay unconditional.
      expect(heldLock(job.toJson())).toBeUndefined();
    });

    it('a run whose end save was refused does not remove the entry when Agenda removes the finished job', async () => {
      await queued(repo);
      const first = new Job(await agendaOn(backends[0]!), (await claim(repo))!, true);
      guardRemoval(first);
      await sleep(20);
      const second = (await claim(otherWorker, 10))!;
      first.attrs.lockedAt = undefined;
      first.attrs.lastFinishedAt = new Date();
      await expect(repo.saveJobState(first.attrs, undefined)).rejects.toBeInstanceOf(LockLost);
      expect(await first.remove()).toBe(0);
      expect(await repo.getJobById(String(second._id))).not.toBeNull();
    });
  });
}
