/**
 * The PostgreSQL store (with S3 blobs, the scale-out mode: docs/SCALE-OUT.md), on `pg`. Every
 * rule that must hold across API instances and workers (one charge within the allowance, one
 * consume per token, one finish per job) is a single conditional statement on one row. One file
 * per aggregate (accounts.ts, jobs.ts, credits.ts, links.ts, webhooks.ts); rows are read with
 * SQLite's mappers (core/store/sql/rows.ts), the tables being the same.
 */
import pg from 'pg';
import type { AccountsStore, CreditsStore, JobsStore, LinksStore, Store, WebhooksStore } from '../types.js';
import { postgresAccounts } from './accounts.js';
import { postgresCredits } from './credits.js';
import { MarkedClient, transaction } from './db.js';
import { postgresJobs } from './jobs.js';
import { postgresLinks } from './links.js';
import { postgresPrincipalChanges } from './principal-changes.js';
import { MIGRATIONS } from './migrations.js';
import { postgresWebhooks } from './webhooks.js';

/** Any constant: the lock every Transmute process takes to migrate one database. */
const MIGRATION_LOCK = 0x7472616e; // 'tran'

/** int8 (counts, sequences) as numbers, JSON columns as text (the shared row mappers parse them). */
const TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === pg.types.builtins.INT8) return (value: string) => Number(value);
    if (oid === pg.types.builtins.JSON || oid === pg.types.builtins.JSONB) return (value: string) => value;
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

export interface PostgresStoreOptions {
  /** Connections of this process's pool (default 10). */
  poolSize?: number;
  /** Deadline of one statement, ms (default 30 s): a stuck query fails instead of hanging a request. */
  statementTimeoutMs?: number;
  /** Deadline for a connection (default 10 s). */
  connectTimeoutMs?: number;
}

/** Applies the missing steps of MIGRATIONS, each recorded, all under a transaction-scoped advisory lock. */
export async function migrate(pool: pg.Pool): Promise<number[]> {
  return transaction(pool, async (client) => {
    // Held until COMMIT: a second process starting now waits here, then finds nothing to do.
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations ' +
        '(version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
    );
    const done = new Set(
      (await client.query('SELECT version FROM schema_migrations')).rows.map((r: { version: number }) => r.version),
    );
    const applied: number[] = [];
    for (const [index, sql] of MIGRATIONS.entries()) {
      const version = index + 1;
      if (done.has(version)) continue;
      await client.query(sql);
      await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
      applied.push(version);
    }
    return applied;
  });
}

export class PostgresStore implements Store {
  /** Connects, migrates, and returns the store; the pool is the store's own (close() ends it). */
  static async connect(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const pool = new pg.Pool({
      connectionString: url,
      Client: MarkedClient,
      max: options.poolSize ?? 10,
      types: TYPES,
      statement_timeout: options.statementTimeoutMs ?? 30_000,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
      idleTimeoutMillis: 30_000,
    });
    // An idle connection the server drops (restart, failover) must not crash the process: the
    // pool discards it and the next query opens another.
    pool.on('error', () => undefined);
    try {
      await migrate(pool);
      return new PostgresStore(pool, url);
    } catch (err) {
      await pool.end();
      throw err;
    }
  }

  readonly accounts: AccountsStore;
  readonly jobs: JobsStore;
  readonly credits: CreditsStore;
  readonly links: LinksStore;
  readonly webhooks: WebhooksStore;
  readonly principalChanges: ReturnType<typeof postgresPrincipalChanges>;

  private constructor(
    readonly pool: pg.Pool,
    url: string,
  ) {
    // Its LISTEN connection opens at the first subscriber (an API process), not in workers.
    this.principalChanges = postgresPrincipalChanges(pool, url);
    this.accounts = postgresAccounts(pool);
    this.jobs = postgresJobs(pool);
    this.credits = postgresCredits(pool);
    this.links = postgresLinks(pool);
    this.webhooks = postgresWebhooks(pool);
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.principalChanges.close();
    if (!this.pool.ended) await this.pool.end();
  }
}
