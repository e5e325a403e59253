/**
 * A job that fails, is cancelled or cannot be queued has its credits back in the same write: the first read that
 * shows it `failed` (from another connection, as another process polls) shows the balance refunded too.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Plugin } from '../contract/index.js';
import type { JobQueue } from '../queue/types.js';
import { Registry } from '../registry/index.js';
import { SqliteStore, openSqliteDatabase } from '../store/sqlite/index.js';
import type { JobRepo, NewJob, Store } from '../store/types.js';
import type { Principal } from './accounts.js';
import { billingPeriod } from './clock.js';
import { NOT_QUEUED } from './job-policy.js';
import { CANCELLED } from './jobs.js';
import type { Services } from './index.js';
import { servicesOverSqlite } from './testing/services.js';
import { textToMarkdownTestPlugin } from './testing/text-plugin.js';

const TOKEN_SECRET = 'job-failure-test-secret-of-32-bytes-at-least';
const COST = 5;

/** What another process reads the moment a failure's write returns. */
interface Seen {
  status: string | undefined;
  used: number;
  /** Whether the account's free try of parse-cv is still taken. */
  trialTaken: boolean;
}

/** `inner` with its `jobs.fail` replaced: every other repository method is the store's own. */
const withJobFail = (inner: SqliteStore, fail: JobRepo['fail']): Store =>
  Object.assign(Object.create(inner) as Store, { jobs: { ...inner.jobs, jobs: { ...inner.jobs.jobs, fail } } });

