/** The staged-upload lifetime rule: the orphan age follows from the body's deadline and acceptance's bound. */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalBlobStore } from '../blobs/local.js';
import { Registry } from '../registry/index.js';
import type { SqliteStore } from '../store/sqlite/index.js';
import type { Principal } from './accounts.js';
import { ServiceError } from './errors.js';
import {
  ACCEPTANCE_MAX_MS,
  DEFAULT_UPLOAD_MAX_MS,
  ORPHAN_MARGIN_MS,
  UPLOAD_MAX_S_LIMIT,
  orphanUploadAgeMs,
  stagedUploadLimitMs,
} from './upload-time.js';
import type { Services } from './index.js';
import { servicesOverSqlite } from './testing/services.js';
import { textToMarkdownTestPlugin } from './testing/text-plugin.js';
import { type StagedUpload, UploadService } from './uploads.js';

const TOKEN_SECRET = 'upload-time-test-secret-of-32-bytes-at-least';

const MINUTE = 60_000;
/** RETENTION_S's default and maximum: the spec's hour less the purge's minute. */
const HOUR_LESS_PURGE = 59 * MINUTE;
/** Node checks its request timeouts this often at most (app.ts): a body may run this much past UPLOAD_MAX_S. */
const DEADLINE_CHECK_MS = 30_000;

describe('orphanUploadAgeMs', () => {
  it('is the retention by default: 45 minutes of body, 5 of acceptance and 2 of margin fit in 59', () => {
    expect(DEFAULT_UPLOAD_MAX_MS).toBe(45 * MINUTE);
    expect(stagedUploadLimitMs(DEFAULT_UPLOAD_MAX_MS)).toBe(50 * MINUTE);
    expect(orphanUploadAgeMs(HOUR_LESS_PURGE, DEFAULT_UPLOAD_MAX_MS)).toBe(HOUR_LESS_PURGE);
  });

  it('outlasts a short retention: no orphan before a request could have recorded its job', () => {
    // The soak's 60 s retention with a 2-minute upload deadline.
    expect(orphanUploadAgeMs(MINUTE, 2 * MINUTE)).toBe(2 * MINUTE + ACCEPTANCE_MAX_MS + ORPHAN_MARGIN_MS);
    for (const uploadMaxMs of [1000, MINUTE, DEFAULT_UPLOAD_MAX_MS, UPLOAD_MAX_S_LIMIT * 1000]) {
      for (const retentionMs of [30_000, MINUTE, HOUR_LESS_PURGE]) {
        const age = orphanUploadAgeMs(retentionMs, uploadMaxMs);
        // The oldest file a job may still be recorded with, plus the deadline's lateness, is younger than an orphan.
        expect(stagedUploadLimitMs(uploadMaxMs) + DEADLINE_CHECK_MS).toBeLessThan(age);
        expect(age).toBeGreaterThanOrEqual(retentionMs);
      }
    }
  });

  it("keeps every orphan within the spec's hour up to UPLOAD_MAX_S's limit (52 minutes)", () => {
    expect(UPLOAD_MAX_S_LIMIT).toBe(52 * 60);
    expect(orphanUploadAgeMs(30_000, UPLOAD_MAX_S_LIMIT * 1000)).toBe(HOUR_LESS_PURGE);
    expect(orphanUploadAgeMs(30_000, (UPLOAD_MAX_S_LIMIT + 1) * 1000)).toBeGreaterThan(HOUR_LESS_PURGE);
  });
});

describe('UploadService.checkStagedInTime', () => {
  let dir: string;
  let uploads: UploadService;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-upload-time-'));
    uploads = new UploadService(new LocalBlobStore(dir), undefined, undefined, {
      idleMs: 1000,
      stagedLimitMs: stagedUploadLimitMs(MINUTE),
    });
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('lets a job be recorded with files staged within the limit, and with pending URL imports', async () => {
    const staged = await uploads.stage({ filename: 'a.txt', stream: Readable.from([Buffer.from('text')]) }, 100);
    expect(staged.stagedAt).toBeLessThanOrEqual(Date.now());
    expect(() => uploads.checkStagedInTime([staged])).not.toThrow();
    expect(() => uploads.checkStagedInTime([{}])).not.toThrow();
  });

  it('refuses (503, retry) once the oldest file is older than the limit: the sweep may take it', () => {
    const limit = stagedUploadLimitMs(MINUTE);
    const fresh = { stagedAt: Date.now() };
    const old = { stagedAt: Date.now() - limit - 1000 };
    let refusal: unknown;
    try {
      uploads.checkStagedInTime([fresh, old]);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(ServiceError);
    expect(refusal).toMatchObject({ code: 'UNAVAILABLE', detail: { retryAfterSeconds: 60 } });
    expect((refusal as ServiceError).message).toMatch(/took too long to accept this request .*send it again/);
    expect(uploads.bodyIdleMs()).toBe(1000);
  });
});

describe('acceptance with files staged too long ago', () => {
  let dir: string;
  let store: SqliteStore;
  let services: Services;
  let owner: Principal;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-upload-time-'));
    ({ store, services } = servicesOverSqlite(dir, new Registry([textToMarkdownTestPlugin]), TOKEN_SECRET));
    owner = { account: await services.accounts.createAccount({ plan: 'pro' }), keyId: 'test-key' };
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const stage = () =>
    services.uploads.stage({ filename: 'notes.txt', stream: Readable.from([Buffer.from('some notes')]) }, 1000);
  const convert = (upload: StagedUpload) =>
    services.jobs.accept(owner, { upload, to: 'md', op: undefined, fields: {}, fieldsAreStrings: true, viaApi: true });

  it('records no job, charges nothing and deletes the file (503, retry); a fresh one is accepted', async () => {
    const staged = await stage();
    const limit = stagedUploadLimitMs(DEFAULT_UPLOAD_MAX_MS);
    await expect(convert({ ...staged, stagedAt: Date.now() - limit - 1000 })).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      detail: { retryAfterSeconds: 60 },
    });
    expect(await new LocalBlobStore(path.join(dir, 'blobs')).exists(staged.blobKey)).toBe(false);
    expect((await store.jobs.jobs.listByAccount(owner.account.id, 10, 0)).jobs).toEqual([]);

    const fresh = await stage();
    expect(await convert(fresh)).toMatchObject({ status: 'queued' });
    const { jobs } = await store.jobs.jobs.listByAccount(owner.account.id, 10, 0);
    expect(jobs).toMatchObject([{ status: 'waiting', inputs: [{ blobKey: fresh.blobKey }] }]);
  });
});
