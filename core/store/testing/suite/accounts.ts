/**
 * The store contract for accounts, keys, logins, sessions and e-mail links: every adapter's test file runs it (see
 * ../suite.ts).
 */
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { EmailTokenRecord, LoginRecord, SessionRecord, Store } from '../../types.js';
import { type CreateStorage, MINUTE, HOUR, at, makeKey, useStoreHarness } from './harness.js';

export function accountsContract(name: string, createStorage: CreateStorage): void {
  describe(`${name}: accounts, keys, logins, sessions and e-mail links`, () => {
    const harness = useStoreHarness(createStorage);
    let store: Store;
    beforeEach(() => {
      store = harness.store;
    });
    const { newAccount, openAnother } = harness;

    describe('accounts', () => {
      it('round-trips every field and answers null for an unknown id', async () => {
        const account = await newAccount({
          plan: 'enterprise',
          email: 'ops@example.com',
          emailVerified: true,
          overageEnabled: true,
          creditsIncluded: 50_000,
          requestsPerMinute: 900,
        });
        expect(await store.accounts.accounts.get(account.id)).toEqual(account);
        expect(await store.accounts.accounts.get('acc_missing')).toBeNull();
      });

      it('updates only the fields given, ignoring undefined ones', async () => {
        const account = await newAccount();
        await store.accounts.accounts.update(account.id, { plan: 'business', overageEnabled: true, email: undefined });
        await store.accounts.accounts.update(account.id, {});
        expect(await store.accounts.accounts.get(account.id)).toEqual({
          ...account,
          plan: 'business',
          overageEnabled: true,
        });
        await store.accounts.accounts.update(account.id, {
          creditsIncluded: 10,
          requestsPerMinute: 5,
          emailVerified: true,
          email: 'a@b.c',
        });
        await store.accounts.accounts.update(account.id, { creditsIncluded: null });
        expect(await store.accounts.accounts.get(account.id)).toMatchObject({
          creditsIncluded: null,
          requestsPerMinute: 5,
          emailVerified: true,
          email: 'a@b.c',
        });
      });
    });

    describe('keys', () => {
      it('finds an active key by hash, and lists an account’s keys oldest first', async () => {
        const account = await newAccount();
        const other = await newAccount();
        const second = makeKey(account.id, { createdAt: at(2000) });
        const first = makeKey(account.id, { createdAt: at(1000) });
        await store.accounts.keys.create(second);
        await store.accounts.keys.create(first);
        await store.accounts.keys.create(makeKey(other.id));
        expect(await store.accounts.keys.findActiveByHash(first.hash)).toEqual(first);
        expect(await store.accounts.keys.findActiveByHash('0'.repeat(32))).toBeNull();
        expect(await store.accounts.keys.listByAccount(account.id)).toEqual([first, second]);
        expect(await store.accounts.keys.listByAccount('acc_missing')).toEqual([]);
      });

      it('rejects a second key with the same hash', async () => {
        const account = await newAccount();
        const key = makeKey(account.id);
        await store.accounts.keys.create(key);
        await expect(store.accounts.keys.create(makeKey(account.id, { hash: key.hash }))).rejects.toThrow();
      });

      it('revokes once: the key is no longer found but stays listed with its revocation time', async () => {
        const account = await newAccount();
        const key = makeKey(account.id);
        await store.accounts.keys.create(key);
        const revokedAt = at(5000);
        expect(await store.accounts.keys.revokeByHash(key.hash, revokedAt)).toBe(true);
        expect(await store.accounts.keys.revokeByHash(key.hash, at(9000))).toBe(false);
        expect(await store.accounts.keys.revokeByHash('f'.repeat(32), at())).toBe(false);
        expect(await store.accounts.keys.findActiveByHash(key.hash)).toBeNull();
        expect(await store.accounts.keys.listByAccount(account.id)).toEqual([{ ...key, revokedAt }]);
      });

      it(
        'keeps a key’s name, revokes by id only for its own account, and records use at most once per ' + 'period',
        async () => {
          const account = await newAccount();
          const other = await newAccount();
          const key = makeKey(account.id, { name: 'CI runner' });
          await store.accounts.keys.create(key);
          expect(await store.accounts.keys.findActiveByHash(key.hash)).toEqual(key);

          await store.accounts.keys.markUsed(key.id, at(1000), at(1000 - MINUTE));
          expect((await store.accounts.keys.findActiveByHash(key.hash))!.lastUsedAt).toEqual(at(1000));
          // Used again within the minute: not written.
          await store.accounts.keys.markUsed(key.id, at(2000), at(2000 - MINUTE));
          expect((await store.accounts.keys.findActiveByHash(key.hash))!.lastUsedAt).toEqual(at(1000));
          await store.accounts.keys.markUsed(key.id, at(2 * MINUTE), at(MINUTE));
          expect((await store.accounts.keys.findActiveByHash(key.hash))!.lastUsedAt).toEqual(at(2 * MINUTE));

          expect(await store.accounts.keys.revokeById(other.id, key.id, at(3000))).toBe(false);
          expect(await store.accounts.keys.findActiveByHash(key.hash)).not.toBeNull();
          expect(await store.accounts.keys.revokeById(account.id, key.id, at(3000))).toBe(true);
          expect(await store.accounts.keys.revokeById(account.id, key.id, at(4000))).toBe(false);
          expect(await store.accounts.keys.findActiveByHash(key.hash)).toBeNull();
          expect((await store.accounts.keys.listByAccount(account.id))[0]!.revokedAt).toEqual(at(3000));
        },
      );
    });

    describe('logins', () => {
      const makeLogin = (accountId: string, overrides: Partial<LoginRecord> = {}): LoginRecord => ({
        email: `${randomUUID()}@example.com`,
        accountId,
        passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
        createdAt: at(),
        updatedAt: at(),
        ...overrides,
      });

      it('claims an e-mail address once, and finds the login by address and by account', async () => {
        const account = await newAccount();
        const other = await newAccount();
        const login = makeLogin(account.id);
        expect(await store.accounts.logins.create(login)).toBe(true);
        expect(await store.accounts.logins.create(makeLogin(other.id, { email: login.email }))).toBe(false);
        expect(await store.accounts.logins.findByEmail(login.email)).toEqual(login);
        expect(await store.accounts.logins.getByAccount(account.id)).toEqual(login);
        expect(await store.accounts.logins.findByEmail('nobody@example.com')).toBeNull();
        expect(await store.accounts.logins.getByAccount(other.id)).toBeNull();
      });

      it('two sign-ups racing for one address: exactly one wins', async () => {
        const email = `${randomUUID()}@example.com`;
        const accounts = await Promise.all([newAccount(), newAccount()]);
        const second = await openAnother();
        const results = await Promise.all([
          store.accounts.logins.create(makeLogin(accounts[0].id, { email })),
          second.accounts.logins.create(makeLogin(accounts[1].id, { email })),
        ]);
        expect(results.filter(Boolean)).toHaveLength(1);
      });

      it('replaces the password hash', async () => {
        const account = await newAccount();
        const login = makeLogin(account.id);
        await store.accounts.logins.create(login);
        expect(await store.accounts.logins.setPasswordHash(account.id, '$argon2id$new', at(5000))).toBe(true);
        expect(await store.accounts.logins.findByEmail(login.email)).toEqual({
          ...login,
          passwordHash: '$argon2id$new',
          updatedAt: at(5000),
        });
        expect(await store.accounts.logins.setPasswordHash('acc_missing', 'x', at())).toBe(false);
      });
    });

    describe('sessions', () => {
      const makeSession = (accountId: string, overrides: Partial<SessionRecord> = {}): SessionRecord => ({
        hash: randomUUID().replaceAll('-', ''),
        accountId,
        csrfHash: randomUUID().replaceAll('-', ''),
        createdAt: at(),
        expiresAt: at(HOUR),
        ...overrides,
      });

      it('finds a session until it expires, and extends it only forward', async () => {
        const account = await newAccount();
        const session = makeSession(account.id);
        await store.accounts.sessions.create(session);
        expect(await store.accounts.sessions.findActive(session.hash, at())).toEqual(session);
        expect(await store.accounts.sessions.findActive(session.hash, at(HOUR))).toBeNull();
        expect(await store.accounts.sessions.findActive('0'.repeat(32), at())).toBeNull();
        await store.accounts.sessions.extend(session.hash, at(2 * HOUR));
        await store.accounts.sessions.extend(session.hash, at(MINUTE));
        expect(await store.accounts.sessions.findActive(session.hash, at(HOUR))).toEqual({
          ...session,
          expiresAt: at(2 * HOUR),
        });
      });

      it('deletes one session, all of an account, or the expired ones', async () => {
        const account = await newAccount();
        const other = await newAccount();
        const [a, b, expired] = [
          makeSession(account.id),
          makeSession(account.id),
          makeSession(other.id, { expiresAt: at(-MINUTE) }),
        ];
        const kept = makeSession(other.id);
        for (const s of [a, b, expired, kept]) await store.accounts.sessions.create(s);
        await store.accounts.sessions.delete(a.hash);
        expect(await store.accounts.sessions.findActive(a.hash, at())).toBeNull();
        expect(await store.accounts.sessions.deleteByAccount(account.id)).toBe(1);
        expect(await store.accounts.sessions.findActive(b.hash, at())).toBeNull();
        expect(await store.accounts.sessions.deleteExpired(at())).toBe(1);
        expect(await store.accounts.sessions.findActive(kept.hash, at())).toEqual(kept);
      });
    });

    describe('e-mail verification links', () => {
      const makeEmailToken = (accountId: string, overrides: Partial<EmailTokenRecord> = {}): EmailTokenRecord => ({
        hash: randomUUID().replaceAll('-', ''),
        accountId,
        email: 'new@example.com',
        createdAt: at(),
        expiresAt: at(24 * HOUR),
        ...overrides,
      });

      it('is taken once, and not after it expired', async () => {
        const account = await newAccount();
        const token = makeEmailToken(account.id);
        const late = makeEmailToken(account.id, { expiresAt: at(MINUTE) });
        await store.accounts.emailTokens.create(token);
        await store.accounts.emailTokens.create(late);
        expect(await store.accounts.emailTokens.consume(token.hash, at())).toEqual(token);
        expect(await store.accounts.emailTokens.consume(token.hash, at())).toBeNull();
        expect(await store.accounts.emailTokens.consume(late.hash, at(MINUTE))).toBeNull();
        expect(await store.accounts.emailTokens.consume('f'.repeat(32), at())).toBeNull();
      });

      it('two clicks racing on one link: exactly one takes it', async () => {
        const account = await newAccount();
        const token = makeEmailToken(account.id);
        await store.accounts.emailTokens.create(token);
        const second = await openAnother();
        const results = await Promise.all([
          store.accounts.emailTokens.consume(token.hash, at()),
          second.accounts.emailTokens.consume(token.hash, at()),
        ]);
        expect(results.filter(Boolean)).toHaveLength(1);
      });

      it('forgets an account’s links, and the expired ones', async () => {
        const account = await newAccount();
        const other = await newAccount();
        const [a, b] = [makeEmailToken(account.id), makeEmailToken(account.id)];
        const expired = makeEmailToken(other.id, { expiresAt: at(-MINUTE) });
        const kept = makeEmailToken(other.id);
        for (const t of [a, b, expired, kept]) await store.accounts.emailTokens.create(t);
        expect(await store.accounts.emailTokens.deleteByAccount(account.id)).toBe(2);
        expect(await store.accounts.emailTokens.deleteExpired(at())).toBe(1);
        expect(await store.accounts.emailTokens.consume(kept.hash, at())).toEqual(kept);
      });
    });
  });
}
