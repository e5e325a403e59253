import { fork } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresTestServer } from '../../../test/servers/postgres.js';
import { OPEN_EXPORT } from '../sql/rows.js';
import { storeContractSuite } from '../testing/suite.js';
import { MIGRATIONS } from './migrations.js';
import { PostgresStore } from './index.js';

let server: PostgresTestServer;
beforeAll(async () => {
  server = await startPostgres();
}, 120_000);
afterAll(() => server?.stop(), 60_000);

storeContractSuite('PostgresStore', async () => {
  const url = await server.createSchema();
  return { openStore: () => PostgresStore.connect(url, { poolSize: 4 }), destroy: () => server.dropSchema(url) };
});

describe('PostgresStore migrations', () => {
  it('applies every step once, even when several processes start together', async () => {
    const url = await server.createDatabase();
    try {
      const stores = await Promise.all([...Array(4)].map(() => PostgresStore.connect(url, { poolSize: 1 })));
      await Promise.all(stores.map((s) => s.close()));
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query('SELECT version FROM schema_migrations ORDER BY version');
        expect(rows.map((r: { version: number }) => r.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
      } finally {
        await client.end();
      }
    } finally {
      await server.dropDatabase(url);
    }
  });
});

describe('PostgresStore indexes', () => {
  it('can read the open exports (the export lease sweep) through their partial indexes', async () => {
    const url = await server.createSchema();
    try {
      await (await PostgresStore.connect(url, { poolSize: 1 })).close();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        // On empty tables a sequential scan is cheapest: rule it out to see whether the index applies.
        await client.query('SET enable_seqscan = off');
        for (const table of ['jobs', 'batches']) {
          const { rows } = await client.query(`EXPLAIN SELECT id, export_state FROM ${table} WHERE ${OPEN_EXPORT}`);
          expect(JSON.stringify(rows)).toContain(`${table}_open_exports`);
        }
      } finally {
        await client.end();
      }
    } finally {
      await server.dropSchema(url);
    }
  });
});

describe('PostgresStore credits across processes', () => {
  it('counts 50 parallel charges from two processes exactly, never past the allowance', async () => {
    const url = await server.createDatabase();
    try {
      const store = await PostgresStore.connect(url);
      try {
        await store.accounts.accounts.create({
          id: 'acc_two_processes',
          plan: 'pro',
          email: null,
          emailVerified: false,
          overageEnabled: false,
          creditsIncluded: null,
          requestsPerMinute: null,
          createdAt: new Date(),
        });
        // Two processes, 25 charges of 3 each at once, against an allowance of 100: exactly 33 fit.
        const child = path.join(import.meta.dirname, 'testing/charge.ts');
        const runs = await Promise.all(
          [0, 1].map(
            () =>
              new Promise<boolean[]>((resolve, reject) => {
                const proc = fork(child, [url, 'acc_two_processes', '25'], {
                  execArgv: ['--import', 'tsx'],
                  stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
                });
                proc.once('message', (message) => resolve(message as boolean[]));
                proc.once('exit', (code) =>
                  code ? reject(new Error(`charging process exited with ${code}`)) : undefined,
                );
              }),
          ),
        );
        const results = runs.flat();
        expect(results).toHaveLength(50);
        expect(results.filter(Boolean)).toHaveLength(33);
        expect((await store.credits.usage.get('acc_two_processes', '2030-01')).used).toBe(99);
      } finally {
        await store.close();
      }
    } finally {
      await server.dropDatabase(url);
    }
  }, 60_000);
});
