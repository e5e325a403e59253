/**
 * Each API process remembers the principal of a key (AccountService's principal cache) and the embedded server counts
 * rates in memory. Embedded: a revoked key or new limits apply from the next request, and a second API server on the
 * DATA_DIR refuses to start. In the PostgreSQL scale-out mode, a key revoked through one API process is refused by the
 * other promptly: the change travels by LISTEN/NOTIFY, well before the minute a remembered principal may otherwise
 * live. Real PostgreSQL and S3 servers.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStore } from '../core/store/postgres/index.js';
import {
  adminWith,
  getJson,
  sleep,
  spawnServer,
  startServer,
  stopProcess,
  waitUntil,
  type ChildServer,
  type TestServer,
} from './helpers.js';
import { startPostgres, type PostgresTestServer } from './servers/postgres.js';
import { startS3Server, type S3TestServer } from './servers/s3.js';

describe('embedded: remembered principals and in-memory rate counts', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  }, 120_000);
  afterAll(() => server?.close());

  const graphql = (key: string, query: string, variables: object) =>
    fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    }).then((res) => res.json());

  it('refuses a revoked key from the very next request', async () => {
    const { key, accountId } = await server.createAccount('pro');
    const { key: second, record } = await server.server.runtime.services.accounts.createKey(accountId);
    for (let i = 0; i < 3; i++) expect((await getJson(`${server.url}/api/v1/credits`, second)).status).toBe(200);
    expect(await graphql(key, 'mutation ($id: ID!) { revokeApiKey(id: $id) }', { id: record.id })).toEqual({
      data: { revokeApiKey: true },
    });
    const refused = await getJson(`${server.url}/api/v1/credits`, second);
    expect(refused.status).toBe(401);
    expect((await getJson(`${server.url}/api/v1/credits`, key)).status).toBe(200);
  });

  it('applies new limits from the next request, and counts every request of the minute', async () => {
    const { key, accountId } = await server.createAccount('enterprise');
    const first = await getJson(`${server.url}/api/v1/credits`, key);
    expect(first.headers.get('ratelimit-limit')).not.toBe('5');
    await server.server.runtime.services.accounts.setLimits(accountId, { requestsPerMinute: 5 });
    const after = await getJson(`${server.url}/api/v1/credits`, key);
    expect(after.headers.get('ratelimit-limit')).toBe('5');
    // The window counted the request before the change too (unless the minute turned in between).
    expect(['3', '4']).toContain(after.headers.get('ratelimit-remaining'));
  });

  it('refuses a second API server on the same DATA_DIR', async () => {
    await expect(startServer({ dataDir: server.dataDir })).rejects.toThrow(/Another Transmute server is serving/);
  });
});

describe('principal cache across two API processes on PostgreSQL', () => {
  let postgres: PostgresTestServer;
  let s3: S3TestServer;
  let env: Record<string, string>;
  let apis: ChildServer[] = [];
  const dataDirs: string[] = [];
  const newDataDir = async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-principals-'));
    dataDirs.push(dir);
    return dir;
  };
  const admin = async (...args: string[]) => {
    const answer = await adminWith({ ...env, DATA_DIR: await newDataDir() }, ...args);
    expect(answer.code).toBe(0);
    return answer.result as { accountId: string; key: string; keyId?: string };
  };
  const status = async (api: ChildServer, key: string) => (await getJson(`${api.url}/api/v1/credits`, key)).status;

  beforeAll(async () => {
    [postgres, s3] = await Promise.all([startPostgres(), startS3Server()]);
    env = {
      POSTGRES_URL: await postgres.createDatabase(),
      ...s3.env(await s3.newBucket()),
      MONGODB_URL: '',
      TOKEN_SECRET: 'principal-cache-test-secret-0123456789abcdef0123',
    };
    await admin('create-key', '--plan', 'pro'); // migrates the database before both APIs start
    apis = await Promise.all(
      [0, 1].map(async () => spawnServer({ ...env, DATA_DIR: await newDataDir(), WORKERS: '0' })),
    );
  }, 180_000);

  afterAll(async () => {
    await Promise.all(apis.map((api) => stopProcess(api.process)));
    await Promise.all([postgres?.stop(), s3?.stop()]);
    await Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true })));
  }, 120_000);

  it('a key revoked on API A is refused by API B promptly, where B had it remembered', {
    timeout: 120_000,
  }, async () => {
    const [apiA, apiB] = apis as [ChildServer, ChildServer];
    const owner = await admin('create-key', '--plan', 'pro');
    const revoked = await admin('add-key', '--account', owner.accountId);
    // Another account's key, revoked in the database behind the APIs' backs (no notification): B keeps serving it
    // from memory, which shows that B's refusal of the first key is the notification's doing.
    const control = await admin('create-key', '--plan', 'pro');
    for (let i = 0; i < 3; i++) {
      for (const api of apis) {
        expect(await status(api, revoked.key)).toBe(200);
        expect(await status(api, control.key)).toBe(200);
      }
      await sleep(300); // the LISTEN connection is up (it opens at the first request)
    }
    const store = await PostgresStore.connect(env.POSTGRES_URL!, { poolSize: 1 });
    try {
      const controlHash = createHash('sha256').update(control.key).digest('hex');
      expect(await store.accounts.keys.revokeByHash(controlHash, new Date())).toBe(true);
    } finally {
      await store.close();
    }
    expect(await status(apiB, control.key)).toBe(200);

    const revoke = await fetch(`${apiA.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'mutation ($id: ID!) { revokeApiKey(id: $id) }',
        variables: { id: revoked.keyId },
      }),
    });
    expect(await revoke.json()).toEqual({ data: { revokeApiKey: true } });
    expect(await status(apiA, revoked.key)).toBe(401);
    await waitUntil(async () => (await status(apiB, revoked.key)) === 401, 10_000, 'API B to refuse the revoked key');
    expect(await status(apiB, owner.key)).toBe(200);
  });
});
