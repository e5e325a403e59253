/**
 * Accounts in the browser: sign-up and sign-in with an e-mail address and a password (argon2id,
 * passwords.ts), sessions, and e-mail verification links.
 *
 * Passwords rather than magic links: a user signs in at once, without waiting for mail, and the
 * service keeps working where mail is slow or only written to the outbox; the one mail (the
 * verification link) is needed only before generating an API key.
 *
 * Every credential is 256 bits from the CSPRNG and only its SHA-256 is stored: the session token
 * (the HttpOnly cookie), the session's CSRF token (a cookie the page reads and sends back as a
 * header; the server checks it against the session's digest) and the verification link's token.
 * Sessions slide: 30 days from the last use (written at most once a day). Links expire after 24 h
 * and work once; sending a new one forgets the older ones.
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { Logger } from '../contract/index.js';
import type { Account, AccountsStore, SessionRecord } from '../store/types.js';
import type { AccountService, Principal } from './accounts.js';
import type { Clock } from './clock.js';
import { ServiceError, badRequest } from './errors.js';
import type { MailService } from './mail.js';
import { checkNewPassword, decoyPasswordHash, hashPassword, verifyPassword } from './passwords.js';
import type { RateLimitService } from './rate-limits.js';
import { randomToken, sha256 } from './secrets.js';

const HOUR_MS = 3600_000;
export const SESSION_LIFETIME_MS = 30 * 24 * HOUR_MS;
/** A session's expiry is pushed forward once this much of it has passed (one write a day at most). */
const SESSION_EXTEND_AFTER_MS = 24 * HOUR_MS;
export const VERIFICATION_LIFETIME_HOURS = 24;

/** One answer for an unknown address and a wrong password: which one it was is not told. */
export const WRONG_CREDENTIALS = 'Wrong e-mail or password';
export const INVALID_LINK = 'This link is invalid or has expired';

/** Attempts per minute (RateLimitService.attempt): enough for people, too few for guessing. */
export const ATTEMPT_LIMITS = {
  signInPerEmail: 5,
  signInPerAddress: 20,
  signUpPerAddress: 10,
  verificationMailsPerAccount: 2,
} as const;

const emailSchema = z.string().trim().max(254).pipe(z.email());

/** The form an address is stored and compared in: trimmed, lower case. */
export function normalizeEmail(email: string): string {
  const parsed = emailSchema.safeParse(email);
  if (!parsed.success) throw badRequest('Enter a valid e-mail address');
  return parsed.data.toLowerCase();
}

/** A new session: the two tokens go into cookies once and are never kept. */
export interface SessionGrant {
  account: Account;
  token: string;
  csrfToken: string;
  expiresAt: Date;
}

/** Who is signing in from where: the address counts attempts (no account enumeration by speed either). */
export interface Credentials {
  email: string;
  password: string;
  /** The client's IP address, for the per-address attempt limit. */
  ip: string;
}

export class SessionService {
  private readonly accountsStore: AccountsStore;

  constructor(
    ports: { accounts: AccountsStore },
    private readonly accounts: AccountService,
    private readonly rateLimits: RateLimitService,
    private readonly mail: MailService | undefined,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {
    this.accountsStore = ports.accounts;
  }

  /**
   * A new Free account, e-mail unverified, signed in at once; the verification mail is sent too
   * (a failure to send is logged, and the panel offers to send it again). A taken address is
   * refused in so many words: sign-up cannot hide that an address is registered without also
   * failing the people who own it, so it is rate-limited per client address instead.
   */
  async signUp({ email, password, ip }: Credentials): Promise<SessionGrant> {
    const address = normalizeEmail(email);
    checkNewPassword(password);
    await this.rateLimits.attempt(
      `sign-up:ip:${ip}`,
      ATTEMPT_LIMITS.signUpPerAddress,
      'Too many sign-ups from this address',
    );
    if (await this.accountsStore.logins.findByEmail(address))
      throw badRequest('An account with this e-mail address exists already: sign in instead');
    const passwordHash = await hashPassword(password);
    const accountId = `acc_${randomUUID()}`;
    const now = this.clock.now();
    // The login claims the address in one insert; the account follows (a race for one address has one winner).
    if (
      !(await this.accountsStore.logins.create({
        email: address,
        accountId,
        passwordHash,
        createdAt: now,
        updatedAt: now,
      }))
    ) {
      throw badRequest('An account with this e-mail address exists already: sign in instead');
    }
    const account = await this.accounts.createAccount({
      id: accountId,
      plan: 'free',
      email: address,
      emailVerified: false,
    });
    this.log.info('account signed up', { accountId });
    await this.sendVerification(account).catch((err: Error) =>
      this.log.error('verification mail not sent', { accountId, error: err.message }),
    );
    return this.startSession(account);
  }

  async signIn({ email, password, ip }: Credentials): Promise<SessionGrant> {
    // An address that is not even one is no account: the same answer, after the same limits.
    const address = emailSchema.safeParse(email).success ? email.trim().toLowerCase() : null;
    await this.rateLimits.attempt(`sign-in:ip:${ip}`, ATTEMPT_LIMITS.signInPerAddress, 'Too many sign-in attempts');
    if (address)
      await this.rateLimits.attempt(
        `sign-in:email:${sha256(address)}`,
        ATTEMPT_LIMITS.signInPerEmail,
        'Too many sign-in attempts',
      );
    const login = address ? await this.accountsStore.logins.findByEmail(address) : null;
    const matches = await verifyPassword(login?.passwordHash ?? (await decoyPasswordHash()), password);
    const account = login && matches ? await this.accountsStore.accounts.get(login.accountId) : null;
    if (!account) throw new ServiceError('UNAUTHENTICATED', WRONG_CREDENTIALS);
    return this.startSession(account);
  }

  /** Ends the session server-side: the cookie is worthless afterwards, wherever a copy of it is. */
  async signOut(token: string): Promise<void> {
    await this.accountsStore.sessions.delete(sha256(token));
  }

  /**
   * The principal of a session cookie's token, or null (unknown, expired, account gone).
   * `renewedUntil`: the session's new expiry when this use pushed it forward (the cookies follow).
   */
  async authenticate(token: string): Promise<{ principal: Principal; renewedUntil: Date | null } | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const now = this.clock.now();
    const session = await this.accountsStore.sessions.findActive(sha256(token), now);
    const account = session && (await this.accountsStore.accounts.get(session.accountId));
    if (!session || !account) return null;
    let renewedUntil: Date | null = null;
    if (session.expiresAt.getTime() - now.getTime() < SESSION_LIFETIME_MS - SESSION_EXTEND_AFTER_MS) {
      renewedUntil = new Date(now.getTime() + SESSION_LIFETIME_MS);
      await this.accountsStore.sessions.extend(session.hash, renewedUntil);
    }
    return { principal: { account, keyId: '', session }, renewedUntil };
  }

