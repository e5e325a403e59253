/**
 * AccountService's per-process principal cache on a real SQLite store: what this process changes is seen by the
 * very next request; what another process changes on the same file (the admin CLI) within the store's bound.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore, openSqliteDatabase } from '../store/sqlite/index.js';
import { AccountService } from './accounts.js';
import { systemClock } from './clock.js';
import { ServiceError } from './errors.js';

describe('AccountService principal cache', () => {
  let directory: string;
  let file: string;
  let store: SqliteStore;
  let accounts: AccountService;
  beforeEach(async () => {
    directory = await mkdtemp(path.join(os.tmpdir(), 'transmute-principals-'));
    file = path.join(directory, 'transmute.db');
    store = new SqliteStore(openSqliteDatabase(file));
    accounts = new AccountService(store, systemClock);
  });
  afterEach(async () => {
    await store.close();
    await rm(directory, { recursive: true, force: true });
  });

  const unauthenticated = (key: string) =>
    accounts.authenticateKey(key).then(
      () => false,
      (err: unknown) => err instanceof ServiceError && err.code === 'UNAUTHENTICATED',
    );

  it('refuses a key on the first request after it is revoked, by key or by id', async () => {
    const account = await accounts.createAccount({ plan: 'pro' });
    const first = await accounts.createKey(account.id);
    const second = await accounts.createKey(account.id);
    expect((await accounts.authenticateKey(first.key)).keyId).toBe(first.record.id);
    expect((await accounts.authenticateKey(second.key)).keyId).toBe(second.record.id);
    expect(await accounts.revokeKey(first.key)).toBe(true);
    expect(await unauthenticated(first.key)).toBe(true);
    await accounts.revokeKeyById(account.id, second.record.id);
    expect(await unauthenticated(second.key)).toBe(true);
  });

  it('gives the next request the new plan and limits', async () => {
    const account = await accounts.createAccount({ plan: 'pro' });
    const { key } = await accounts.createKey(account.id);
    expect((await accounts.authenticateKey(key)).account.plan).toBe('pro');
    await accounts.setPlan(account.id, 'enterprise');
    expect((await accounts.authenticateKey(key)).account.plan).toBe('enterprise');
    await accounts.setLimits(account.id, { requestsPerMinute: 7 });
    const principal = await accounts.authenticateKey(key);
    expect(accounts.limitsOf(principal.account).requestsPerMinute).toBe(7);
    await accounts.setPlan(account.id, 'business');
    await accounts.setOverage(account.id, true);
    expect((await accounts.authenticateKey(key)).account.overageEnabled).toBe(true);
  });

  it('remembers a principal: a poll reads no key or account row', async () => {
    const account = await accounts.createAccount({ plan: 'pro' });
    const { key } = await accounts.createKey(account.id);
    await accounts.authenticateKey(key);
    let reads = 0;
    const { keys, accounts: accountRows } = store.accounts;
    const findActiveByHash = keys.findActiveByHash.bind(keys);
    const get = accountRows.get.bind(accountRows);
    keys.findActiveByHash = (hash) => {
      reads++;
      return findActiveByHash(hash);
    };
    accountRows.get = (id) => {
      reads++;
      return get(id);
    };
    for (let i = 0; i < 5; i++) await accounts.authenticateKey(key);
    expect(reads).toBe(0);
  });

  it("sees another process's revocation on the same file within the store's bound", async () => {
    const account = await accounts.createAccount({ plan: 'pro' });
    const { key } = await accounts.createKey(account.id);
    await accounts.authenticateKey(key);
    const cli = new SqliteStore(openSqliteDatabase(file));
    try {
      expect(await new AccountService(cli, systemClock).revokeKey(key)).toBe(true);
    } finally {
      await cli.close();
    }
    const bound = store.principalChanges.cacheForMs();
    const started = performance.now();
    while (!(await unauthenticated(key))) {
      expect(performance.now() - started).toBeLessThan(bound + 2_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
});
