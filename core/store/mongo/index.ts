/**
 * The distributed store: MongoDB through the official driver. Every rule that must hold across
 * API instances and workers (one charge within the allowance, one consume per token, one
 * finish per job) is a single conditional write on one document; a failed job and its refund are one transaction on a
 * replica set (jobs.ts: fail), the refund the write right after on a single node. One file per aggregate
 * (accounts.ts, jobs.ts, credits.ts, links.ts, webhooks.ts).
 */
import { MongoClient, type Db, type Document, type MongoClientOptions } from 'mongodb';
import type {
  AccountsStore,
  CreditsStore,
  JobsStore,
  LinksStore,
  PrincipalChanges,
  Store,
  WebhooksStore,
} from '../types.js';
import { mongoAccounts } from './accounts.js';
import { mongoCredits } from './credits.js';
import { mongoJobs } from './jobs.js';
import { mongoLinks } from './links.js';
import { unannouncedPrincipalChanges } from '../principal-changes.js';
import { COLLECTIONS, INDEXES } from './schema.js';
import { mongoWebhooks } from './webhooks.js';

/** The index over plain download tokens that jobs carried before they were hashed (see migrate). */
export const LEGACY_PLAIN_TOKEN_INDEX = 'download_tokens_due';

/**
 * Whether a deployment is a replica set (even of one node) or a sharded cluster (mongos), by its `hello` answer: what
 * multi-document transactions and change streams need; a standalone server has neither.
 */
export function isReplicated(hello: Document): boolean {
  return typeof hello.setName === 'string' || hello.msg === 'isdbgrid';
}

export class MongoStore implements Store {
  readonly accounts: AccountsStore;
  readonly jobs: JobsStore;
  readonly credits: CreditsStore;
  readonly links: LinksStore;
  readonly webhooks: WebhooksStore;

  /**
   * MongoDB offers no cheap notification here (change streams need a replica set): a change made by another API
   * instance reaches this one's cached principals within a few seconds (docs/SCALE-OUT.md).
   */
  readonly principalChanges: PrincipalChanges = unannouncedPrincipalChanges(5_000);

  /**
   * Connects and creates the indexes. The database is the one named in the URL
   * (mongodb://host/transmute) unless `dbName` is given. The store owns the client: close()
   * closes it, so the blob store and queue built on `db` must be stopped first.
   */
  static async connect(
    url: string,
    options: { dbName?: string; client?: MongoClientOptions } = {},
  ): Promise<MongoStore> {
    const client = await MongoClient.connect(url, options.client);
    try {
      const db = client.db(options.dbName);
      const store = new MongoStore(client, db, isReplicated(await db.command({ hello: 1 })));
      await store.createIndexes();
      await store.migrate();
      return store;
    } catch (err) {
      await client.close();
      throw err;
    }
  }

  private constructor(
    readonly client: MongoClient,
    readonly db: Db,
    /** A replica set or sharded cluster: a job's failure and its refund are one transaction (jobs.fail). */
    readonly transactions: boolean,
  ) {
    this.accounts = mongoAccounts(db);
    this.jobs = mongoJobs(db, transactions ? client : null);
    this.credits = mongoCredits(db);
    this.links = mongoLinks(db);
    this.webhooks = mongoWebhooks(db);
  }

  /** Idempotent: creating an index that exists with the same options does nothing. */
  private async createIndexes(): Promise<void> {
    for (const [name, indexes] of Object.entries(INDEXES) as Array<[keyof typeof COLLECTIONS, typeof INDEXES.jobs]>) {
      if (indexes.length) await this.db.collection(COLLECTIONS[name]).createIndexes(indexes);
    }
  }

  /**
   * Upgrades what earlier versions wrote; idempotent, run at every start. Jobs once kept their
   * plain download token (indexed by `download_tokens_due`): the index marks a database not yet
   * upgraded, so the tokens are removed first and the index last. Links minted before keep
   * opening until they expire (their hashes are in downloadTokens); polls no longer show them.
   */
  private async migrate(): Promise<void> {
    const jobs = this.db.collection(COLLECTIONS.jobs);
    if (!(await jobs.indexes()).some((index) => index.name === LEGACY_PLAIN_TOKEN_INDEX)) return;
    await jobs.updateMany({ downloadToken: { $exists: true } }, { $unset: { downloadToken: '' } });
    await jobs.dropIndex(LEGACY_PLAIN_TOKEN_INDEX);
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
