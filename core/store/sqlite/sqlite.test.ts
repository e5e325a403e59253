import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { OPEN_EXPORT } from '../sql/rows.js';
import { storeContractSuite } from '../testing/suite.js';
import { makeAccount, makeJob } from '../testing/suite/harness.js';
import { SqliteStore, openSqliteDatabase } from './index.js';
import { SCHEMA } from './schema.js';

storeContractSuite('SqliteStore', async () => {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'transmute-store-'));
  const file = path.join(directory, 'transmute.db');
  return {
    openStore: async () => new SqliteStore(openSqliteDatabase(file)),
    destroy: () => rm(directory, { recursive: true, force: true }),
  };
});

describe('SqliteStore migration to hashed download tokens (schema version 2)', () => {
  it('drops the plain tokens of an older database, leaving no trace of them in the file', async () => {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'transmute-migrate-'));
    const file = path.join(directory, 'transmute.db');
    const plain = randomBytes(32).toString('base64url');
    try {
      // A database as version 1 left it: WAL, one done job carrying its plain token.
      const old = new Database(file);
      old.pragma('journal_mode = WAL');
      old.exec(SCHEMA);
      old.pragma('user_version = 1');
      old.prepare(`INSERT INTO accounts (id, plan, created_at) VALUES ('acc_1', 'pro', 0)`).run();
      const insert = old.prepare(
        `INSERT INTO jobs (id, account_id, kind, plugin_id, input_format, output_format, options, ` +
          `inputs, status, output, download_token,
          credit_cost, credit_period, created_at, completed_at, inputs_expire_at)
        VALUES (?, 'acc_1', 'convert', 'p', 'png', 'webp', '{}', '[]', 'done', '{}', ?, 1, '2030-01', 0, 0, 0)`,
      );
      // Enough rows for several pages: blanking in place leaves bytes in freed space.
      for (let i = 0; i < 200; i++) insert.run(`job_${i}`, i === 1 ? plain : randomBytes(32).toString('base64url'));
      old.close();
      expect((await readFile(file)).includes(plain)).toBe(true);

      const store = new SqliteStore(openSqliteDatabase(file));
      const columns = (store.db.prepare('PRAGMA table_info(jobs)').all() as Array<{ name: string }>).map((c) => c.name);
      expect(columns).not.toContain('download_token');
      expect(columns).toContain('download_token_hash');
      expect(await store.jobs.jobs.get('job_1')).toMatchObject({ status: 'done', downloadTokenHash: null });
      for (const name of await readdir(directory)) {
        expect((await readFile(path.join(directory, name))).includes(plain), `token found in ${name}`).toBe(false);
      }
      store.db.close();
      // Opening again applies nothing.
      const again = openSqliteDatabase(file);
      expect(again.pragma('user_version', { simple: true })).toBe(8);
      again.close();
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describe('SqliteStore indexes', () => {
  it('reads the open exports (the export lease sweep) through their partial indexes', async () => {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'transmute-indexes-'));
    const db = openSqliteDatabase(path.join(directory, 'transmute.db'));
    try {
      for (const table of ['jobs', 'batches']) {
        const plan = db.prepare(`EXPLAIN QUERY PLAN SELECT id, export_state FROM ${table} WHERE ${OPEN_EXPORT}`).all();
        expect(JSON.stringify(plan)).toContain(`USING INDEX ${table}_open_exports`);
      }
    } finally {
      db.close();
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describe('SqliteStore pipeline steps as stored', () => {
  it("keeps a step's target under the stored name `outputFormat`, both ways", async () => {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'transmute-pipeline-'));
    const store = new SqliteStore(openSqliteDatabase(path.join(directory, 'transmute.db')));
    try {
      const account = makeAccount();
      await store.accounts.accounts.create(account);
      const step = {
        to: 'pdf',
        pluginId: 'office-to-pdf',
        kind: 'convert' as const,
        options: {},
        inputFormat: 'docx' as const,
        target: 'pdf' as const,
        creditCost: 10,
        status: 'waiting' as const,
        progress: 0,
      };
      const job = await store.jobs.jobs.create(makeJob(account.id, { pipeline: { steps: [step] } }));
      const stored = () => store.db.prepare('SELECT pipeline FROM jobs WHERE id = ?').pluck().get(job.id) as string;
      const { target, ...rest } = step;
      // What a process of the version before reads: its steps' `outputFormat`.
      expect(JSON.parse(stored())).toEqual({ steps: [{ ...rest, outputFormat: 'pdf' }] });
      // What such a process writes (setPipeline) reads back as the target.
      store.db
        .prepare('UPDATE jobs SET pipeline = ? WHERE id = ?')
        .run(JSON.stringify({ steps: [{ ...rest, outputFormat: 'pdf', status: 'active', progress: 40 }] }), job.id);
      expect((await store.jobs.jobs.get(job.id))?.pipeline).toEqual({
        steps: [{ ...step, target, status: 'active', progress: 40 }],
      });
    } finally {
      await store.close();
      await rm(directory, { recursive: true, force: true });
    }
  });
});
