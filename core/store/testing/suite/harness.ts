/**
 * What the per-aggregate contract suites share: fresh storage per test, another store on the same
 * storage (as another API instance or worker process would open), and record makers.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, expect } from 'vitest';
import type {
  Account,
  ApiKeyRecord,
  DownloadTokenRecord,
  JobRecord,
  JobRepo,
  NewJob,
  Store,
  StoredFile,
} from '../../types.js';

/** Empty storage for one test (a database file, a MongoDB database, a PostgreSQL schema...). */
export interface StoreStorage {
  /**
   * A new store on this storage with its own connection, as another API instance or worker
   * process would have. Called more than once by the concurrency tests.
   */
  openStore(): Promise<Store>;
  /** Deletes the storage; every store opened on it is closed already. */
  destroy(): Promise<void>;
}

export type CreateStorage = () => Promise<StoreStorage>;

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;

/** A fixed instant near the real time, so tests can name the same moment twice. */
export const BASE_MS = Date.now();
export const at = (offsetMs = 0) => new Date(BASE_MS + offsetMs);

export function makeAccount(overrides: Partial<Account> = {}): Account {
  return {
    id: `acc_${randomUUID()}`,
    plan: 'pro',
    email: null,
    emailVerified: false,
    overageEnabled: false,
    creditsIncluded: null,
    requestsPerMinute: null,
    createdAt: at(),
    ...overrides,
  };
}

export function makeKey(accountId: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id: `key_${randomUUID()}`,
    accountId,
    hash: randomUUID().replaceAll('-', ''),
    prefix: 'ck_live_AbCd',
    createdAt: at(),
    revokedAt: null,
    name: null,
    lastUsedAt: null,
    ...overrides,
  };
}

export function makeFile(name = 'notes.txt'): StoredFile {
  return { blobKey: `uploads/${randomUUID()}`, filename: name, format: 'txt', bytes: 42 };
}

export function makeJob(accountId: string, overrides: Partial<NewJob> = {}): NewJob {
  return {
    id: `job_${randomUUID()}`,
    accountId,
    kind: 'convert',
    pluginId: 'test-plugin',
    op: null,
    inputFormat: 'txt',
    target: 'md',
    options: { steps: 3, nested: { list: [1, 'two'], flag: true } },
    inputs: [makeFile()],
    creditCost: 1,
    creditPeriod: '2030-01',
    viaApi: true,
    createdAt: at(),
    inputsExpireAt: at(HOUR),
    ...overrides,
  };
}

export function makeToken(jobId: string, overrides: Partial<DownloadTokenRecord> = {}): DownloadTokenRecord {
  return {
    hash: randomUUID().replaceAll('-', ''),
    jobId,
    kind: 'download',
    reusable: true,
    expiresAt: at(15 * MINUTE),
    consumedAt: null,
    createdAt: at(),
    ...overrides,
  };
}

/** An extraction job's row: nested objects, arrays, nulls, unicode, numbers. */
export function extractionRow(): Record<string, unknown> {
  return {
    name: 'Zoë Ångström',
    email: null,
    years: 7.5,
    remote: true,
    skills: ['TypeScript', 'SQL'],
    jobs: [{ company: 'Acme', from: '2019-02', to: null, highlights: [] }],
    contact: { links: { github: 'https://github.com/zoe' } },
  };
}

export function completion(overrides: Partial<Parameters<JobRepo['complete']>[1]> = {}) {
  return {
    output: { blobKey: `outputs/${randomUUID()}`, filename: 'notes.md', format: 'md' as const, bytes: 7 },
    downloadTokenHash: randomUUID().replaceAll('-', ''),
    toolReport: null,
    at: at(),
    outputExpiresAt: at(HOUR),
    ...overrides,
  };
}

export const ids = (jobs: JobRecord[]) => jobs.map((job) => job.id);

export interface StoreHarness {
  /** The store of the running test. */
  readonly store: Store;
  /** Another store on the same storage, closed after the test. */
  openAnother(): Promise<Store>;
  newAccount(overrides?: Partial<Account>): Promise<Account>;
  newJob(accountId: string, overrides?: Partial<NewJob>): Promise<JobRecord>;
  /** A job that ran to completion. */
  doneJob(accountId: string, result?: ReturnType<typeof completion>): Promise<JobRecord>;
}

/** Registers the hooks that give every test of the calling describe block fresh storage. */
export function useStoreHarness(createStorage: CreateStorage): StoreHarness {
  let storage: StoreStorage;
  let store: Store;
  const extraStores: Store[] = [];

  beforeEach(async () => {
    storage = await createStorage();
    store = await storage.openStore();
  });

  afterEach(async () => {
    await Promise.all(extraStores.splice(0).map((s) => s.close()));
    await store.close();
    await storage.destroy();
  });

  const harness: StoreHarness = {
    get store() {
      return store;
    },
    async openAnother() {
      const other = await storage.openStore();
      extraStores.push(other);
      return other;
    },
    async newAccount(overrides = {}) {
      const account = makeAccount(overrides);
      await store.accounts.accounts.create(account);
      return account;
    },
    async newJob(accountId, overrides = {}) {
      return store.jobs.jobs.create(makeJob(accountId, overrides));
    },
    async doneJob(accountId, result = completion()) {
      const job = await harness.newJob(accountId);
      await store.jobs.jobs.start(job.id, at());
      expect(await store.jobs.jobs.complete(job.id, result)).toBe(true);
      return (await store.jobs.jobs.get(job.id))!;
    },
  };
  return harness;
}
