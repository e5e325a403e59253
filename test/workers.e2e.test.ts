/**
 * Workers as separate processes (embedded mode: the processes share DATA_DIR's SQLite file):
 * an API-only server (WORKERS=0) plus `apps/worker` processes. Every job runs to completion
 * exactly once though a worker is killed mid-job, and SIGTERM never loses a job.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore, openSqliteDatabase } from '../core/store/sqlite/index.js';
import {
  admin,
  download,
  getJson,
  spawnServer,
  spawnWorker,
  stopProcess,
  submitConvert,
  waitForJob,
  waitUntil,
  type ChildServer,
  type ChildWorker,
} from './helpers.js';

const expectedOutput = (text: string) => `# Converted\n\n${text.toUpperCase()}\n`;

describe('workers in their own processes', () => {
  let dataDir: string;
  let key: string;
  let env: Record<string, string>;
  const children: ChildProcess[] = [];
  let server: ChildServer;

  async function startWorker(overrides: Record<string, string> = {}): Promise<ChildWorker> {
    const worker = await spawnWorker({ ...env, WORKERS: '1', ...overrides });
    children.push(worker.process);
    return worker;
  }

  async function submit(text: string, steps: number): Promise<string> {
    const accepted = await submitConvert(
      server.url,
      key,
      { name: 'note.txt', data: text },
      { to: 'md', steps: String(steps) },
    );
    expect(accepted.status).toBe(200);
    return accepted.body.jobId as string;
  }

  async function statusOf(jobId: string): Promise<{ status: string; progress?: number }> {
    return (await getJson(`${server.url}/api/v1/jobs/${jobId}`, key)).body;
  }

  async function expectDoneWith(jobId: string, text: string, timeoutMs = 60_000): Promise<void> {
    const job = await waitForJob(server.url, key, jobId, timeoutMs);
    expect(job.status).toBe('done');
    expect((await download(job.downloadUrl!)).data.toString()).toBe(expectedOutput(text));
  }

  /** Reads the jobs' run counts straight from the shared database file. */
  async function attemptsOf(jobIds: string[]): Promise<number[]> {
    const store = new SqliteStore(openSqliteDatabase(path.join(dataDir, 'transmute.db')));
    try {
      return await Promise.all(jobIds.map(async (id) => (await store.jobs.jobs.get(id))!.attempts));
    } finally {
      await store.close();
    }
  }

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'transmute-workers-'));
    // MONGODB_URL empty: these processes run embedded even where a MongoDB is configured.
    env = {
      DATA_DIR: dataDir,
      PLUGINS: './test/fixtures/plugins/slow-text.ts',
      MONGODB_URL: '',
      // Renewed every third of it: 5 s leaves a busy worker's event loop over 1.5 s of delay before a lock lapses.
      QUEUE_LOCK_MS: '5000',
      SHUTDOWN_GRACE_MS: '20000',
    };
    // Enterprise: its rate limit leaves room for polling several jobs closely.
    key = (await admin(dataDir, 'create-key', '--plan', 'enterprise')).result.key;
    server = await spawnServer({ ...env, WORKERS: '0' });
    children.push(server.process);
  });

  afterEach(async () => {
    await Promise.all(children.splice(0).map(stopProcess));
    await rm(dataDir, { recursive: true, force: true });
  });

  it('two workers run every job exactly once, though one is killed mid-job', { timeout: 180_000 }, async () => {
    const workers = [await startWorker(), await startWorker()];
    const texts = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'];
    const jobIds: string[] = [];
    // Each job (6 s) outlives the 5 s lock: only renewal while it runs keeps other workers off it.
    for (const text of texts) jobIds.push(await submit(text, 60));

    // One job at a time per worker: two jobs under way means each worker holds one.
    await waitUntil(
      async () => {
        const statuses = await Promise.all(jobIds.map(statusOf));
        return statuses.filter((s) => s.status === 'active' && (s.progress ?? 0) > 0).length === 2;
      },
      60_000,
      'both workers to be mid-job',
    );
    workers[0]!.process.kill('SIGKILL');
    await workers[0]!.exited;

    for (const [i, jobId] of jobIds.entries()) await expectDoneWith(jobId, texts[i]!);

    // The killed worker's job ran a second time (after its lock expired); no other job ran twice.
    const attempts = await attemptsOf(jobIds);
    expect(attempts.filter((n) => n === 2)).toHaveLength(1);
    expect(attempts.filter((n) => n === 1)).toHaveLength(texts.length - 1);
    // Each job finished in exactly one worker.
    const finishes = workers.flatMap((w) => w.logs.filter((l) => l.msg === 'job done').map((l) => l.jobId));
    expect([...finishes].sort()).toEqual([...jobIds].sort());
    expect(workers[1]!.logs.some((l) => l.msg === 'job done')).toBe(true);
  });

  it('SIGTERM lets the running job finish within the grace period, then exits 0', { timeout: 120_000 }, async () => {
    const worker = await startWorker();
    const jobId = await submit('finish me', 20);
    await waitUntil(async () => (await statusOf(jobId)).status === 'active', 20_000, 'the job to start');
    worker.process.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    await expectDoneWith(jobId, 'finish me', 1000);
  });

  it('SIGTERM past the grace period hands the job back at once; another worker finishes it', {
    timeout: 180_000,
  }, async () => {
    // A lock far longer than the test: only the hand-back, not lock expiry, can free the job.
    const slowLock = { QUEUE_LOCK_MS: '600000' };
    const worker = await startWorker({ ...slowLock, SHUTDOWN_GRACE_MS: '300' });
    const jobId = await submit('hand me back', 50);
    await waitUntil(async () => ((await statusOf(jobId)).progress ?? 0) > 0, 20_000, 'the job to make progress');
    const signalledAt = Date.now();
    worker.process.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    // It did not wait for the job: the job is neither done nor failed, only handed back. The bound
    // only catches a hung shutdown (the grace is 300 ms).
    expect((await statusOf(jobId)).status).toBe('active');
    expect(Date.now() - signalledAt).toBeLessThan(30_000);

    await startWorker(slowLock);
    await expectDoneWith(jobId, 'hand me back', 30_000);
    expect(await attemptsOf([jobId])).toEqual([2]);
  });

  it('a server with its own workers, stopped by SIGTERM mid-job, exits 0 and finishes the job after a restart', {
    timeout: 180_000,
  }, async () => {
    await server.kill('SIGTERM');
    const embedded = { ...env, WORKERS: '1', SHUTDOWN_GRACE_MS: '300' };
    server = await spawnServer(embedded);
    children.push(server.process);
    const jobId = await submit('survive the restart', 50);
    await waitUntil(async () => ((await statusOf(jobId)).progress ?? 0) > 0, 20_000, 'the job to make progress');
    await server.kill('SIGTERM');
    expect(server.process.exitCode).toBe(0);

    server = await spawnServer({ ...embedded, PORT: new URL(server.url).port });
    children.push(server.process);
    await expectDoneWith(jobId, 'survive the restart', 30_000);
  });
});
