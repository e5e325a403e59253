/** Accounts, API keys, logins, sessions and e-mail links: the records and repository ports of this aggregate. */
import type { PlanId } from '../../../schema/index.js';

export interface Account {
  id: string;
  plan: PlanId;
  email: string | null;
  emailVerified: boolean;
  overageEnabled: boolean;
  /** Per-account allowance; set for Enterprise (custom), null = the plan's. */
  creditsIncluded: number | null;
  /** Per-account rate; set for Enterprise, null = the plan's. */
  requestsPerMinute: number | null;
  createdAt: Date;
}

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  /** SHA-256 of the full key, hex. The key itself is never stored. */
  hash: string;
  /** First characters, for listing ("ck_live_AbCd"). */
  prefix: string;
  createdAt: Date;
  revokedAt: Date | null;
  /** The owner's label for it (account panel); absent on keys made before keys had names. */
  name?: string | null;
  /** When a request last came with it (updated at most once a minute); null = never used. */
  lastUsedAt?: Date | null;
}

/** How an account signs in: its e-mail address (normalised, unique) and an argon2id password hash. */
export interface LoginRecord {
  email: string;
  accountId: string;
  /** PHC string ($argon2id$...). The password itself is never stored. */
  passwordHash: string;
  createdAt: Date;
  updatedAt: Date;
}

/** A browser session. Only digests are stored: the cookie's token and the session's CSRF token. */
export interface SessionRecord {
  /** SHA-256 of the session cookie's token, hex. */
  hash: string;
  accountId: string;
  /** SHA-256 of the session's CSRF token (the transmute_csrf cookie), hex. */
  csrfHash: string;
  createdAt: Date;
  /** Sliding: pushed forward as the session is used. */
  expiresAt: Date;
}

/** A pending e-mail verification link: single use, expiring. */
export interface EmailTokenRecord {
  /** SHA-256 of the link's token, hex. */
  hash: string;
  accountId: string;
  /** The address the link was sent to: verifying it verifies only that address. */
  email: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface AccountRepo {
  create(account: Account): Promise<void>;
  get(id: string): Promise<Account | null>;
  update(id: string, patch: Partial<Omit<Account, 'id' | 'createdAt'>>): Promise<void>;
}

export interface KeyRepo {
  create(key: ApiKeyRecord): Promise<void>;
  /** Active (not revoked) key by hash. */
  findActiveByHash(hash: string): Promise<ApiKeyRecord | null>;
  listByAccount(accountId: string): Promise<ApiKeyRecord[]>;
  /** Returns false when no active key has that hash. */
  revokeByHash(hash: string, at: Date): Promise<boolean>;
  /** Revoke one key of one account; false when the account has no active key with that id. */
  revokeById(accountId: string, id: string, at: Date): Promise<boolean>;
  /**
   * Record a use; only writes when the last recorded use is before `staleBefore` (one write a minute, not one a
   * request).
   */
  markUsed(id: string, at: Date, staleBefore: Date): Promise<void>;
}

export interface LoginRepo {
  /** False when a login with that e-mail exists (nothing written): one insert claims the address. */
  create(login: LoginRecord): Promise<boolean>;
  findByEmail(email: string): Promise<LoginRecord | null>;
  getByAccount(accountId: string): Promise<LoginRecord | null>;
  setPasswordHash(accountId: string, passwordHash: string, at: Date): Promise<boolean>;
}

export interface SessionRepo {
  create(session: SessionRecord): Promise<void>;
  /** The session with that hash if it has not expired at `now`. */
  findActive(hash: string, now: Date): Promise<SessionRecord | null>;
  /** Push the expiry forward (sliding sessions). */
  extend(hash: string, expiresAt: Date): Promise<void>;
  delete(hash: string): Promise<void>;
  /** Every session of an account (password changed): returns how many. */
  deleteByAccount(accountId: string): Promise<number>;
  deleteExpired(now: Date): Promise<number>;
}

export interface EmailTokenRepo {
  create(token: EmailTokenRecord): Promise<void>;
  /** Take a token once: the record if it existed and had not expired at `now` (it is deleted either way). */
  consume(hash: string, now: Date): Promise<EmailTokenRecord | null>;
  /** Forget an account's pending links (a new one was sent, or the address was verified). */
  deleteByAccount(accountId: string): Promise<number>;
  deleteExpired(now: Date): Promise<number>;
}

/** What every adapter provides for this aggregate. */
export interface AccountsStore {
  readonly accounts: AccountRepo;
  readonly keys: KeyRepo;
  readonly logins: LoginRepo;
  readonly sessions: SessionRepo;
  readonly emailTokens: EmailTokenRepo;
}
