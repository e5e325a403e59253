/**
 * A worker stalls mid-job past its queue lock's lifetime (SIGSTOP on it and its sandbox processes, as a
 * machine too loaded to run it would), another worker takes the job over, then the stalled one resumes.
 * The first run finds its lock taken and stops; its saves and clean-up change nothing of the second
 * attempt's (the entry, the work folder both share in DATA_DIR, the output), and the job ends done once,
 * with the right output and its credits charged once. On the embedded SQLite mode and on PostgreSQL + S3.
 */
import { readFile, readdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStore } from '../core/store/postgres/index.js';
import { SqliteStore, openSqliteDatabase } from '../core/store/sqlite/index.js';
import type { Store } from '../core/store/types.js';
import {
  adminWith,
  sleep,
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
import { startPostgres, type PostgresTestServer } from './servers/postgres.js';
import { startS3Server, type S3TestServer } from './servers/s3.js';

const LOCK_LOST = 'queue lock lost: the run stops and leaves the job to the attempt holding it';
const LATE_SAVE = 'a run ended after another attempt took its queue entry: its save and removal changed nothing';
const TEXT = 'stalled past its lock';

/** The queue entry of a job as stored: its lock and when it is due (epoch ms), or undefined once removed. */
type Entry = { lockedAt: number | null; nextRunAt: number | null } | undefined;

interface Deployment {
  env: Record<string, string>;
  store: Store;
  entryOf(jobId: string): Promise<Entry>;
  /** Whether another process could write now (no stopped process holds SQLite's write lock). */
  writable(): boolean;
  close(): Promise<void>;
}

/** `pid` and its descendants (the worker's sandbox processes and their engines), read from /proc. */
async function processTree(pid: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read past the last ')'.
    if (stat) parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child);
  }
  return tree;
}

const signalAll = (pids: number[], signal: NodeJS.Signals) => {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // exited meanwhile
    }
  }
};

function lapseScenario(deploy: () => Promise<Deployment>) {
  let deployment: Deployment;
  let dataDir: string;
  const started: Array<ChildServer | ChildWorker> = [];

  beforeAll(async () => {
    deployment = await deploy();
    dataDir = deployment.env.DATA_DIR!;
  }, 180_000);

  afterEach(async () => {
    await Promise.all(started.splice(0).map((child) => stopProcess(child.process)));
  }, 60_000);

  afterAll(async () => {
    await deployment?.close();
  }, 120_000);

  it('the stalled run stops, its late save changes nothing, and the job is done once by the next attempt', {
    timeout: 240_000,
  }, async () => {
    const { env, store } = deployment;
    const created = await adminWith(env, 'create-key', '--plan', 'enterprise');
    const key = created.result.key as string;
    const api = await spawnServer({ ...env, WORKERS: '0' });
    started.push(api);
    const first = await spawnWorker({ ...env, WORKERS: '1' });
    started.push(first);
    // 100 steps of 100 ms: the second attempt is still running when the first resumes.
    const accepted = await submitConvert(api.url, key, { name: 'note.txt', data: TEXT }, { to: 'md', steps: '100' });
    expect(accepted.status).toBe(200);
    const jobId = accepted.body.jobId as string;
    await waitUntil(
      async () => {
        const job = await store.jobs.jobs.get(jobId);
        return job?.status === 'active' && job.progress > 0;
      },
      60_000,
      'the first worker to be mid-job',
    );

    let stalled: number[];
    for (;;) {
      stalled = await processTree(first.process.pid!);
      signalAll(stalled, 'SIGSTOP');
      if (deployment.writable()) break;
      // Stopped inside a write transaction, which every other process would wait on: let it end, stop again.
      signalAll(stalled, 'SIGCONT');
      await sleep(20);
    }
    let entryHeldBySecond: Entry;
    let second: ChildWorker;
    try {
      // Once the stalled run's lock is older than its 5 s lifetime, the second worker takes the entry over.
      second = await spawnWorker({ ...env, WORKERS: '1' });
      started.push(second);
      await waitUntil(async () => (await store.jobs.jobs.get(jobId))?.attempts === 2, 60_000, 'the second attempt');
      entryHeldBySecond = await deployment.entryOf(jobId);
    } finally {
      signalAll(stalled, 'SIGCONT');
    }
    expect(entryHeldBySecond?.lockedAt).toBeTypeOf('number');

    // Resumed, the first run's renewal finds the lock taken: the run stops, and its end save is refused.
    const logged = (worker: ChildWorker, msg: string) =>
      worker.logs.some((line) => line.msg === msg && line.jobId === jobId);
    await waitUntil(() => logged(first, LOCK_LOST) && logged(first, LATE_SAVE), 60_000, 'the first run to stop');
    const afterLateSave = await deployment.entryOf(jobId);
    // Still the second attempt's (locked, not handed back as due), or already removed by it when it finished.
    if (afterLateSave) expect(afterLateSave).toMatchObject({ lockedAt: expect.any(Number), nextRunAt: null });

    const job = await waitForJob(api.url, key, jobId, 120_000);
    expect(job.status, job.error).toBe('done');
    expect((await download(job.downloadUrl!)).data.toString()).toBe(`# Converted\n\n${TEXT.toUpperCase()}\n`);
    const record = (await store.jobs.jobs.get(jobId))!;
    // No third attempt: the first run's hand-back never made the entry due again.
    expect(record.attempts).toBe(2);
    expect(record.refunded).toBe(false);
    expect((await getJson(`${api.url}/api/v1/credits`, key)).body.creditsUsed).toBe(accepted.body.creditCost);
    await waitUntil(async () => (await deployment.entryOf(jobId)) === undefined, 30_000, 'the entry to be removed');
    // The first run neither failed nor finished the job; the second finished it.
    expect(logged(first, 'job failed')).toBe(false);
    expect(logged(first, 'job done')).toBe(false);
    expect(logged(second, 'job done')).toBe(true);
    // Both runs' work folders are gone, and the job's with them.
    await waitUntil(
      async () => !(await readdir(path.join(dataDir, 'work')).catch(() => [] as string[])).includes(jobId),
      30_000,
      "the job's work folder to go",
    );
  });
}

