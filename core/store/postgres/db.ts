/** Query helpers shared by the PostgreSQL repositories. */
import pg from 'pg';
import { markBackendError } from '../backend-errors.js';
import type { Row } from '../sql/rows.js';

/** A pool, or one client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'>;

export async function all(db: Queryable, text: string, values: unknown[] = []): Promise<Row[]> {
  return (await db.query(text, values)).rows as Row[];
}

export async function first(db: Queryable, text: string, values: unknown[] = []): Promise<Row | undefined> {
  return (await db.query(text, values)).rows[0] as Row | undefined;
}

/** How many rows the statement changed. */
export async function changed(db: Queryable, text: string, values: unknown[] = []): Promise<number> {
  return (await db.query(text, values)).rowCount ?? 0;
}

/** Runs `work` in one transaction on one client of the pool. */
export async function transaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A connection that dies while its client is checked out (PostgreSQL restarting) is an 'error' event on the
  // client, which the pool listens for only while the client is idle: unheard, it would crash the process. The
  // query in flight fails with it anyway; the broken client is then destroyed, not pooled again.
  let broken: Error | undefined;
  const onError = (err: Error) => {
    broken = err;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    if (!broken) await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.removeListener('error', onError);
    client.release(broken);
  }
}

/** `SET a = $1, b = $2` for an update patch, its values after the first `offset` placeholders. */
export function setClause(entries: Array<[string, unknown]>, columns: Record<string, string>, offset = 0): string {
  return entries.map(([k], i) => `${columns[k]} = $${offset + i + 1}`).join(', ');
}

/**
 * The client of the service's pools: its connection failures (refused, unreachable, timed out) are
 * marked as PostgreSQL's (backend-errors.ts), so a request they fail answers 503, not 500. pg-pool
 * connects its clients with a callback; `connect()` without one is marked too. A connection lost while
 * the client is checked out never crashes the process.
 */
export class MarkedClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    // A connection PostgreSQL ends (a restart: "terminating connection due to administrator command") is an
    // 'error' event, which the pool hears only while the client is idle. A client checked out by code that listens
    // for nothing (Agenda's repository and LISTEN channel) would crash the process; its next query fails instead,
    // and the pool destroys it on release, as it is no longer queryable.
    this.on('error', () => undefined);
  }

  override connect(): Promise<pg.Client>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.Client> | undefined {
    if (!callback) {
      return super.connect().catch((err: unknown) => {
        throw markBackendError(err, 'PostgreSQL');
      });
    }
    const done = callback as (err: Error | null, client?: pg.Client) => void;
    super.connect(((err: Error | null, client?: pg.Client) =>
      done(err && markBackendError(err, 'PostgreSQL'), client)) as ConnectCallback);
    return undefined;
  }
}

type ConnectCallback = ((err: Error) => void) | ((err: null, client: pg.Client) => void);
