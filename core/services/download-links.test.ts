/** DownloadLinks over a real SQLite store: derived tokens, hashes only in the store, the 15-minute window. */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore, openSqliteDatabase } from '../store/sqlite/index.js';
import type { JobRecord } from '../store/types.js';
import type { Clock } from './clock.js';
import { DownloadLinks } from './download-links.js';
import { sha256 } from './secrets.js';

const SECRET = 'download-links-test-secret-32-bytes!';
const T0 = new Date('2030-01-01T10:00:00.000Z');

describe('DownloadLinks', () => {
  let dir: string;
  let store: SqliteStore;
  let now: Date;
  const clock: Clock = { now: () => new Date(now) };
  let links: DownloadLinks;

  async function activeJob(): Promise<JobRecord> {
    const account = {
      id: `acc_${randomUUID()}`,
      plan: 'pro' as const,
      email: null,
      emailVerified: false,
      overageEnabled: false,
      creditsIncluded: null,
      requestsPerMinute: null,
      createdAt: T0,
    };
    await store.accounts.accounts.create(account);
    const job = await store.jobs.jobs.create({
      id: randomUUID(),
      accountId: account.id,
      kind: 'convert',
      pluginId: 'p',
      op: null,
      inputFormat: 'png',
      target: 'webp',
      options: {},
      inputs: [],
      creditCost: 1,
      creditPeriod: '2030-01',
      viaApi: true,
      createdAt: T0,
      inputsExpireAt: new Date(T0.getTime() + 3_600_000),
    });
    return (await store.jobs.jobs.start(job.id, T0))!;
  }

  const completion = (at = T0) => ({
    output: { blobKey: `outputs/${randomUUID()}`, filename: 'x.webp', format: 'webp' as const, bytes: 3 },
    toolReport: null,
    at,
    outputExpiresAt: new Date(at.getTime() + 3_600_000),
  });

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-links-'));
    store = new SqliteStore(openSqliteDatabase(path.join(dir, 'transmute.db')));
    now = T0;
    links = new DownloadLinks(store, SECRET, 'http://transmute.test', clock);
  });

  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a secret shorter than 32 bytes', () => {
    expect(() => new DownloadLinks(store, 'x'.repeat(31), 'http://transmute.test', clock)).toThrow(/at least 32 bytes/);
  });

  it('stores only the hash, and derives the same URL at every poll for 15 minutes', async () => {
    const job = await activeJob();
    expect(await links.complete(job.id, completion())).toBe(true);
    const done = (await store.jobs.jobs.get(job.id))!;
    const token = links.jobToken(done)!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(done.downloadTokenHash).toBe(sha256(token));
    expect(JSON.stringify(done)).not.toContain(token);
    expect(await store.links.tokens.get(sha256(token))).toMatchObject({
      jobId: job.id,
      kind: 'download',
      reusable: true,
      expiresAt: new Date(T0.getTime() + 900_000),
      consumedAt: null,
    });
    expect(links.jobUrl(done)).toBe(`http://transmute.test/api/download/${token}`);

    now = new Date(T0.getTime() + 900_000 - 1);
    expect(links.jobUrl((await store.jobs.jobs.get(job.id))!)).toBe(`http://transmute.test/api/download/${token}`);
    now = new Date(T0.getTime() + 900_000);
    expect(links.jobUrl((await store.jobs.jobs.get(job.id))!)).toBeNull();
  });

  it('gives each job and each completion time its own token, and another secret none of them', async () => {
    const [a, b] = [await activeJob(), await activeJob()];
    await links.complete(a.id, completion());
    await links.complete(b.id, completion());
    const [doneA, doneB] = [(await store.jobs.jobs.get(a.id))!, (await store.jobs.jobs.get(b.id))!];
    expect(links.jobToken(doneA)).not.toBe(links.jobToken(doneB));
    expect(links.jobToken({ ...doneA, completedAt: new Date(T0.getTime() + 1) })).toBeNull();
    // A process remembers the links it derived, checked against the job's completion and hash each poll.
    expect(links.jobToken({ ...doneA, downloadTokenHash: sha256('another link') })).toBeNull();
    expect(links.jobToken(doneA)).toBe(links.jobToken(doneA));
    expect(sha256(links.jobToken(doneA)!)).toBe(doneA.downloadTokenHash);
    // Minted under another secret (rotated, or a worker misconfigured): no link rather than a dead one.
    expect(new DownloadLinks(store, `${SECRET}-rotated`, 'http://transmute.test', clock).jobUrl(doneA)).toBeNull();
  });

  it('shows no link for a job without a stored hash (upgraded database), without an output, or not done', async () => {
    const job = await activeJob();
    await links.complete(job.id, completion());
    const done = (await store.jobs.jobs.get(job.id))!;
    expect(links.jobUrl({ ...done, downloadTokenHash: null })).toBeNull();
    expect(links.jobUrl({ ...done, output: null })).toBeNull();
    expect(links.jobUrl({ ...done, status: 'active' })).toBeNull();
    await store.jobs.jobs.clearOutput(job.id);
    expect(links.jobUrl((await store.jobs.jobs.get(job.id))!)).toBeNull();
  });

  it('completes nothing twice: a job finished elsewhere answers false', async () => {
    const job = await activeJob();
    expect(await links.complete(job.id, completion())).toBe(true);
    expect(await links.complete(job.id, completion(new Date(T0.getTime() + 5000)))).toBe(false);
    expect((await store.jobs.jobs.get(job.id))!.completedAt).toEqual(T0);
  });
});