describe('a failed job and its refund are one write', () => {
  let dir: string;
  let store: SqliteStore;
  let observer: SqliteStore;
  let services: Services;
  let owner: Principal;
  let seen: Seen[];

  /** The store the services use: after each `jobs.fail`, before anything else runs, another connection reads. */
  const observed = (inner: SqliteStore): Store =>
    withJobFail(inner, async (...args) => {
      const failed = await inner.jobs.jobs.fail(...args);
      const view = await observer.jobs.jobs.view(args[0]);
      const { used } = await observer.credits.usage.get(owner.account.id, billingPeriod(new Date()));
      const trial = observer.db
        .prepare(`SELECT 1 FROM trials WHERE account_id = ? AND tool = 'parse-cv'`)
        .get(owner.account.id);
      seen.push({ status: view?.status, used, trialTaken: Boolean(trial) });
      return failed;
    });

  const start = (queue?: JobQueue, plugins: Plugin[] = []) => {
    ({ store, services } = servicesOverSqlite(dir, new Registry(plugins), TOKEN_SECRET, {
      store: observed,
      ...(queue ? { queue } : {}),
    }));
    observer = new SqliteStore(openSqliteDatabase(path.join(dir, 'transmute.db')));
  };

  /** A job charged COST credits now, as acceptance leaves it. */
  const chargedJob = async (overrides: Partial<Omit<NewJob, 'creditPeriod'>> = {}) => {
    const now = new Date();
    const { job } = await services.credits.chargeAndRecord(owner.account, {
      id: randomUUID(),
      accountId: owner.account.id,
      kind: 'convert',
      pluginId: 'test-uninstalled',
      op: null,
      inputFormat: 'txt',
      target: 'md',
      options: {},
      inputs: [],
      creditCost: COST,
      viaApi: true,
      createdAt: now,
      inputsExpireAt: new Date(now.getTime() + 3_600_000),
      ...overrides,
    });
    return job;
  };

  const newOwner = async () => {
    const account = await services.accounts.createAccount({ plan: 'pro' });
    owner = { account, keyId: 'test-key' };
  };

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-failure-'));
    seen = [];
  });

  afterEach(async () => {
    await observer?.close();
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a run that fails: the read that shows `failed` shows the credits back', async () => {
    start();
    await newOwner();
    const job = await chargedJob();
    expect((await services.credits.balance(owner.account)).creditsUsed).toBe(COST);
    // The job's plugin is not installed here: the runner fails it.
    await services.runner.run(job.id);
    expect(seen).toEqual([{ status: 'failed', used: 0, trialTaken: false }]);
    expect(await store.jobs.jobs.get(job.id)).toMatchObject({ status: 'failed', refunded: true });
  });

  it('a job whose upload was deleted before it ran fails saying so, with its credits back', async () => {
    // The run fails (this test's executor refuses every run, as an engine fails on a file that is not there).
    start(undefined, [textToMarkdownTestPlugin]);
    await newOwner();
    const upload = { blobKey: `uploads/${randomUUID()}.txt`, filename: 'notes.txt', format: 'txt' as const, bytes: 2 };
    const job = await chargedJob({ pluginId: textToMarkdownTestPlugin.id, inputs: [upload] });
    await services.runner.run(job.id);
    expect(await store.jobs.jobs.get(job.id)).toMatchObject({
      status: 'failed',
      error: 'The uploaded file is no longer stored (it expired before the job could run); send it again',
      refunded: true,
    });
  });

  it('a failed job leaves no output or work folder of an attempt that died before it', async () => {
    start();
    await newOwner();
    const job = await chargedJob();
    // An attempt that stored its output and died before finishing the job: nothing references these.
    const leftOutput = path.join(dir, 'blobs', 'outputs', `${job.id}.1`);
    const leftWork = path.join(dir, 'work', job.id, '1', 'page.png');
    for (const file of [leftOutput, leftWork]) {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, 'left behind');
    }
    await services.runner.run(job.id);
    expect((await store.jobs.jobs.get(job.id))?.status).toBe('failed');
    await expect(stat(leftOutput)).rejects.toThrow('ENOENT');
    await expect(stat(path.join(dir, 'work', job.id))).rejects.toThrow('ENOENT');
  });

  it('a cancel: the same, and cancelling again gives nothing more', async () => {
    start();
    await newOwner();
    const job = await chargedJob();
    await services.credits.charge(owner.account, 2); // another job's, kept
    expect(await services.jobs.cancel(owner, job.id)).toEqual({ status: 'failed', error: CANCELLED });
    expect(await services.jobs.cancel(owner, job.id)).toEqual({ status: 'failed', error: CANCELLED });
    expect(seen).toEqual([{ status: 'failed', used: 2, trialTaken: false }]);
    expect((await services.credits.balance(owner.account)).creditsUsed).toBe(2);
  });

  it('a cancel the job outran (it ended between the read and the cancel) is a 409; nothing is refunded', async () => {
    // The store finishes the job just before the cancel's write, as a worker on another machine would.
    const finishingFirst = (inner: SqliteStore): Store =>
      withJobFail(inner, async (...args) => {
        const at = new Date();
        await inner.jobs.jobs.start(args[0], at);
        const output = { blobKey: `outputs/${args[0]}.1`, filename: 'notes.md', format: 'md' as const, bytes: 2 };
        await inner.jobs.jobs.complete(args[0], { output, toolReport: null, at, outputExpiresAt: at });
        return inner.jobs.jobs.fail(...args);
      });
    ({ store, services } = servicesOverSqlite(dir, new Registry([]), TOKEN_SECRET, { store: finishingFirst }));
    observer = new SqliteStore(openSqliteDatabase(path.join(dir, 'transmute.db')));
    await newOwner();
    const job = await chargedJob();
    await expect(services.jobs.cancel(owner, job.id)).rejects.toMatchObject({
      code: 'CONFLICT',
      message: 'Job already finished (done): there is nothing to cancel',
    });
    expect(await store.jobs.jobs.get(job.id)).toMatchObject({ status: 'done', refunded: false });
    expect((await services.credits.balance(owner.account)).creditsUsed).toBe(COST);
  });

  it('a cancelled free try gives the trial back, and no credits', async () => {
    start();
    await newOwner();
    await services.credits.charge(owner.account, 3);
    expect(await store.credits.trials.claim(owner.account.id, 'parse-cv', new Date())).toBe(true);
    const now = new Date();
    const job = await store.jobs.jobs.create({
      id: randomUUID(),
      accountId: owner.account.id,
      kind: 'extract',
      pluginId: 'cv-parse',
      op: 'parse-cv',
      inputFormat: 'pdf',
      target: 'json',
      options: {},
      inputs: [],
      creditCost: 0,
      creditPeriod: billingPeriod(now),
      viaApi: true,
      createdAt: now,
      inputsExpireAt: new Date(now.getTime() + 3_600_000),
    });
    await services.jobs.cancel(owner, job.id);
    expect(seen).toEqual([{ status: 'failed', used: 3, trialTaken: false }]);
    expect(await store.credits.trials.claim(owner.account.id, 'parse-cv', new Date())).toBe(true);
  });

  it('a job the queue refuses: failed with its credits back in one write', async () => {
    start({ enqueue: () => Promise.reject(new Error('queue unavailable')) });
    await newOwner();
    const upload = { blobKey: `uploads/${randomUUID()}`, filename: 'notes.txt', bytes: 12, head: Buffer.from('hi') };
    const accepting = services.jobs.queue(owner, {
      plugin: textToMarkdownTestPlugin,
      kind: 'convert',
      op: null,
      inputFormat: 'txt',
      target: 'md',
      options: {},
      files: [{ upload, format: 'txt' }],
      cost: COST,
      viaApi: true,
    });
    await expect(accepting).rejects.toThrow('queue unavailable');
    expect(seen).toEqual([{ status: 'failed', used: 0, trialTaken: false }]);
    const { jobs } = await store.jobs.jobs.listByAccount(owner.account.id, 10, 0);
    expect(jobs).toMatchObject([{ status: 'failed', error: 'The job could not be queued; credits were refunded' }]);
  });

  it('a job the database refuses to record is not charged: the charge and the job are one write', async () => {
    start();
    await newOwner();
    // The job's insert fails inside the store, after the charge's statement in the same transaction.
    store.db.exec(`CREATE TRIGGER refuse_jobs BEFORE INSERT ON jobs BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`);
    const upload = { blobKey: `uploads/${randomUUID()}`, filename: 'notes.txt', bytes: 12, head: Buffer.from('hi') };
    const accepting = services.jobs.queue(owner, {
      plugin: textToMarkdownTestPlugin,
      kind: 'convert',
      op: null,
      inputFormat: 'txt',
      target: 'md',
      options: {},
      files: [{ upload, format: 'txt' }],
      cost: COST,
      viaApi: true,
    });
    await expect(accepting).rejects.toThrow('disk I/O error');
    // Read at once, from another connection: no refund to wait for, the charge was never made.
    expect((await observer.credits.usage.get(owner.account.id, billingPeriod(new Date()))).used).toBe(0);
  });

  it('an extraction request the queue refuses: every job it made failed, its credits back', async () => {
    const { default: wordCount } = await import('../../test/fixtures/plugins/word-count.js');
    start({ enqueue: () => Promise.reject(new Error('queue unavailable')) }, [wordCount]);
    await newOwner();
    const text = (name: string) => ({
      blobKey: `uploads/${randomUUID()}`,
      filename: name,
      bytes: 11,
      head: Buffer.from('hello world'),
    });
    const accepting = services.extractions.accept(owner, 'word-count', {
      uploads: [text('a.txt'), text('b.txt')],
      fields: {},
      fieldsAreStrings: false,
      viaApi: true,
    });
    await expect(accepting).rejects.toThrow('queue unavailable');
    const { jobs } = await store.jobs.jobs.listByAccount(owner.account.id, 10, 0);
    expect(jobs).toHaveLength(2);
    expect(jobs).toMatchObject([
      { status: 'failed', error: NOT_QUEUED, refunded: true },
      { status: 'failed', error: NOT_QUEUED, refunded: true },
    ]);
    expect(seen.at(-1)).toMatchObject({ status: 'failed', used: 0 });
  });
});
