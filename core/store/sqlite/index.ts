/**
 * The embedded store: one SQLite file (WAL, so several processes can share it), via
 * better-sqlite3. Calls are synchronous and short; they are wrapped in promises to meet the ports.
 * One file per aggregate (accounts.ts, jobs.ts, credits.ts, links.ts, webhooks.ts).
 */
import Database from 'better-sqlite3';
import type {
  AccountsStore,
  CreditsStore,
  JobsStore,
  LinksStore,
  PrincipalChanges,
  RateRepo,
  Store,
  WebhooksStore,
} from '../types.js';
import { sqliteAccounts } from './accounts.js';
import { sqliteCredits } from './credits.js';
import { sqliteJobs } from './jobs.js';
import { sqliteLinks } from './links.js';
import { unannouncedPrincipalChanges } from '../principal-changes.js';
import {
  ACCOUNTS_IN_THE_BROWSER,
  BATCH_EXPORTS,
  OPEN_EXPORTS_INDEX,
  HASHED_DOWNLOAD_TOKENS,
  JOBS_FINISHED_INDEX,
  PIPELINE_JOBS,
  SCHEMA,
  WEBHOOKS,
} from './schema.js';
import { sqliteWebhooks } from './webhooks.js';

export function openSqliteDatabase(path: string): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // Several processes (server + workers) share the file: writers wait for each other.
  db.pragma('busy_timeout = 10000');
  db.pragma('foreign_keys = ON');
  migrate(db);
  return db;
}

/**
 * Schema versions, applied in order and recorded in `PRAGMA user_version`. Append a step for
 * every change (ALTER TABLE ... ADD COLUMN, new index); never edit a step that has shipped.
 */
const MIGRATIONS: readonly string[] = [
  SCHEMA,
  HASHED_DOWNLOAD_TOKENS,
  WEBHOOKS,
  JOBS_FINISHED_INDEX,
  ACCOUNTS_IN_THE_BROWSER,
  PIPELINE_JOBS,
  BATCH_EXPORTS,
  OPEN_EXPORTS_INDEX,
];
/** Steps that blank what an older version stored in clear: a file they upgraded is rebuilt. */
const SCRUBBING_STEPS: readonly number[] = [1];

function migrate(db: Database.Database): void {
  let from = 0;
  // IMMEDIATE: two processes opening a fresh file must not both apply a step.
  db.transaction(() => {
    from = Number(db.pragma('user_version', { simple: true }));
    for (let step = from; step < MIGRATIONS.length; step++) db.exec(MIGRATIONS[step]!);
    if (from < MIGRATIONS.length) db.pragma(`user_version = ${MIGRATIONS.length}`);
  }).immediate();
  if (from > 0 && SCRUBBING_STEPS.some((step) => step >= from)) {
    // Blanked values survive in freed page space: VACUUM rewrites every page, and the
    // checkpoint moves them into the file and empties the WAL, which held old pages too.
    db.exec('VACUUM');
    db.pragma('wal_checkpoint(TRUNCATE)');
  }
}

export class SqliteStore implements Store {
  readonly accounts: AccountsStore;
  readonly jobs: JobsStore;
  readonly credits: CreditsStore;
  readonly links: LinksStore;
  readonly webhooks: WebhooksStore;

  /**
   * No notification between processes on one file: the admin CLI's changes (another process) reach the server's
   * cached principals within a second; the server's own changes at once (AccountService).
   */
  readonly principalChanges: PrincipalChanges = unannouncedPrincipalChanges(1_000);

  /**
   * `rates` replaces the file's rate windows: the embedded API server counts request rates in memory
   * (apps/shared/runtime.ts), being the one process that counts on its file.
   */
  constructor(
    readonly db: Database.Database,
    { rates }: { rates?: RateRepo } = {},
  ) {
    this.accounts = sqliteAccounts(db);
    this.jobs = sqliteJobs(db);
    const credits = sqliteCredits(db);
    this.credits = rates ? { ...credits, rates } : credits;
    this.links = sqliteLinks(db);
    this.webhooks = sqliteWebhooks(db);
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
