/**
 * The one contract every Store adapter passes (like Keyv's test-suite): each adapter's test
 * file calls `storeContractSuite` with a way to open stores on fresh, empty storage.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Account, ApiKeyRecord, BatchRecord, DownloadTokenRecord, EmailTokenRecord, JobRecord, LoginRecord, SessionRecord, NewJob, NewWebhookDelivery, Store, StoredFile, WebhookEndpointRecord } from './types.js';

/** Empty storage for one test (a database file, a MongoDB database...). */
export interface StoreStorage {
  /**
   * A new store on this storage with its own connection, as another API instance or worker
   * process would have. Called more than once by the concurrency tests.
   */
  openStore(): Promise<Store>;
  /** Deletes the storage; every store opened on it is closed already. */
  destroy(): Promise<void>;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** A fixed instant near the real time, so tests can name the same moment twice. */
const BASE_MS = Date.now();
const at = (offsetMs = 0) => new Date(BASE_MS + offsetMs);

function makeAccount(overrides: Partial<Account> = {}): Account {
  return {
    id: `acc_${randomUUID()}`, plan: 'pro', email: null, emailVerified: false, overageEnabled: false,
    creditsIncluded: null, requestsPerMinute: null, createdAt: at(), ...overrides,
  };
}

function makeKey(accountId: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return { id: `key_${randomUUID()}`, accountId, hash: randomUUID().replaceAll('-', ''), prefix: 'ck_live_AbCd', createdAt: at(), revokedAt: null, name: null, lastUsedAt: null, ...overrides };
}

function makeFile(name = 'notes.txt'): StoredFile {
  return { blobKey: `uploads/${randomUUID()}`, filename: name, format: 'txt', bytes: 42 };
}

function makeJob(accountId: string, overrides: Partial<NewJob> = {}): NewJob {
  return {
    id: `job_${randomUUID()}`, accountId, kind: 'convert', pluginId: 'test-plugin', op: null, inputFormat: 'txt', outputFormat: 'md',
    options: { steps: 3, nested: { list: [1, 'two'], flag: true } }, inputs: [makeFile()], creditCost: 1, creditPeriod: '2030-01',
    viaApi: true, createdAt: at(), inputsExpireAt: at(HOUR), ...overrides,
  };
}

function makeToken(jobId: string, overrides: Partial<DownloadTokenRecord> = {}): DownloadTokenRecord {
  return { hash: randomUUID().replaceAll('-', ''), jobId, kind: 'download', reusable: true, expiresAt: at(15 * MINUTE), consumedAt: null, createdAt: at(), ...overrides };
}

/** An extraction job's row: nested objects, arrays, nulls, unicode, numbers. */
function extractionRow(): Record<string, unknown> {
  return {
    name: 'Zoë Ångström', email: null, years: 7.5, remote: true,
    skills: ['TypeScript', 'SQL'], jobs: [{ company: 'Acme', from: '2019-02', to: null, highlights: [] }],
    contact: { links: { github: 'https://github.com/zoe' } },
  };
}

function completion(overrides: Partial<Parameters<Store['jobs']['complete']>[1]> = {}) {
  return {
    output: { blobKey: `outputs/${randomUUID()}`, filename: 'notes.md', format: 'md' as const, bytes: 7 },
    downloadTokenHash: randomUUID().replaceAll('-', ''), toolReport: null, at: at(), outputExpiresAt: at(HOUR), ...overrides,
  };
}

const ids = (jobs: JobRecord[]) => jobs.map((job) => job.id);

export function storeContractSuite(name: string, createStorage: () => Promise<StoreStorage>): void {
  describe(`${name}: store contract`, () => {
    let storage: StoreStorage;
    let store: Store;
    const extraStores: Store[] = [];

    /** Another store on the same storage, closed after the test. */
    async function openAnother(): Promise<Store> {
      const other = await storage.openStore();
      extraStores.push(other);
      return other;
    }

    async function newAccount(overrides: Partial<Account> = {}): Promise<Account> {
      const account = makeAccount(overrides);
      await store.accounts.create(account);
      return account;
    }

    async function newJob(accountId: string, overrides: Partial<NewJob> = {}): Promise<JobRecord> {
      return store.jobs.create(makeJob(accountId, overrides));
    }

    /** A job that ran to completion. */
    async function doneJob(accountId: string, result = completion()): Promise<JobRecord> {
      const job = await newJob(accountId);
      await store.jobs.start(job.id, at());
      expect(await store.jobs.complete(job.id, result)).toBe(true);
      return (await store.jobs.get(job.id))!;
    }

    beforeEach(async () => {
      storage = await createStorage();
      store = await storage.openStore();
    });

    afterEach(async () => {
      await Promise.all(extraStores.splice(0).map((s) => s.close()));
      await store.close();
      await storage.destroy();
    });

    it('ping answers', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });

    describe('accounts', () => {
      it('round-trips every field and answers null for an unknown id', async () => {
        const account = await newAccount({ plan: 'enterprise', email: 'ops@example.com', emailVerified: true, overageEnabled: true, creditsIncluded: 50_000, requestsPerMinute: 900 });
        expect(await store.accounts.get(account.id)).toEqual(account);
        expect(await store.accounts.get('acc_missing')).toBeNull();
      });

      it('updates only the fields given, ignoring undefined ones', async () => {
        const account = await newAccount();
        await store.accounts.update(account.id, { plan: 'business', overageEnabled: true, email: undefined });
        await store.accounts.update(account.id, {});
        expect(await store.accounts.get(account.id)).toEqual({ ...account, plan: 'business', overageEnabled: true });
        await store.accounts.update(account.id, { creditsIncluded: 10, requestsPerMinute: 5, emailVerified: true, email: 'a@b.c' });
        await store.accounts.update(account.id, { creditsIncluded: null });
        expect(await store.accounts.get(account.id)).toMatchObject({ creditsIncluded: null, requestsPerMinute: 5, emailVerified: true, email: 'a@b.c' });
      });
    });

    describe('keys', () => {
      it('finds an active key by hash, and lists an account’s keys oldest first', async () => {
        const account = await newAccount();
        const other = await newAccount();
        const second = makeKey(account.id, { createdAt: at(2000) });
        const first = makeKey(account.id, { createdAt: at(1000) });
        await store.keys.create(second);
        await store.keys.create(first);
        await store.keys.create(makeKey(other.id));
        expect(await store.keys.findActiveByHash(first.hash)).toEqual(first);
        expect(await store.keys.findActiveByHash('0'.repeat(32))).toBeNull();
        expect(await store.keys.listByAccount(account.id)).toEqual([first, second]);
        expect(await store.keys.listByAccount('acc_missing')).toEqual([]);
      });

      it('rejects a second key with the same hash', async () => {
        const account = await newAccount();
        const key = makeKey(account.id);
        await store.keys.create(key);
        await expect(store.keys.create(makeKey(account.id, { hash: key.hash }))).rejects.toThrow();
      });

      it('revokes once: the key is no longer found but stays listed with its revocation time', async () => {
        const account = await newAccount();
        const key = makeKey(account.id);
        await store.keys.create(key);
        const revokedAt = at(5000);
        expect(await store.keys.revokeByHash(key.hash, revokedAt)).toBe(true);
        expect(await store.keys.revokeByHash(key.hash, at(9000))).toBe(false);
        expect(await store.keys.revokeByHash('f'.repeat(32), at())).toBe(false);
        expect(await store.keys.findActiveByHash(key.hash)).toBeNull();
        expect(await store.keys.listByAccount(account.id)).toEqual([{ ...key, revokedAt }]);
      });

      it('keeps a key’s name, revokes by id only for its own account, and records use at most once per period', async () => {
        const account = await newAccount();
        const other = await newAccount();
        const key = makeKey(account.id, { name: 'CI runner' });
        await store.keys.create(key);
        expect(await store.keys.findActiveByHash(key.hash)).toEqual(key);

        await store.keys.markUsed(key.id, at(1000), at(1000 - MINUTE));
        expect((await store.keys.findActiveByHash(key.hash))!.lastUsedAt).toEqual(at(1000));
        // Used again within the minute: not written.
        await store.keys.markUsed(key.id, at(2000), at(2000 - MINUTE));
        expect((await store.keys.findActiveByHash(key.hash))!.lastUsedAt).toEqual(at(1000));
        await store.keys.markUsed(key.id, at(2 * MINUTE), at(MINUTE));
        expect((await store.keys.findActiveByHash(key.hash))!.lastUsedAt).toEqual(at(2 * MINUTE));

        expect(await store.keys.revokeById(other.id, key.id, at(3000))).toBe(false);
        expect(await store.keys.findActiveByHash(key.hash)).not.toBeNull();
        expect(await store.keys.revokeById(account.id, key.id, at(3000))).toBe(true);
        expect(await store.keys.revokeById(account.id, key.id, at(4000))).toBe(false);
        expect(await store.keys.findActiveByHash(key.hash)).toBeNull();
        expect((await store.keys.listByAccount(account.id))[0]!.revokedAt).toEqual(at(3000));
      });
    });

    describe('logins', () => {
      const makeLogin = (accountId: string, overrides: Partial<LoginRecord> = {}): LoginRecord => ({
        email: `${randomUUID()}@example.com`, accountId, passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA', createdAt: at(), updatedAt: at(), ...overrides,
      });

      it('claims an e-mail address once, and finds the login by address and by account', async () => {
        const account = await newAccount();
        const other = await newAccount();
        const login = makeLogin(account.id);
        expect(await store.logins.create(login)).toBe(true);
        expect(await store.logins.create(makeLogin(other.id, { email: login.email }))).toBe(false);
        expect(await store.logins.findByEmail(login.email)).toEqual(login);
        expect(await store.logins.getByAccount(account.id)).toEqual(login);
        expect(await store.logins.findByEmail('nobody@example.com')).toBeNull();
        expect(await store.logins.getByAccount(other.id)).toBeNull();
      });

      it('two sign-ups racing for one address: exactly one wins', async () => {
        const email = `${randomUUID()}@example.com`;
        const accounts = await Promise.all([newAccount(), newAccount()]);
        const second = await openAnother();
        const results = await Promise.all([store.logins.create(makeLogin(accounts[0].id, { email })), second.logins.create(makeLogin(accounts[1].id, { email }))]);
        expect(results.filter(Boolean)).toHaveLength(1);
      });

      it('replaces the password hash', async () => {
        const account = await newAccount();
        const login = makeLogin(account.id);
        await store.logins.create(login);
        expect(await store.logins.setPasswordHash(account.id, '$argon2id$new', at(5000))).toBe(true);
        expect(await store.logins.findByEmail(login.email)).toEqual({ ...login, passwordHash: '$argon2id$new', updatedAt: at(5000) });
        expect(await store.logins.setPasswordHash('acc_missing', 'x', at())).toBe(false);
      });
    });

    describe('sessions', () => {
      const makeSession = (accountId: string, overrides: Partial<SessionRecord> = {}): SessionRecord => ({
        hash: randomUUID().replaceAll('-', ''), accountId, csrfHash: randomUUID().replaceAll('-', ''), createdAt: at(), expiresAt: at(HOUR), ...overrides,
      });

      it('finds a session until it expires, and extends it only forward', async () => {
        const account = await newAccount();
        const session = makeSession(account.id);
        await store.sessions.create(session);
        expect(await store.sessions.findActive(session.hash, at())).toEqual(session);
        expect(await store.sessions.findActive(session.hash, at(HOUR))).toBeNull();
        expect(await store.sessions.findActive('0'.repeat(32), at())).toBeNull();
        await store.sessions.extend(session.hash, at(2 * HOUR));
        await store.sessions.extend(session.hash, at(MINUTE));
        expect(await store.sessions.findActive(session.hash, at(HOUR))).toEqual({ ...session, expiresAt: at(2 * HOUR) });
      });

      it('deletes one session, all of an account, or the expired ones', async () => {
        const account = await newAccount();
        const other = await newAccount();
        const [a, b, expired] = [makeSession(account.id), makeSession(account.id), makeSession(other.id, { expiresAt: at(-MINUTE) })];
        const kept = makeSession(other.id);
        for (const s of [a, b, expired, kept]) await store.sessions.create(s);
        await store.sessions.delete(a.hash);
        expect(await store.sessions.findActive(a.hash, at())).toBeNull();
        expect(await store.sessions.deleteByAccount(account.id)).toBe(1);
        expect(await store.sessions.findActive(b.hash, at())).toBeNull();
        expect(await store.sessions.deleteExpired(at())).toBe(1);
        expect(await store.sessions.findActive(kept.hash, at())).toEqual(kept);
      });
    });

    describe('e-mail verification links', () => {
      const makeEmailToken = (accountId: string, overrides: Partial<EmailTokenRecord> = {}): EmailTokenRecord => ({
        hash: randomUUID().replaceAll('-', ''), accountId, email: 'new@example.com', createdAt: at(), expiresAt: at(24 * HOUR), ...overrides,
      });

      it('is taken once, and not after it expired', async () => {
        const account = await newAccount();
        const token = makeEmailToken(account.id);
        const late = makeEmailToken(account.id, { expiresAt: at(MINUTE) });
        await store.emailTokens.create(token);
        await store.emailTokens.create(late);
        expect(await store.emailTokens.consume(token.hash, at())).toEqual(token);
        expect(await store.emailTokens.consume(token.hash, at())).toBeNull();
        expect(await store.emailTokens.consume(late.hash, at(MINUTE))).toBeNull();
        expect(await store.emailTokens.consume('f'.repeat(32), at())).toBeNull();
      });

      it('two clicks racing on one link: exactly one takes it', async () => {
        const account = await newAccount();
        const token = makeEmailToken(account.id);
        await store.emailTokens.create(token);
        const second = await openAnother();
        const results = await Promise.all([store.emailTokens.consume(token.hash, at()), second.emailTokens.consume(token.hash, at())]);
        expect(results.filter(Boolean)).toHaveLength(1);
      });

      it('forgets an account’s links, and the expired ones', async () => {
        const account = await newAccount();
        const other = await newAccount();
        const [a, b] = [makeEmailToken(account.id), makeEmailToken(account.id)];
        const expired = makeEmailToken(other.id, { expiresAt: at(-MINUTE) });
        const kept = makeEmailToken(other.id);
        for (const t of [a, b, expired, kept]) await store.emailTokens.create(t);
        expect(await store.emailTokens.deleteByAccount(account.id)).toBe(2);
        expect(await store.emailTokens.deleteExpired(at())).toBe(1);
        expect(await store.emailTokens.consume(kept.hash, at())).toEqual(kept);
      });
    });

    describe('jobs', () => {
      let accountId: string;
      beforeEach(async () => {
        accountId = (await newAccount()).id;
      });

      it('creates a waiting job with every run field at its start value', async () => {
        const input = makeJob(accountId, { kind: 'tool', op: 'compress', viaApi: false });
        const created = await store.jobs.create(input);
        const expected: JobRecord = {
          ...input, batchId: null, status: 'waiting', progress: 0, error: null, toolReport: null, output: null, result: null, downloadTokenHash: null,
          refunded: false, attempts: 0, startedAt: null, completedAt: null, outputExpiresAt: null,
        };
        expect(created).toEqual(expected);
        expect(await store.jobs.get(input.id)).toEqual(expected);
        expect(await store.jobs.get('job_missing')).toBeNull();
      });

      it('start moves waiting to active and counts attempts; a restart after a crash keeps the first start time', async () => {
        const job = await newJob(accountId);
        const first = await store.jobs.start(job.id, at(1000));
        expect(first).toMatchObject({ status: 'active', attempts: 1, startedAt: at(1000) });
        const again = await store.jobs.start(job.id, at(5000));
        expect(again).toMatchObject({ status: 'active', attempts: 2, startedAt: at(1000) });
        expect(await store.jobs.start('job_missing', at())).toBeNull();
      });

      it('start answers null once the job has finished', async () => {
        const done = await doneJob(accountId);
        expect(await store.jobs.start(done.id, at())).toBeNull();
        const failed = await newJob(accountId);
        await store.jobs.fail(failed.id, 'boom', at());
        expect(await store.jobs.start(failed.id, at())).toBeNull();
        expect((await store.jobs.get(failed.id))?.attempts).toBe(0);
      });

      it('records progress only while active', async () => {
        const job = await newJob(accountId);
        await store.jobs.setProgress(job.id, 30);
        expect((await store.jobs.get(job.id))?.progress).toBe(0);
        await store.jobs.start(job.id, at());
        await store.jobs.setProgress(job.id, 40);
        expect((await store.jobs.get(job.id))?.progress).toBe(40);
      });

      it('completes an active job once, with its output, token and report', async () => {
        const job = await newJob(accountId);
        expect(await store.jobs.complete(job.id, completion())).toBe(false);
        await store.jobs.start(job.id, at());
        const result = completion({ toolReport: { op: 'detect-faces', detected: 3 }, at: at(2000), outputExpiresAt: at(HOUR) });
        expect(await store.jobs.complete(job.id, result)).toBe(true);
        expect(await store.jobs.complete(job.id, completion())).toBe(false);
        expect(await store.jobs.fail(job.id, 'late failure', at())).toBe(false);
        expect(await store.jobs.get(job.id)).toMatchObject({
          status: 'done', progress: 100, output: result.output, downloadTokenHash: result.downloadTokenHash, toolReport: result.toolReport,
          completedAt: result.at, outputExpiresAt: result.outputExpiresAt, error: null,
        });
      });

      it('completes an active extraction job once with its row; never from waiting, done or failed', async () => {
        const job = await newJob(accountId, { kind: 'extract', pluginId: 'parse-cv', outputFormat: 'json' });
        const row = extractionRow();
        expect(await store.jobs.completeWithResult(job.id, { result: row, at: at() })).toBe(false);
        expect((await store.jobs.get(job.id))).toMatchObject({ status: 'waiting', result: null, completedAt: null });
        await store.jobs.setProgress(job.id, 10);
        await store.jobs.start(job.id, at(1000));
        await store.jobs.setProgress(job.id, 60);
        expect(await store.jobs.completeWithResult(job.id, { result: row, at: at(2000) })).toBe(true);
        expect(await store.jobs.completeWithResult(job.id, { result: { other: 1 }, at: at(3000) })).toBe(false);
        expect(await store.jobs.complete(job.id, completion())).toBe(false);
        expect(await store.jobs.fail(job.id, 'late failure', at())).toBe(false);
        const done = await store.jobs.get(job.id);
        expect(done).toEqual({
          ...job, status: 'done', progress: 100, attempts: 1, startedAt: at(1000), completedAt: at(2000), result: row,
        });
        expect(done?.result).toEqual(extractionRow());

        const failed = await newJob(accountId, { kind: 'extract' });
        await store.jobs.start(failed.id, at());
        await store.jobs.fail(failed.id, 'engine crashed', at());
        expect(await store.jobs.completeWithResult(failed.id, { result: row, at: at() })).toBe(false);
        expect(await store.jobs.get(failed.id)).toMatchObject({ status: 'failed', result: null, error: 'engine crashed' });
        const converted = await doneJob(accountId);
        expect(await store.jobs.completeWithResult(converted.id, { result: row, at: at() })).toBe(false);
        expect((await store.jobs.get(converted.id))?.result).toBeNull();
        expect(await store.jobs.completeWithResult('job_missing', { result: row, at: at() })).toBe(false);
      });

      it('finishes an extraction job once even when workers on several instances race', async () => {
        const job = await newJob(accountId, { kind: 'extract' });
        await store.jobs.start(job.id, at());
        const stores = [store, await openAnother(), await openAnother()];
        const answers = await Promise.all([...Array(9)].map((_, i) => stores[i % 3]!.jobs.completeWithResult(job.id, { result: { worker: i }, at: at(i) })));
        expect(answers.filter(Boolean)).toHaveLength(1);
        const winner = answers.indexOf(true);
        expect(await store.jobs.get(job.id)).toMatchObject({ status: 'done', result: { worker: winner }, completedAt: at(winner) });
      });

      it('forgets extraction results of jobs created strictly before the cut-off, keeping everything else', async () => {
        const finish = async (createdAt: Date) => {
          const job = await newJob(accountId, { kind: 'extract', createdAt });
          await store.jobs.start(job.id, at());
          await store.jobs.completeWithResult(job.id, { result: extractionRow(), at: at() });
          return job;
        };
        const old = await finish(at(-2 * HOUR));
        const edge = await finish(at(-HOUR));
        const recent = await finish(at(-MINUTE));
        const converted = await doneJob(accountId);
        await store.jobs.clearResultsBefore(at(-HOUR));
        expect(await store.jobs.get(old.id)).toMatchObject({ status: 'done', result: null, completedAt: at(), progress: 100 });
        expect((await store.jobs.get(edge.id))?.result).toEqual(extractionRow());
        expect((await store.jobs.get(recent.id))?.result).toEqual(extractionRow());
        expect(await store.jobs.get(converted.id)).toEqual(converted);
        await store.jobs.clearResultsBefore(at());
        expect((await store.jobs.get(edge.id))?.result).toBeNull();
        expect((await store.jobs.get(recent.id))?.result).toBeNull();
        // Idempotent, and harmless on an empty set.
        await store.jobs.clearResultsBefore(at());
        expect((await store.jobs.get(old.id))?.result).toBeNull();
      });

      it('fails a waiting or active job once', async () => {
        const waiting = await newJob(accountId);
        expect(await store.jobs.fail(waiting.id, 'could not queue', at(1000))).toBe(true);
        expect(await store.jobs.get(waiting.id)).toMatchObject({ status: 'failed', error: 'could not queue', completedAt: at(1000) });
        expect(await store.jobs.fail(waiting.id, 'again', at())).toBe(false);
        const active = await newJob(accountId);
        await store.jobs.start(active.id, at());
        expect(await store.jobs.fail(active.id, 'engine crashed', at())).toBe(true);
        expect(await store.jobs.complete(active.id, completion())).toBe(false);
        expect((await store.jobs.get(active.id))?.error).toBe('engine crashed');
      });

      it('marks a refund once, even when asked concurrently', async () => {
        const job = await newJob(accountId);
        const other = await openAnother();
        const answers = await Promise.all([...Array(10)].map((_, i) => (i % 2 ? other : store).jobs.markRefunded(job.id)));
        expect(answers.filter(Boolean)).toHaveLength(1);
        expect((await store.jobs.get(job.id))?.refunded).toBe(true);
      });

      it('lists an account’s history newest first, paged, with the total', async () => {
        const other = await newAccount();
        const created: JobRecord[] = [];
        for (let i = 0; i < 5; i++) created.push(await newJob(accountId, { createdAt: at(i * 1000) }));
        await newJob(other.id);
        const newestFirst = ids(created).reverse();
        expect(await store.jobs.listByAccount(accountId, 10, 0)).toEqual({ total: 5, jobs: [...created].reverse() });
        expect(ids((await store.jobs.listByAccount(accountId, 2, 0)).jobs)).toEqual(newestFirst.slice(0, 2));
        const page = await store.jobs.listByAccount(accountId, 2, 3);
        expect(page.total).toBe(5);
        expect(ids(page.jobs)).toEqual(newestFirst.slice(3, 5));
        expect(await store.jobs.listByAccount(accountId, 10, 5)).toEqual({ total: 5, jobs: [] });
        expect(await store.jobs.listByAccount('acc_missing', 10, 0)).toEqual({ total: 0, jobs: [] });
      });

      it('orders history by id, descending, among jobs created at the same instant', async () => {
        const same = at();
        for (const id of ['job_b', 'job_c', 'job_a']) await newJob(accountId, { id, createdAt: same });
        expect(ids((await store.jobs.listByAccount(accountId, 10, 0)).jobs)).toEqual(['job_c', 'job_b', 'job_a']);
      });

      it('lists a batch’s jobs oldest first', async () => {
        const second = await newJob(accountId, { batchId: 'batch_1', createdAt: at(2000) });
        const first = await newJob(accountId, { batchId: 'batch_1', createdAt: at(1000) });
        await newJob(accountId, { batchId: 'batch_2' });
        await newJob(accountId);
        expect(await store.jobs.listByBatch('batch_1')).toEqual([first, second]);
        expect(first.batchId).toBe('batch_1');
        expect(await store.jobs.listByBatch('batch_missing')).toEqual([]);
      });

      it('lists unfinished (waiting and active) jobs, oldest first', async () => {
        const active = await newJob(accountId, { createdAt: at(2000) });
        await store.jobs.start(active.id, at());
        const waiting = await newJob(accountId, { createdAt: at(1000) });
        await doneJob(accountId);
        const failed = await newJob(accountId);
        await store.jobs.fail(failed.id, 'x', at());
        expect(ids(await store.jobs.listUnfinished())).toEqual([waiting.id, active.id]);
      });

      it('counts waiting jobs by plugin with the oldest one\'s acceptance time (queue metrics)', async () => {
        expect(await store.jobs.waitingByPlugin()).toEqual([]);
        await newJob(accountId, { pluginId: 'image-convert', createdAt: at(3000) });
        await newJob(accountId, { pluginId: 'image-convert', createdAt: at(1000) });
        await newJob(accountId, { pluginId: 'data-convert', createdAt: at(2000) });
        const started = await newJob(accountId, { pluginId: 'data-convert', createdAt: at(500) });
        await store.jobs.start(started.id, at());
        expect(await store.jobs.waitingByPlugin()).toEqual([
          { pluginId: 'data-convert', count: 1, oldestAt: at(2000) },
          { pluginId: 'image-convert', count: 2, oldestAt: at(1000) },
        ]);
      });

      it('lists jobs whose inputs are due and still present, until they are cleared', async () => {
        const now = at();
        const due = await newJob(accountId, { inputsExpireAt: at(-MINUTE) });
        const dueNow = await newJob(accountId, { inputsExpireAt: now });
        await newJob(accountId, { inputsExpireAt: at(MINUTE) });
        await newJob(accountId, { inputsExpireAt: at(-MINUTE), inputs: [] });
        expect(ids(await store.jobs.listInputsDue(now)).sort()).toEqual([due.id, dueNow.id].sort());
        await store.jobs.clearInputs(due.id);
        expect((await store.jobs.get(due.id))?.inputs).toEqual([]);
        expect(ids(await store.jobs.listInputsDue(now))).toEqual([dueNow.id]);
      });

      it('lists outputs due after their expiry; clearing removes the output and its token', async () => {
        const now = at();
        const due = await doneJob(accountId, completion({ outputExpiresAt: at(-MINUTE) }));
        await doneJob(accountId, completion({ outputExpiresAt: at(MINUTE) }));
        await newJob(accountId);
        expect(ids(await store.jobs.listOutputsDue(now))).toEqual([due.id]);
        await store.jobs.clearOutput(due.id);
        expect(await store.jobs.get(due.id)).toMatchObject({ status: 'done', output: null, downloadTokenHash: null });
        expect(await store.jobs.listOutputsDue(now)).toEqual([]);
      });

      it('extends an output’s life but never shortens it', async () => {
        const job = await doneJob(accountId, completion({ outputExpiresAt: at(HOUR) }));
        await store.jobs.extendOutput(job.id, at(2 * HOUR));
        expect((await store.jobs.get(job.id))?.outputExpiresAt).toEqual(at(2 * HOUR));
        await store.jobs.extendOutput(job.id, at(MINUTE));
        expect((await store.jobs.get(job.id))?.outputExpiresAt).toEqual(at(2 * HOUR));
        expect(ids(await store.jobs.listOutputsDue(at(HOUR + MINUTE)))).toEqual([]);
      });

      it('forgets download-token hashes of jobs completed at or before the cut-off, keeping the output', async () => {
        const old = await doneJob(accountId, completion({ at: at(-20 * MINUTE) }));
        const edge = await doneJob(accountId, completion({ at: at(-15 * MINUTE) }));
        const recent = await doneJob(accountId, completion({ at: at(-MINUTE) }));
        await store.jobs.clearExpiredDownloadTokens(at(-15 * MINUTE));
        expect(await store.jobs.get(old.id)).toMatchObject({ downloadTokenHash: null, output: old.output });
        expect((await store.jobs.get(edge.id))?.downloadTokenHash).toBeNull();
        expect((await store.jobs.get(recent.id))?.downloadTokenHash).toBe(recent.downloadTokenHash);
      });
    });

    describe('batches', () => {
      it('round-trips a batch conversion (tool null) and answers null for an unknown id', async () => {
        const account = await newAccount();
        const batch: BatchRecord = {
          id: `batch_${randomUUID()}`, accountId: account.id, tool: null, total: 3, errors: [{ filename: 'x.xyz', error: 'Unsupported format: xyz' }], createdAt: at(),
        };
        await store.batches.create(batch);
        expect(await store.batches.get(batch.id)).toEqual(batch);
        expect(await store.batches.get('batch_missing')).toBeNull();
      });

      it('round-trips an extraction batch with its tool', async () => {
        const account = await newAccount();
        const batch: BatchRecord = { id: `batch_${randomUUID()}`, accountId: account.id, tool: 'parse-cv', total: 1, errors: [], createdAt: at(1000) };
        await store.batches.create(batch);
        expect(await store.batches.get(batch.id)).toEqual(batch);
      });
    });

    describe('free trials', () => {
      let accountId: string;
      beforeEach(async () => {
        accountId = (await newAccount({ plan: 'free' })).id;
      });

      it('claims a trial once; a second claim answers false', async () => {
        expect(await store.trials.claim(accountId, 'parse-cv', at())).toBe(true);
        expect(await store.trials.claim(accountId, 'parse-cv', at(1000))).toBe(false);
        expect(await store.trials.claim(accountId, 'parse-cv', at(2000))).toBe(false);
      });

      it('gives exactly one of many concurrent claims from several instances', async () => {
        const stores = [store, await openAnother(), await openAnother()];
        const answers = await Promise.all([...Array(12)].map((_, i) => stores[i % stores.length]!.trials.claim(accountId, 'parse-cv', at(i))));
        expect(answers.filter(Boolean)).toHaveLength(1);
        expect(await store.trials.claim(accountId, 'parse-cv', at())).toBe(false);
      });

      it('can be claimed again after a release; releasing twice or releasing an unclaimed trial is harmless', async () => {
        await store.trials.release(accountId, 'parse-cv');
        expect(await store.trials.claim(accountId, 'parse-cv', at())).toBe(true);
        await store.trials.release(accountId, 'parse-cv');
        await store.trials.release(accountId, 'parse-cv');
        expect(await store.trials.claim(accountId, 'parse-cv', at(1000))).toBe(true);
        expect(await store.trials.claim(accountId, 'parse-cv', at(2000))).toBe(false);
        const other = await openAnother();
        await other.trials.release(accountId, 'parse-cv');
        expect(await store.trials.claim(accountId, 'parse-cv', at(3000))).toBe(true);
      });

      it('keeps tools and accounts apart', async () => {
        const other = (await newAccount({ plan: 'free' })).id;
        expect(await store.trials.claim(accountId, 'parse-cv', at())).toBe(true);
        expect(await store.trials.claim(accountId, 'file-search', at())).toBe(true);
        expect(await store.trials.claim(other, 'parse-cv', at())).toBe(true);
        expect(await store.trials.claim(accountId, 'file-search', at())).toBe(false);
        expect(await store.trials.claim(other, 'parse-cv', at())).toBe(false);
        await store.trials.release(accountId, 'parse-cv');
        expect(await store.trials.claim(other, 'parse-cv', at())).toBe(false);
        expect(await store.trials.claim(accountId, 'file-search', at())).toBe(false);
        expect(await store.trials.claim(accountId, 'parse-cv', at())).toBe(true);
        expect(await store.trials.claim(other, 'file-search', at())).toBe(true);
      });
    });

    describe('download tokens', () => {
      let jobId: string;
      beforeEach(async () => {
        const account = await newAccount();
        jobId = (await store.jobs.create(makeJob(account.id))).id;
      });

      it('round-trips a token and answers null for an unknown hash', async () => {
        const token = makeToken(jobId, { kind: 'signed', reusable: false });
        await store.tokens.create(token);
        expect(await store.tokens.get(token.hash)).toEqual(token);
        expect(await store.tokens.get('0'.repeat(32))).toBeNull();
      });

      it('consumes a single-use token exactly once, even under concurrent requests', async () => {
        const token = makeToken(jobId, { kind: 'signed', reusable: false });
        await store.tokens.create(token);
        const other = await openAnother();
        const consumedAt = at(3000);
        const answers = await Promise.all([...Array(12)].map((_, i) => (i % 2 ? other : store).tokens.consume(token.hash, consumedAt)));
        expect(answers.filter(Boolean)).toHaveLength(1);
        expect((await store.tokens.get(token.hash))?.consumedAt).toEqual(consumedAt);
        expect(await store.tokens.consume('0'.repeat(32), at())).toBe(false);
      });

      it('deletes tokens expired at or before the given time and counts them', async () => {
        const now = at();
        const expired = [makeToken(jobId, { expiresAt: at(-HOUR) }), makeToken(jobId, { expiresAt: now })];
        const live = makeToken(jobId, { expiresAt: at(MINUTE) });
        for (const token of [...expired, live]) await store.tokens.create(token);
        expect(await store.tokens.deleteExpired(now)).toBe(2);
        expect(await store.tokens.get(expired[0]!.hash)).toBeNull();
        expect(await store.tokens.get(live.hash)).toEqual(live);
        expect(await store.tokens.deleteExpired(now)).toBe(0);
      });
    });

    describe('credit usage', () => {
      let accountId: string;
      beforeEach(async () => {
        accountId = (await newAccount()).id;
      });

      it('reads zero for a period never charged', async () => {
        expect(await store.usage.get(accountId, '2030-01')).toEqual({ accountId, period: '2030-01', used: 0 });
      });

      it('charges up to the limit exactly, refuses past it without changing usage', async () => {
        expect(await store.usage.charge(accountId, '2030-01', 60, 100)).toEqual({ ok: true, used: 60 });
        expect(await store.usage.charge(accountId, '2030-01', 41, 100)).toEqual({ ok: false, used: 60 });
        expect(await store.usage.charge(accountId, '2030-01', 40, 100)).toEqual({ ok: true, used: 100 });
        expect(await store.usage.charge(accountId, '2030-01', 1, 100)).toEqual({ ok: false, used: 100 });
        expect(await store.usage.charge(accountId, '2030-02', 101, 100)).toEqual({ ok: false, used: 0 });
        expect((await store.usage.get(accountId, '2030-01')).used).toBe(100);
      });

      it('charges without a cap when the limit is null (overage)', async () => {
        expect(await store.usage.charge(accountId, '2030-01', 500, null)).toEqual({ ok: true, used: 500 });
        expect(await store.usage.charge(accountId, '2030-01', 500, null)).toEqual({ ok: true, used: 1000 });
      });

      it('keeps periods and accounts apart', async () => {
        const other = await newAccount();
        await store.usage.charge(accountId, '2030-01', 5, 100);
        await store.usage.charge(accountId, '2030-02', 7, 100);
        await store.usage.charge(other.id, '2030-01', 9, 100);
        expect((await store.usage.get(accountId, '2030-01')).used).toBe(5);
        expect((await store.usage.get(accountId, '2030-02')).used).toBe(7);
        expect((await store.usage.get(other.id, '2030-01')).used).toBe(9);
      });

      it('never overspends under many concurrent charges from several instances at the allowance edge', async () => {
        const others = [await openAnother(), await openAnother()];
        const stores = [store, ...others];
        // 60 charges of 3 against 100: exactly 33 fit (99), whatever the interleaving.
        const results = await Promise.all([...Array(60)].map((_, i) => stores[i % stores.length]!.usage.charge(accountId, '2030-01', 3, 100)));
        expect(results.filter((r) => r.ok)).toHaveLength(33);
        expect(results.every((r) => r.used <= 100)).toBe(true);
        expect((await store.usage.get(accountId, '2030-01')).used).toBe(99);
      });

      it('refunds without going below zero, and sets usage outright', async () => {
        await store.usage.charge(accountId, '2030-01', 10, null);
        await store.usage.refund(accountId, '2030-01', 4);
        expect((await store.usage.get(accountId, '2030-01')).used).toBe(6);
        await store.usage.refund(accountId, '2030-01', 50);
        expect((await store.usage.get(accountId, '2030-01')).used).toBe(0);
        await store.usage.set(accountId, '2030-03', 77);
        await store.usage.set(accountId, '2030-01', 12);
        expect((await store.usage.get(accountId, '2030-03')).used).toBe(77);
        expect(await store.usage.charge(accountId, '2030-01', 10, 20)).toEqual({ ok: false, used: 12 });
      });
    });

    describe('rate windows', () => {
      const window = 1_800_000_000_000;

      it('counts hits per key and window', async () => {
        expect(await store.rates.hit('key-a', window)).toBe(1);
        expect(await store.rates.hit('key-a', window)).toBe(2);
        expect(await store.rates.hit('key-b', window)).toBe(1);
        expect(await store.rates.hit('key-a', window + MINUTE)).toBe(1);
        expect(await store.rates.hit('key-a', window)).toBe(3);
      });

      it('gives every concurrent hit from several instances its own count', async () => {
        const stores = [store, await openAnother()];
        const counts = await Promise.all([...Array(30)].map((_, i) => stores[i % 2]!.rates.hit('busy', window)));
        expect([...counts].sort((a, b) => a - b)).toEqual([...Array(30)].map((_, i) => i + 1));
      });

      it('forgets windows that started before the given one', async () => {
        await store.rates.hit('key-a', window - 2 * MINUTE);
        await store.rates.hit('key-a', window - MINUTE);
        await store.rates.hit('key-a', window);
        await store.rates.deleteBefore(window - MINUTE);
        expect(await store.rates.hit('key-a', window - 2 * MINUTE)).toBe(1);
        expect(await store.rates.hit('key-a', window - MINUTE)).toBe(2);
        expect(await store.rates.hit('key-a', window)).toBe(2);
      });
    });
    describe('webhooks', () => {
      function makeEndpoint(accountId: string, overrides: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord {
        return {
          id: `whe_${randomUUID()}`, accountId, url: 'https://hooks.example.com/in', description: 'Zoë’s receiver', events: ['job.done', 'batch.done'],
          secret: 'sealed-1', previousSecret: null, previousExpiresAt: null, disabledAt: null, disabledReason: null, failingSince: null,
          createdAt: at(), updatedAt: at(), ...overrides,
        };
      }
      function makeDelivery(accountId: string, overrides: Partial<NewWebhookDelivery> = {}): NewWebhookDelivery {
        return {
          id: `msg_${randomUUID()}`, accountId, eventKey: `job.done:${randomUUID()}`, type: 'job.done', subjectId: 'job_1', endpointId: 'whe_1',
          url: 'https://hooks.example.com/in', nextAttemptAt: at(), createdAt: at(), ...overrides,
        };
      }

      it('endpoints: round-trip, list oldest first, update only what is given, delete with their log', async () => {
        const account = await newAccount();
        const first = makeEndpoint(account.id);
        const second = makeEndpoint(account.id, { createdAt: at(1000), events: null, description: null });
        await store.webhookEndpoints.create(second);
        await store.webhookEndpoints.create(first);
        await store.webhookEndpoints.create(makeEndpoint((await newAccount()).id));
        expect(await store.webhookEndpoints.get(first.id)).toEqual(first);
        expect(await store.webhookEndpoints.get('whe_missing')).toBeNull();
        expect((await store.webhookEndpoints.listByAccount(account.id)).map((e) => e.id)).toEqual([first.id, second.id]);
        await store.webhookEndpoints.update(first.id, {
          url: 'https://b.example.com', events: ['job.failed'], previousSecret: 'sealed-0', previousExpiresAt: at(HOUR), disabledAt: at(5), disabledReason: 'x',
          failingSince: at(2), updatedAt: at(9), description: undefined,
        });
        expect(await store.webhookEndpoints.get(first.id)).toEqual({
          ...first, url: 'https://b.example.com', events: ['job.failed'], previousSecret: 'sealed-0', previousExpiresAt: at(HOUR), disabledAt: at(5),
          disabledReason: 'x', failingSince: at(2), updatedAt: at(9),
        });
        await store.webhookEndpoints.update(first.id, { disabledAt: null, disabledReason: null, failingSince: null, description: null });
        expect(await store.webhookEndpoints.get(first.id)).toMatchObject({ disabledAt: null, disabledReason: null, failingSince: null, description: null });
        await store.webhookAttempts.add({ deliveryId: 'msg_1', endpointId: first.id, type: 'job.done', at: at(), statusCode: 200, latencyMs: 3, error: null }, 100);
        expect(await store.webhookEndpoints.delete(first.id)).toBe(true);
        expect(await store.webhookEndpoints.delete(first.id)).toBe(false);
        expect(await store.webhookEndpoints.get(first.id)).toBeNull();
        expect(await store.webhookAttempts.listByEndpoint(first.id, 100)).toEqual([]);
      });

      it('account secrets: put creates, then replaces', async () => {
        const account = await newAccount();
        expect(await store.webhookSecrets.get(account.id)).toBeNull();
        const record = { accountId: account.id, secret: 's1', previousSecret: null, previousExpiresAt: null, createdAt: at() };
        await store.webhookSecrets.put(record);
        expect(await store.webhookSecrets.get(account.id)).toEqual(record);
        const rotated = { ...record, secret: 's2', previousSecret: 's1', previousExpiresAt: at(HOUR), createdAt: at(5) };
        await store.webhookSecrets.put(rotated);
        expect(await store.webhookSecrets.get(account.id)).toEqual(rotated);
      });

      it('deliveries: one record per event and target, even from concurrent stores', async () => {
        const account = await newAccount();
        const delivery = makeDelivery(account.id);
        const other = await openAnother();
        const results = await Promise.all([
          store.webhookDeliveries.create(delivery),
          other.webhookDeliveries.create({ ...delivery, id: `msg_${randomUUID()}` }),
          store.webhookDeliveries.create({ ...delivery, id: `msg_${randomUUID()}` }),
        ]);
        expect(results.filter(Boolean)).toHaveLength(1);
        // Another target of the same event, and an override URL of it, are their own records.
        expect(await store.webhookDeliveries.create({ ...delivery, id: `msg_${randomUUID()}`, endpointId: 'whe_2' })).toBe(true);
        expect(await store.webhookDeliveries.create({ ...delivery, id: `msg_${randomUUID()}`, endpointId: null })).toBe(true);
        expect(await store.webhookDeliveries.create({ ...delivery, id: `msg_${randomUUID()}`, endpointId: null })).toBe(false);
        expect(await store.webhookDeliveries.get(delivery.id)).toEqual({
          ...delivery, status: 'pending', attempts: 0, lastStatusCode: null, lastError: null, completedAt: null,
        });
        expect(await store.webhookDeliveries.get('msg_missing')).toBeNull();
      });

      it('deliveries: retried while pending, finished once, listed while pending', async () => {
        const account = await newAccount();
        const a = makeDelivery(account.id);
        const b = makeDelivery(account.id, { createdAt: at(1000) });
        await store.webhookDeliveries.create(b);
        await store.webhookDeliveries.create(a);
        expect((await store.webhookDeliveries.listPending()).map((d) => d.id)).toEqual([a.id, b.id]);
        expect(await store.webhookDeliveries.retryLater(a.id, { statusCode: 500, error: 'HTTP 500', nextAttemptAt: at(5000) })).toBe(true);
        expect(await store.webhookDeliveries.get(a.id)).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: 500, lastError: 'HTTP 500', nextAttemptAt: at(5000) });
        expect(await store.webhookDeliveries.finish(a.id, { status: 'delivered', statusCode: 204, error: null, at: at(6000) })).toBe(true);
        expect(await store.webhookDeliveries.finish(a.id, { status: 'failed', statusCode: null, error: 'late', at: at(7000) })).toBe(false);
        expect(await store.webhookDeliveries.retryLater(a.id, { statusCode: 500, error: 'late', nextAttemptAt: at(8000) })).toBe(false);
        expect(await store.webhookDeliveries.get(a.id)).toMatchObject({
          status: 'delivered', attempts: 2, lastStatusCode: 204, lastError: null, nextAttemptAt: null, completedAt: at(6000),
        });
        await store.webhookDeliveries.finish(b.id, { status: 'failed', statusCode: null, error: 'timed out', at: at(9000) });
        expect(await store.webhookDeliveries.listPending()).toEqual([]);
      });

      it('attempts: newest first, only the newest kept per endpoint', async () => {
        for (let i = 0; i < 7; i++) {
          await store.webhookAttempts.add({ deliveryId: `msg_${i}`, endpointId: 'whe_log', type: 'job.done', at: at(i), statusCode: i % 2 ? 500 : null, latencyMs: i, error: i % 2 ? null : 'refused' }, 5);
        }
        await store.webhookAttempts.add({ deliveryId: 'msg_x', endpointId: 'whe_other', type: 'webhook.test', at: at(), statusCode: 200, latencyMs: 1, error: null }, 5);
        const log = await store.webhookAttempts.listByEndpoint('whe_log', 100);
        expect(log.map((a) => a.deliveryId)).toEqual(['msg_6', 'msg_5', 'msg_4', 'msg_3', 'msg_2']);
        expect(log[1]).toEqual({ deliveryId: 'msg_5', endpointId: 'whe_log', type: 'job.done', at: at(5), statusCode: 500, latencyMs: 5, error: null });
        expect(await store.webhookAttempts.listByEndpoint('whe_log', 2)).toHaveLength(2);
      });

      it('jobs finished since a time: done and failed, oldest first, ids and times', async () => {
        const account = await newAccount();
        const early = await doneJob(account.id, completion({ at: at(-HOUR) }));
        const done = await doneJob(account.id, completion({ at: at(2000) }));
        const failed = await newJob(account.id);
        await store.jobs.fail(failed.id, 'nope', at(1000));
        await newJob(account.id); // waiting
        const active = await newJob(account.id);
        await store.jobs.start(active.id, at());
        const batched = await newJob(account.id, { batchId: 'batch_1', kind: 'extract' });
        await store.jobs.start(batched.id, at());
        await store.jobs.completeWithResult(batched.id, { result: {}, at: at(3000) });
        expect(await store.jobs.listFinishedSince(at())).toEqual([
          { id: failed.id, accountId: account.id, batchId: null, kind: 'convert', status: 'failed', completedAt: at(1000) },
          { id: done.id, accountId: account.id, batchId: null, kind: 'convert', status: 'done', completedAt: at(2000) },
          { id: batched.id, accountId: account.id, batchId: 'batch_1', kind: 'extract', status: 'done', completedAt: at(3000) },
        ]);
        expect((await store.jobs.listFinishedSince(at(-HOUR))).map((j) => j.id)).toEqual([early.id, failed.id, done.id, batched.id]);
      });

      it('targets: the override URL of a job or batch', async () => {
        const account = await newAccount();
        expect(await store.webhookTargets.get('job_x')).toBeNull();
        await store.webhookTargets.put({ subjectId: 'job_x', accountId: account.id, url: 'https://a.example.com/', createdAt: at() });
        expect(await store.webhookTargets.get('job_x')).toEqual({ subjectId: 'job_x', accountId: account.id, url: 'https://a.example.com/', createdAt: at() });
      });
    });
  });
}
