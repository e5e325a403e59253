/** The orphan sweep over a real SQLite store and local blobs: unheld stale uploads go, held ones stay. */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, utimes } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { LocalBlobStore } from '../blobs/local.js';
import type { Logger } from '../contract/index.js';
import { SqliteStore, openSqliteDatabase } from '../store/sqlite/index.js';
import { systemClock } from './clock.js';
import { RetentionService } from './retention.js';
import { orphanUploadAgeMs } from './upload-time.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const HOUR = 3_600_000;
let dir: string;
let store: SqliteStore;
let blobs: LocalBlobStore;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-retention-'));
  store = new SqliteStore(openSqliteDatabase(path.join(dir, 'transmute.db')));
  blobs = new LocalBlobStore(path.join(dir, 'blobs'));
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

async function upload(key: string, ageMs: number) {
  await blobs.write(key, Readable.from([Buffer.from('data')]));
  const when = new Date(Date.now() - ageMs);
  await utimes(path.join(dir, 'blobs', key), when, when);
}

it('deletes uploads no unfinished job holds once older than the retention, and nothing else', async () => {
  await upload('uploads/crashed-mid-request', 2 * HOUR);
  await upload('uploads/streaming-now', 0);
  await upload('uploads/held-by-a-waiting-job', 2 * HOUR);
  const now = new Date();
  const account = {
    id: 'acc',
    plan: 'pro',
    email: null,
    emailVerified: true,
    overageEnabled: false,
    creditsIncluded: null,
    requestsPerMinute: null,
    createdAt: now,
  } as const;
  await store.accounts.accounts.create(account);
  await store.jobs.jobs.create({
    id: randomUUID(),
    accountId: account.id,
    kind: 'convert',
    pluginId: 'p',
    op: null,
    inputFormat: 'txt',
    target: 'md',
    options: {},
    inputs: [{ blobKey: 'uploads/held-by-a-waiting-job', filename: 'a.txt', format: 'txt', bytes: 4 }],
    creditCost: 1,
    creditPeriod: '2026-11',
    viaApi: true,
    createdAt: now,
    inputsExpireAt: new Date(now.getTime() + HOUR),
  });
  await new RetentionService(store, blobs, systemClock, silent, {
    uploadsMs: 59 * 60_000,
    outputsMs: 59 * 60_000,
  }).purge();
  expect(await blobs.exists('uploads/crashed-mid-request')).toBe(false);
  expect(await blobs.exists('uploads/streaming-now')).toBe(true);
  expect(await blobs.exists('uploads/held-by-a-waiting-job')).toBe(true);
});

it('forgets browser sessions and e-mail links past their expiry, and keeps live ones', async () => {
  const now = new Date();
  const account = {
    id: 'acc',
    plan: 'free',
    email: 'a@example.com',
    emailVerified: false,
    overageEnabled: false,
    creditsIncluded: null,
    requestsPerMinute: null,
    createdAt: now,
  } as const;
  await store.accounts.accounts.create(account);
  const at = (ms: number) => new Date(now.getTime() + ms);
  await store.accounts.sessions.create({
    hash: 'expired',
    accountId: account.id,
    csrfHash: 'c1',
    createdAt: at(-2 * HOUR),
    expiresAt: at(-HOUR),
  });
  await store.accounts.sessions.create({
    hash: 'live',
    accountId: account.id,
    csrfHash: 'c2',
    createdAt: now,
    expiresAt: at(HOUR),
  });
  await store.accounts.emailTokens.create({
    hash: 'old-link',
    accountId: account.id,
    email: account.email,
    createdAt: at(-2 * HOUR),
    expiresAt: at(-HOUR),
  });
  await store.accounts.emailTokens.create({
    hash: 'new-link',
    accountId: account.id,
    email: account.email,
    createdAt: now,
    expiresAt: at(HOUR),
  });
  const retention = new RetentionService(store, blobs, systemClock, silent, { uploadsMs: HOUR, outputsMs: HOUR });
  await retention.purge();
  const far = at(-3 * HOUR); // a lookup time before every expiry: only a deleted row is missing
  expect(await store.accounts.sessions.findActive('expired', far)).toBeNull();
  expect(await store.accounts.sessions.findActive('live', far)).not.toBeNull();
  expect(await store.accounts.emailTokens.consume('old-link', far)).toBeNull();
  expect(await store.accounts.emailTokens.consume('new-link', far)).not.toBeNull();
});

it(
  "deletes outputs no job holds (a dead attempt's, or one whose delete failed) once older than the" + ' retention',
  async () => {
    const now = new Date();
    await store.accounts.accounts.create({
      id: 'acc',
      plan: 'pro',
      email: null,
      emailVerified: true,
      overageEnabled: false,
      creditsIncluded: null,
      requestsPerMinute: null,
      createdAt: now,
    });
    const job = await store.jobs.jobs.create({
      id: randomUUID(),
      accountId: 'acc',
      kind: 'convert',
      pluginId: 'p',
      op: null,
      inputFormat: 'txt',
      target: 'md',
      options: {},
      inputs: [],
      creditCost: 1,
      creditPeriod: '2026-11',
      viaApi: true,
      createdAt: now,
      inputsExpireAt: new Date(now.getTime() + HOUR),
    });
    await store.jobs.jobs.start(job.id, now);
    await store.jobs.jobs.start(job.id, now);
    // Attempt 1 stored its output and died; attempt 2 finished the job with its own, still within its retention.
    await upload(`outputs/${job.id}.1`, 2 * HOUR);
    await upload(`outputs/${job.id}.2`, 2 * HOUR);
    await store.jobs.jobs.complete(job.id, {
      output: { blobKey: `outputs/${job.id}.2`, filename: 'a.md', format: 'md', bytes: 4 },
      toolReport: null,
      at: now,
      outputExpiresAt: new Date(now.getTime() + HOUR),
    });
    // A job the store no longer knows, and an attempt's output written just now.
    await upload(`outputs/${randomUUID()}.1`, 2 * HOUR);
    const fresh = `outputs/${randomUUID()}.1`;
    await upload(fresh, 0);

    await new RetentionService(store, blobs, systemClock, silent, {
      uploadsMs: 59 * 60_000,
      outputsMs: 59 * 60_000,
    }).purge();
    expect((await blobs.listStale('outputs', new Date(Date.now() + 1000))).sort()).toEqual(
      [`outputs/${job.id}.2`, fresh].sort(),
    );
  },
);

it('spares unheld uploads until the upload age, past the retention, while outputs go at the retention', async () => {
  // The soak's 60 s retention with a 2-minute upload deadline: a request may record a job with a file this old.
  const ages = { uploadsMs: orphanUploadAgeMs(60_000, 120_000), outputsMs: 60_000 };
  await upload('uploads/request-still-accepting', 5 * 60_000);
  await upload('uploads/dead-request', ages.uploadsMs + 60_000);
  const deadOutput = `outputs/${randomUUID()}.1`;
  await upload(deadOutput, 5 * 60_000);
  await new RetentionService(store, blobs, systemClock, silent, ages).purge();
  expect(await blobs.exists('uploads/request-still-accepting')).toBe(true);
  expect(await blobs.exists('uploads/dead-request')).toBe(false);
  expect(await blobs.exists(deadOutput)).toBe(false);
});