const baseEnv = (dataDir: string) => ({
  DATA_DIR: dataDir,
  PLUGINS: './test/fixtures/plugins/slow-text.ts',
  MONGODB_URL: '',
  // Renewed every third of it; the stall lasts past it.
  QUEUE_LOCK_MS: '5000',
  QUEUE_POLL_MS: '200',
  SHUTDOWN_GRACE_MS: '5000',
});

describe('a lapsed queue lock, embedded (SQLite; the workers share DATA_DIR)', () => {
  lapseScenario(async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'transmute-lapse-'));
    const env = { ...baseEnv(dataDir), POSTGRES_URL: '', S3_BUCKET: '' };
    // The CLI creates the database the test reads beside the processes.
    await adminWith(env, 'create-key', '--plan', 'free');
    const db = openSqliteDatabase(path.join(dataDir, 'transmute.db'));
    const store = new SqliteStore(db);
    const queue = new Database(path.join(dataDir, 'transmute.db'), { readonly: true });
    // Never waits: a write lock held by another process is an answer.
    const probe = new Database(path.join(dataDir, 'transmute.db'), { timeout: 0 });
    return {
      env,
      store,
      entryOf: async (jobId) => {
        const row = queue
          .prepare(`SELECT locked_at, next_run_at FROM agenda_jobs WHERE json_extract(data, '$.jobId') = ?`)
          .get(jobId) as { locked_at: number | null; next_run_at: number | null } | undefined;
        return row && { lockedAt: row.locked_at, nextRunAt: row.next_run_at };
      },
      writable: () => {
        try {
          probe.exec('BEGIN IMMEDIATE');
          probe.exec('ROLLBACK');
          return true;
        } catch {
          return false;
        }
      },
      close: async () => {
        probe.close();
        queue.close();
        await store.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  });
});

describe('a lapsed queue lock, PostgreSQL + S3 (the workers share DATA_DIR too)', () => {
  let postgres: PostgresTestServer;
  let s3: S3TestServer;
  lapseScenario(async () => {
    [postgres, s3] = await Promise.all([startPostgres(), startS3Server()]);
    const url = await postgres.createDatabase();
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'transmute-lapse-'));
    const env = {
      ...baseEnv(dataDir),
      POSTGRES_URL: url,
      ...s3.env(await s3.newBucket()),
      TOKEN_SECRET: 'lock-lapse-test-secret-0123456789abcdef0123456789',
    };
    // The CLI migrates the database the test reads beside the processes.
    await adminWith(env, 'create-key', '--plan', 'free');
    const store = await PostgresStore.connect(url, { poolSize: 2 });
    const queue = new pg.Client({ connectionString: url });
    await queue.connect();
    return {
      env,
      store,
      entryOf: async (jobId) => {
        const { rows } = await queue.query(`SELECT locked_at, next_run_at FROM agenda_jobs WHERE data->>'jobId' = $1`, [
          jobId,
        ]);
        const row = rows[0] as { locked_at: Date | null; next_run_at: Date | null } | undefined;
        return row && { lockedAt: row.locked_at?.getTime() ?? null, nextRunAt: row.next_run_at?.getTime() ?? null };
      },
      // Mid-job a worker's writes are single statements, committed at once: stopped, it holds no lock.
      writable: () => true,
      close: async () => {
        await queue.end();
        await store.close();
        await Promise.all([postgres.stop(), s3.stop()]);
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  });
});