  /** Whether `csrfToken` (the request's X-CSRF-Token header) is the session's own. */
  checkCsrf(session: SessionRecord, csrfToken: string | undefined): boolean {
    if (typeof csrfToken !== 'string' || csrfToken.length === 0 || csrfToken.length > 64) return false;
    return timingSafeEqual(Buffer.from(sha256(csrfToken)), Buffer.from(session.csrfHash));
  }

  /**
   * Send a fresh verification link (older ones stop working). False when the mail could not be handed over (logged).
   */
  async resendVerification(account: Account): Promise<boolean> {
    if (account.emailVerified) throw badRequest('Your e-mail address is verified already');
    if (!account.email) throw badRequest('This account has no e-mail address');
    await this.rateLimits.attempt(
      `verification-mail:${account.id}`,
      ATTEMPT_LIMITS.verificationMailsPerAccount,
      'A verification mail was sent a moment ago',
    );
    try {
      await this.sendVerification(account);
      return true;
    } catch (err) {
      this.log.error('verification mail not sent', { accountId: account.id, error: (err as Error).message });
      return false;
    }
  }

  /** Verify the address a link was sent to; the link works once. Works signed in or not. */
  async verifyEmail(token: string): Promise<Account> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) throw badRequest(INVALID_LINK);
    const record = await this.accountsStore.emailTokens.consume(sha256(token), this.clock.now());
    const account = record && (await this.accountsStore.accounts.get(record.accountId));
    // A link to an address the account no longer has verifies nothing.
    if (!record || !account || account.email !== record.email) throw badRequest(INVALID_LINK);
    if (!account.emailVerified) {
      await this.accountsStore.accounts.update(account.id, { emailVerified: true });
      await this.accounts.accountChanged(account.id);
    }
    await this.accountsStore.emailTokens.deleteByAccount(account.id);
    this.log.info('e-mail verified', { accountId: account.id });
    return { ...account, emailVerified: true };
  }

  /**
   * Operators (admin CLI): set the account's password, creating its login from the account's
   * e-mail address if it has none yet (accounts made by the CLI); its sessions end.
   */
  async setPassword(accountId: string, password: string): Promise<Account> {
    checkNewPassword(password);
    const account = await this.accountsStore.accounts.get(accountId);
    if (!account) throw new ServiceError('NOT_FOUND', `No account ${accountId}`);
    const passwordHash = await hashPassword(password);
    const now = this.clock.now();
    if (!(await this.accountsStore.logins.setPasswordHash(account.id, passwordHash, now))) {
      if (!account.email) throw badRequest('This account has no e-mail address to sign in with');
      const email = normalizeEmail(account.email);
      if (
        !(await this.accountsStore.logins.create({
          email,
          accountId: account.id,
          passwordHash,
          createdAt: now,
          updatedAt: now,
        }))
      ) {
        throw badRequest('Another account signs in with this e-mail address');
      }
    }
    await this.accountsStore.sessions.deleteByAccount(account.id);
    return account;
  }

  /** The account that signs in with this address (operators: admin CLI), or null. */
  async findAccountByEmail(email: string): Promise<Account | null> {
    const login = await this.accountsStore.logins.findByEmail(normalizeEmail(email));
    return login && (await this.accountsStore.accounts.get(login.accountId));
  }

  private async startSession(account: Account): Promise<SessionGrant> {
    const token = randomToken();
    const csrfToken = randomToken();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS);
    await this.accountsStore.sessions.create({
      hash: sha256(token),
      accountId: account.id,
      csrfHash: sha256(csrfToken),
      createdAt: now,
      expiresAt,
    });
    return { account, token, csrfToken, expiresAt };
  }

  private async sendVerification(account: Account): Promise<void> {
    if (!this.mail) throw new Error('no mail transport configured');
    const token = randomToken();
    const now = this.clock.now();
    await this.accountsStore.emailTokens.deleteByAccount(account.id);
    await this.accountsStore.emailTokens.create({
      hash: sha256(token),
      accountId: account.id,
      email: account.email!,
      createdAt: now,
      expiresAt: new Date(now.getTime() + VERIFICATION_LIFETIME_HOURS * HOUR_MS),
    });
    await this.mail.sendVerification(account.email!, token, VERIFICATION_LIFETIME_HOURS);
  }
}
