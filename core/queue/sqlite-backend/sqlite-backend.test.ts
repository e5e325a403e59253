import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { Agenda, type JobRepository } from 'agenda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockCheckedSavesSuite } from '../testing/lock-suite.js';
import { backendConformanceSuite, type BackendStorage } from '../testing/suite.js';
import { SqliteBackend } from './index.js';

const workerEntry = fileURLToPath(new URL('./testing/worker.ts', import.meta.url));

function temporaryDirectory(): string {
  return mkdtempSync(path.join(tmpdir(), 'transmute-sqlite-backend-'));
}

const sqliteStorage = async (): Promise<BackendStorage> => {
  const directory = temporaryDirectory();
  const databasePath = path.join(directory, 'queue.db');
  return {
    openBackend: () => new SqliteBackend({ path: databasePath }),
    spawnWorker: (options) =>
      spawn(process.execPath, ['--import', 'tsx', workerEntry, databasePath, JSON.stringify(options)], {
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    destroy: async () => rmSync(directory, { recursive: true, force: true }),
  };
};

/** The next UPDATE commits, then throws, as if its reply were lost (the lock suite's fault). */
function loseNextReply(repository: JobRepository): void {
  const target = repository as unknown as { sql(source: string): Database.Statement };
  const prepare = target.sql;
  target.sql = function (this: unknown, source: string) {
    const statement = prepare.call(this, source);
    if (!source.trimStart().startsWith('UPDATE')) return statement;
    Reflect.deleteProperty(target, 'sql');
    const run = (...params: unknown[]) => {
      statement.run(...params);
      throw new Error('the reply was lost');
    };
    return { run } as unknown as Database.Statement;
  };
}

backendConformanceSuite('SqliteBackend', sqliteStorage);
lockCheckedSavesSuite('SqliteBackend', async () => ({ ...(await sqliteStorage()), loseNextReply }));

describe('SqliteBackend connection handling', () => {
  let directory: string;
  let databasePath: string;

  beforeEach(() => {
    directory = temporaryDirectory();
    databasePath = path.join(directory, 'app.db');
  });

  afterEach(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  it('opens its own file in WAL mode with a busy timeout, and closes it on disconnect', async () => {
    const backend = new SqliteBackend({ path: databasePath, busyTimeoutMs: 1234 });
    expect(backend.ownsConnection).toBe(true);
    await backend.connect();
    const inspector = new Database(databasePath);
    expect(inspector.pragma('journal_mode', { simple: true })).toBe('wal');
    inspector.close();
    await backend.disconnect();
    await expect(backend.repository.getQueueSize()).rejects.toThrow(/not connected/);
    await backend.connect();
    expect(await backend.repository.getQueueSize()).toBe(0);
    await backend.disconnect();
  });

  it('uses a shared handle without closing it, in the configured table', async () => {
    const appDb = new Database(databasePath);
    try {
      const backend = new SqliteBackend({ database: appDb, tableName: 'queue_jobs' });
      expect(backend.ownsConnection).toBe(false);
      const agenda = new Agenda({ backend, processEvery: 50 });
      let ran = false;
      agenda.define('shared-handle', async () => {
        ran = true;
      });
      await agenda.start();
      await agenda.now('shared-handle');
      await new Promise<void>((resolve) => agenda.once('complete:shared-handle', () => resolve()));
      await agenda.stop();
      expect(ran).toBe(true);
      expect(appDb.open).toBe(true);
      expect(appDb.prepare('SELECT COUNT(*) FROM queue_jobs').pluck().get()).toBe(1);
      // Waiting on another writer is required for correctness, so a handle without a timeout gets one.
      expect(appDb.pragma('busy_timeout', { simple: true })).toBe(5000);
    } finally {
      appDb.close();
    }
  });

  it('keeps the busy timeout a shared handle already has', async () => {
    const appDb = new Database(databasePath, { timeout: 250 });
    try {
      await new SqliteBackend({ database: appDb }).connect();
      expect(appDb.pragma('busy_timeout', { simple: true })).toBe(250);
    } finally {
      appDb.close();
    }
  });

  it('rejects a table name that is not a plain identifier', () => {
    expect(() => new SqliteBackend({ path: databasePath, tableName: 'jobs; DROP TABLE x' })).toThrow(
      /Invalid table name/,
    );
  });
});
