/**
 * SessionService on a real SQLite store: passwords, sessions, CSRF tokens and verification links,
 * with time moved by a test clock. Mail goes to a transport that keeps the messages (the SMTP and
 * outbox adapters are exercised end to end in test/accounts.e2e.test.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from '../contract/index.js';
import { SqliteStore, openSqliteDatabase } from '../store/sqlite/index.js';
import { AccountService } from './accounts.js';
import type { Clock } from './clock.js';
import { ServiceError } from './errors.js';
import { MailService, type MailMessage, type MailTransport } from './mail.js';
import { PASSWORD_MAX_LENGTH, checkNewPassword, hashPassword, verifyPassword } from './passwords.js';
import { RateLimitService } from './rate-limits.js';
import { sha256 } from './secrets.js';
import { SESSION_LIFETIME_MS, SessionService, WRONG_CREDENTIALS } from './sessions.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const PASSWORD = 'correct horse battery staple';
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

class MovingClock implements Clock {
  current = new Date('2030-01-10T12:00:00Z');
  now() {
    return new Date(this.current);
  }
  advance(ms: number) {
    this.current = new Date(this.current.getTime() + ms);
  }
}

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(error instanceof ServiceError)) throw new Error(`expected a ServiceError, got ${String(error)}`);
  return error;
}

describe('passwords', () => {
  it('hashes with argon2id at the OWASP parameters, with a salt per hash', async () => {
    const first = await hashPassword(PASSWORD);
    expect(first).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await hashPassword(PASSWORD)).not.toBe(first);
    expect(await verifyPassword(first, PASSWORD)).toBe(true);
    expect(await verifyPassword(first, `${PASSWORD}!`)).toBe(false);
    expect(await verifyPassword('not a hash', PASSWORD)).toBe(false);
  });

  it('takes 10 to 256 characters, counted as people count them', () => {
    expect(() => checkNewPassword('123456789')).toThrow('at least 10');
    expect(() => checkNewPassword('🔑'.repeat(10))).not.toThrow();
    expect(() => checkNewPassword('x'.repeat(PASSWORD_MAX_LENGTH))).not.toThrow();
    expect(() => checkNewPassword('x'.repeat(PASSWORD_MAX_LENGTH + 1))).toThrow('at most 256');
  });
});

describe('SessionService', () => {
  let directory: string;
  let store: SqliteStore;
  let clock: MovingClock;
  let sent: MailMessage[];
  let sessions: SessionService;
  let accounts: AccountService;

  beforeEach(async () => {
    directory = await mkdtemp(path.join(os.tmpdir(), 'transmute-sessions-'));
    store = new SqliteStore(openSqliteDatabase(path.join(directory, 'transmute.db')));
    clock = new MovingClock();
    sent = [];
    const transport: MailTransport = {
      async send(message) {
        sent.push(message);
        return { messageId: `<${sent.length}@test>` };
      },
      async close() {},
    };
    accounts = new AccountService(store, clock);
    sessions = new SessionService(
      store,
      accounts,
      new RateLimitService(store, accounts, clock),
      new MailService(transport, 'https://files.example'),
      clock,
      quiet,
    );
  });

  afterEach(async () => {
    await store.close();
    await rm(directory, { recursive: true, force: true });
  });

  const signUp = (email = 'Ada@Example.com', ip = '192.0.2.1') => sessions.signUp({ email, password: PASSWORD, ip });
  const linkToken = (message: MailMessage) => /\/verify\?token=([A-Za-z0-9_-]{43})/.exec(message.text)![1]!;

  it('signs up a Free, unverified account, signed in at once, and mails a link on PUBLIC_URL', async () => {
    const grant = await signUp();
    expect(grant.account).toMatchObject({ plan: 'free', email: 'ada@example.com', emailVerified: false });
    expect(grant.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(grant.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(grant.expiresAt).toEqual(new Date(clock.now().getTime() + SESSION_LIFETIME_MS));
    expect(sent).toHaveLength(1);
    expect(sent[0]!.to).toBe('ada@example.com');
    expect(sent[0]!.text).toContain('https://files.example/verify?token=');
    expect(sent[0]!.html).toContain(`https://files.example/verify?token=${linkToken(sent[0]!)}`);

    const { principal } = (await sessions.authenticate(grant.token))!;
    expect(principal.account.id).toBe(grant.account.id);
    expect(principal.session!.accountId).toBe(grant.account.id);
    expect(sessions.checkCsrf(principal.session!, grant.csrfToken)).toBe(true);
    expect(sessions.checkCsrf(principal.session!, undefined)).toBe(false);
    expect(sessions.checkCsrf(principal.session!, grant.token)).toBe(false);
  });

  it('stores no credential in clear: not the tokens, not the password', async () => {
    const grant = await signUp();
    const dump = JSON.stringify([
      store.db.prepare('SELECT * FROM sessions').all(),
      store.db.prepare('SELECT * FROM email_tokens').all(),
      store.db.prepare('SELECT * FROM logins').all(),
    ]);
    for (const secret of [grant.token, grant.csrfToken, linkToken(sent[0]!), PASSWORD])
      expect(dump).not.toContain(secret);
    expect(dump).toContain(sha256(grant.token));
  });

  it('refuses a taken address, whatever its case', async () => {
    await signUp();
    const taken = await failure(signUp('ADA@example.com '));
    expect(taken.code).toBe('BAD_REQUEST');
    expect(taken.message).toMatch(/exists already/);
  });

  it('signs in with the right password only, answering an unknown address the same way', async () => {
    const { account } = await signUp();
    const grant = await sessions.signIn({ email: ' ada@EXAMPLE.com', password: PASSWORD, ip: '192.0.2.9' });
    expect(grant.account.id).toBe(account.id);
    for (const [email, password] of [
      ['ada@example.com', 'wrong password!'],
      ['nobody@example.com', PASSWORD],
      ['not an address', PASSWORD],
      ['ada@example.com', 'x'.repeat(5000)],
    ]) {
      const refused = await failure(sessions.signIn({ email: email!, password: password!, ip: '192.0.2.10' }));
      expect(refused).toMatchObject({ code: 'UNAUTHENTICATED', message: WRONG_CREDENTIALS });
    }
  });

  it('limits sign-in attempts per address and per client, a minute at a time', async () => {
    await signUp();
    for (let i = 0; i < 5; i++)
      await failure(sessions.signIn({ email: 'ada@example.com', password: `wrong ${i}`, ip: `192.0.2.${i}` }));
    const limited = await failure(sessions.signIn({ email: 'ada@example.com', password: PASSWORD, ip: '192.0.2.99' }));
    expect(limited.code).toBe('RATE_LIMITED');
    expect(limited.detail.retryAfterSeconds).toBeGreaterThan(0);
    // Another address from another client is not held up.
    await sessions.signUp({ email: 'bob@example.com', password: PASSWORD, ip: '198.51.100.1' });
    await sessions.signIn({ email: 'bob@example.com', password: PASSWORD, ip: '198.51.100.1' });
    clock.advance(60_000);
    await sessions.signIn({ email: 'ada@example.com', password: PASSWORD, ip: '192.0.2.99' });
  });

  it('slides a session forward as it is used, ends it after 30 idle days, and on sign-out', async () => {
    const grant = await signUp();
    clock.advance(2 * DAY);
    const used = (await sessions.authenticate(grant.token))!;
    expect(used.renewedUntil).toEqual(new Date(clock.now().getTime() + SESSION_LIFETIME_MS));
    // Used again soon after: no new write.
    clock.advance(HOUR);
    expect((await sessions.authenticate(grant.token))!.renewedUntil).toBeNull();
    clock.advance(SESSION_LIFETIME_MS - 2 * HOUR);
    expect(await sessions.authenticate(grant.token)).not.toBeNull();
    clock.advance(SESSION_LIFETIME_MS);
    expect(await sessions.authenticate(grant.token)).toBeNull();

    const second = await sessions.signIn({ email: 'ada@example.com', password: PASSWORD, ip: '192.0.2.1' });
    await sessions.signOut(second.token);
    expect(await sessions.authenticate(second.token)).toBeNull();
    expect(await sessions.authenticate('not a token')).toBeNull();
  });

  it('verifies with the mailed link once, within 24 hours; a new link replaces the old', async () => {
    const { account } = await signUp();
    const first = linkToken(sent[0]!);
    expect(await sessions.resendVerification(account)).toBe(true);
    const second = linkToken(sent[1]!);
    expect((await failure(sessions.verifyEmail(first))).message).toBe('This link is invalid or has expired');

    clock.advance(23 * HOUR);
    expect(await sessions.verifyEmail(second)).toMatchObject({ id: account.id, emailVerified: true });
    expect((await store.accounts.accounts.get(account.id))!.emailVerified).toBe(true);
    expect((await failure(sessions.verifyEmail(second))).code).toBe('BAD_REQUEST');

    const late = await signUp('late@example.com', '192.0.2.2');
    clock.advance(24 * HOUR);
    expect((await failure(sessions.verifyEmail(linkToken(sent[2]!)))).message).toBe(
      'This link is invalid or has expired',
    );
    expect((await store.accounts.accounts.get(late.account.id))!.emailVerified).toBe(false);
  });

  it('limits verification mails per account', async () => {
    const { account } = await signUp();
    await sessions.resendVerification(account);
    await sessions.resendVerification(account);
    expect((await failure(sessions.resendVerification(account))).code).toBe('RATE_LIMITED');
  });

  it('lets an operator set a password, giving a CLI account a login and ending sessions', async () => {
    const cli = await accounts.createAccount({ plan: 'pro', email: 'Ops@Example.com' });
    await sessions.setPassword(cli.id, PASSWORD);
    const grant = await sessions.signIn({ email: 'ops@example.com', password: PASSWORD, ip: '192.0.2.1' });
    await sessions.setPassword(cli.id, 'another long password');
    expect(await sessions.authenticate(grant.token)).toBeNull();
    await sessions.signIn({ email: 'ops@example.com', password: 'another long password', ip: '192.0.2.1' });

    const noEmail = await accounts.createAccount({ plan: 'pro' });
    expect((await failure(sessions.setPassword(noEmail.id, PASSWORD))).message).toMatch(/no e-mail address/);
    expect((await failure(sessions.setPassword('acc_missing', PASSWORD))).code).toBe('NOT_FOUND');
  });

  it("refuses key generation until the address is verified, and revokes only the account's own keys", async () => {
    const { account } = await signUp();
    expect(await failure(accounts.createKey(account.id))).toMatchObject({
      code: 'FORBIDDEN',
      message: 'Verify your e-mail address before generating an API key',
    });
    await sessions.verifyEmail(linkToken(sent[0]!));
    const { record } = await accounts.createKey(account.id, '  build server  ');
    expect(record.name).toBe('build server');
    const other = await accounts.createAccount({ plan: 'pro' });
    expect((await failure(accounts.revokeKeyById(other.id, record.id))).code).toBe('NOT_FOUND');
    await accounts.revokeKeyById(account.id, record.id);
    expect(await accounts.listActiveKeys(account.id)).toEqual([]);
  });
});
