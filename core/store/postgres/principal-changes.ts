/**
 * PrincipalChanges over PostgreSQL LISTEN/NOTIFY: a change made by any API process (a key revoked, a plan changed)
 * reaches every other one at once, so remembered principals can be trusted for a minute. While the listening
 * connection is down (PostgreSQL restarting), every remembered principal is dropped and the rest live a few seconds
 * only, as on MongoDB, until it reconnects.
 */
import pg from 'pg';
import type { PrincipalChanges } from '../types.js';

const CHANNEL = 'transmute_principals';
const LISTENING_CACHE_MS = 60_000;
const UNHEARD_CACHE_MS = 3_000;
const RECONNECT_MS = { first: 250, max: 5_000 };

export function postgresPrincipalChanges(pool: pg.Pool, url: string): PrincipalChanges & { close(): Promise<void> } {
  const listeners = new Set<(accountId: string | null) => void>();
  let client: pg.Client | undefined;
  let listening = false;
  let closed = false;
  let retryMs = RECONNECT_MS.first;
  let retry: NodeJS.Timeout | undefined;
  const tell = (accountId: string | null) => {
    for (const listener of listeners) listener(accountId);
  };

  const connect = async () => {
    if (closed || client) return;
    const connection = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
    client = connection;
    const lost = () => {
      if (client !== connection) return;
      client = undefined;
      listening = false;
      // Changes may go unheard from now on: nothing remembered is trusted.
      tell(null);
      void connection.end().catch(() => undefined);
      if (closed) return;
      retry = setTimeout(() => void connect(), retryMs);
      retry.unref();
      retryMs = Math.min(retryMs * 2, RECONNECT_MS.max);
    };
    connection.on('error', lost);
    connection.on('end', lost);
    connection.on('notification', (message) => {
      if (message.channel === CHANNEL) tell(message.payload ?? null);
    });
    try {
      await connection.connect();
      await connection.query(`LISTEN ${CHANNEL}`);
      if (client !== connection) return;
      listening = true;
      retryMs = RECONNECT_MS.first;
      // What changed while the connection was being made went unheard.
      tell(null);
    } catch {
      lost();
    }
  };

  return {
    cacheForMs: () => (listening ? LISTENING_CACHE_MS : UNHEARD_CACHE_MS),
    async publish(accountId) {
      await pool.query('SELECT pg_notify($1, $2)', [CHANNEL, accountId]);
    },
    subscribe(listener) {
      listeners.add(listener);
      void connect();
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      const connection = client;
      client = undefined;
      listening = false;
      await connection?.end().catch(() => undefined);
    },
  };
}
