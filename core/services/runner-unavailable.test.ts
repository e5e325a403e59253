/**
 * A run that cannot reach the service's own file store (S3 answering 503, a connection reset) is not the job's
 * fault: the runner leaves the job unfinished and throws, so the queue runs it again with back-off, instead of
 * failing it for good with "internal error". A plugin's own failure still fails the job with its refund.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { LocalBlobStore } from '../blobs/local.js';
import { Registry } from '../registry/index.js';
import { markBackendError } from '../store/backend-errors.js';
import type { SqliteStore } from '../store/sqlite/index.js';
import type { Services } from './index.js';
import { servicesOverSqlite } from './testing/services.js';
import { textToMarkdownTestPlugin } from './testing/text-plugin.js';

/** What the S3 blob store throws for a 503 after the SDK's own retries. */
const s3Unavailable = () =>
  markBackendError(
    Object.assign(new Error('UnknownError'), { name: 'Unknown', $metadata: { httpStatusCode: 503 } }),
    'S3',
  );

class UnreachableBlobs extends LocalBlobStore {
  down = true;
  override async localPath(key: string): Promise<string> {
    if (this.down) throw s3Unavailable();
    return super.localPath(key);
  }
}

let dir: string;
let blobs: UnreachableBlobs;
let store: SqliteStore;
let services: Services;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-runner-unavailable-'));
  blobs = new UnreachableBlobs(path.join(dir, 'blobs'));
  ({ store, services } = servicesOverSqlite(
    dir,
    new Registry([textToMarkdownTestPlugin]),
    'runner-unavailable-test-secret-of-32-bytes',
    { blobs, maxAttempts: 3 },
  ));
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

it('leaves a job whose file store did not answer to the queue to run again, unfinished and charged', async () => {
  const account = await services.accounts.createAccount({ plan: 'pro' });
  const charge = await services.credits.charge(account, 1);
  await blobs.write('uploads/in.txt', Readable.from([Buffer.from('hello')]));
  const now = new Date();
  const job = await store.jobs.jobs.create({
    id: randomUUID(),
    accountId: account.id,
    kind: 'convert',
    pluginId: textToMarkdownTestPlugin.id,
    op: null,
    inputFormat: 'txt',
    target: 'md',
    options: {},
    inputs: [{ blobKey: 'uploads/in.txt', filename: 'in.txt', format: 'txt', bytes: 5 }],
    creditCost: 1,
    creditPeriod: charge.period,
    viaApi: true,
    createdAt: now,
    inputsExpireAt: new Date(now.getTime() + 3_600_000),
  });

  await expect(services.runner.run(job.id)).rejects.toThrow(/UnknownError/);
  const after = (await store.jobs.jobs.get(job.id))!;
  expect([after.status, after.refunded, after.inputs.length]).toEqual(['active', false, 1]);
  expect((await store.credits.usage.get(account.id, charge.period)).used).toBe(1);

  // Once the store answers, the next attempt runs the plugin: its failure is the job's, refunded.
  blobs.down = false;
  await services.runner.run(job.id);
  const failed = (await store.jobs.jobs.get(job.id))!;
  expect([failed.status, failed.refunded, failed.attempts]).toEqual(['failed', true, 2]);
  expect((await store.credits.usage.get(account.id, charge.period)).used).toBe(0);
});
