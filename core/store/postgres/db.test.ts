/**
 * A transaction whose connection PostgreSQL ends (a restart, a failover, an administrator) fails, and the process
 * goes on: the 'error' event of a checked-out client has a listener, and the broken client leaves the pool.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startPostgres, type PostgresTestServer } from '../../../test/servers/postgres.js';
import { MarkedClient, transaction } from './db.js';

let server: PostgresTestServer;
let pool: pg.Pool;
beforeAll(async () => {
  server = await startPostgres();
  pool = new pg.Pool({ connectionString: server.url, Client: MarkedClient, max: 2 });
  pool.on('error', () => undefined);
}, 120_000);
afterAll(async () => {
  await pool?.end();
  await server?.stop();
});

it('fails the transaction whose connection was ended, without an unhandled error, and the pool serves on', async () => {
  const attempt = transaction(pool, async (client) => {
    await client.query('SELECT 1');
    // Ended from another connection while this client is checked out, between two statements.
    await pool.query('SELECT pg_terminate_backend($1)', [(client as unknown as { processID: number }).processID]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await client.query('SELECT 2');
  });
  await expect(attempt).rejects.toThrow(/terminat|not queryable/);
  expect((await pool.query('SELECT 3 AS n')).rows[0].n).toBe(3);
  expect(await transaction(pool, async (client) => (await client.query('SELECT 4 AS n')).rows[0].n)).toBe(4);
});

it('survives a connection ended while a library holds a client that listens for nothing', async () => {
  // Agenda's repository and notification channel check clients out of our pools without an 'error' listener.
  const client = await pool.connect();
  try {
    await pool.query('SELECT pg_terminate_backend($1)', [(client as unknown as { processID: number }).processID]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await expect(client.query('SELECT 1')).rejects.toThrow(/terminat|not queryable/);
  } finally {
    client.release();
  }
  expect((await pool.query('SELECT 5 AS n')).rows[0].n).toBe(5);
});
