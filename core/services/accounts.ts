/** Accounts and API keys: creation, authentication, listing, revocation. */
import { randomUUID } from 'node:crypto';
import { API_KEY_PATTERN, ENTERPRISE_DEFAULTS, PLANS, type PlanId } from '../../schema/index.js';
import type { Account, AccountsStore, ApiKeyRecord, PrincipalChanges, SessionRecord } from '../store/types.js';
import type { Clock } from './clock.js';
import { ServiceError } from './errors.js';
import { PrincipalCache } from './principal-cache.js';
import { newApiKey, sha256 } from './secrets.js';

/** Who is calling: resolved from the API key, or the browser session, on every request. */
export interface Principal {
  account: Account;
  /** The API key the request came with; '' for a browser session. */
  keyId: string;
  /** The browser session the request came with (sessions.ts), instead of a key. */
  session?: SessionRecord;
}

/** What a key list shows: never the hash. */
export type ApiKeySummary = Pick<ApiKeyRecord, 'id' | 'prefix' | 'createdAt' | 'revokedAt'> & {
  name: string | null;
  lastUsedAt: Date | null;
};

const KEY_PREFIX_SHOWN = 12;
export const KEY_NAME_MAX_LENGTH = 100;
/** A key's last use is written at most this often: one write a minute, not one a request. */
const LAST_USED_RESOLUTION_MS = 60_000;

export class AccountService {
  private readonly principals: PrincipalCache<Principal>;

  private readonly accountsStore: AccountsStore;

  constructor(
    ports: { accounts: AccountsStore; principalChanges: PrincipalChanges },
    private readonly clock: Clock,
  ) {
    this.accountsStore = ports.accounts;
    this.principals = new PrincipalCache(ports.principalChanges);
  }

  async createAccount(input: {
    id?: string;
    plan: PlanId;
    email?: string | null;
    emailVerified?: boolean;
    overageEnabled?: boolean;
  }): Promise<Account> {
    const account: Account = {
      id: input.id ?? `acc_${randomUUID()}`,
      plan: input.plan,
      email: input.email ?? null,
      emailVerified: input.emailVerified ?? true,
      overageEnabled: input.overageEnabled ?? false,
      creditsIncluded: input.plan === 'enterprise' ? ENTERPRISE_DEFAULTS.creditsIncluded : null,
      requestsPerMinute: input.plan === 'enterprise' ? ENTERPRISE_DEFAULTS.requestsPerMinute : null,
      createdAt: this.clock.now(),
    };
    await this.accountsStore.accounts.create(account);
    return account;
  }

  /** Mint a key; the full key is returned here and never again. 403 while the e-mail is unverified (spec). */
  async createKey(accountId: string, name?: string | null): Promise<{ key: string; record: ApiKeyRecord }> {
    const account = await this.accountsStore.accounts.get(accountId);
    if (!account) throw new ServiceError('NOT_FOUND', `No account ${accountId}`);
    if (!account.emailVerified)
      throw new ServiceError('FORBIDDEN', 'Verify your e-mail address before generating an API key');
    const label = name?.trim() || null;
    if (label && [...label].length > KEY_NAME_MAX_LENGTH)
      throw new ServiceError('BAD_REQUEST', `A key name is at most ${KEY_NAME_MAX_LENGTH} characters`);
    const key = newApiKey();
    const record: ApiKeyRecord = {
      id: `key_${randomUUID()}`,
      accountId,
      hash: sha256(key),
      prefix: key.slice(0, KEY_PREFIX_SHOWN),
      createdAt: this.clock.now(),
      revokedAt: null,
      name: label,
      lastUsedAt: null,
    };
    await this.accountsStore.keys.create(record);
    return { key, record };
  }

  /** Every key of the account, revoked ones too, oldest first. */
  async listKeys(accountId: string): Promise<ApiKeySummary[]> {
    const keys = await this.accountsStore.keys.listByAccount(accountId);
    return keys.map(summarizeKey);
  }

  /** The account's keys still in force, newest first (the account panel's list). */
  async listActiveKeys(accountId: string): Promise<ApiKeySummary[]> {
    return (await this.listKeys(accountId)).filter((k) => !k.revokedAt).reverse();
  }

  async revokeKey(key: string): Promise<boolean> {
    const hash = sha256(key);
    const record = await this.accountsStore.keys.findActiveByHash(hash);
    const revoked = await this.accountsStore.keys.revokeByHash(hash, this.clock.now());
    if (record) await this.principals.accountChanged(record.accountId);
    return revoked;
  }

  /** Revoke one of the account's own keys; another account's key (or none) is 404, never 403. */
  async revokeKeyById(accountId: string, keyId: string): Promise<void> {
    const revoked = await this.accountsStore.keys.revokeById(accountId, keyId, this.clock.now());
    await this.principals.accountChanged(accountId);
    if (!revoked) throw new ServiceError('NOT_FOUND', 'API key not found');
  }

  /**
   * Something about the account that its principals carry changed (plan, limits, status, e-mail verification): the
   * principals remembered for its keys are dropped here and in the other processes.
   */
  async accountChanged(accountId: string): Promise<void> {
    await this.principals.accountChanged(accountId);
  }

  async getAccount(accountId: string): Promise<Account | null> {
    return this.accountsStore.accounts.get(accountId);
  }

  async updateAccount(accountId: string, patch: Parameters<AccountsStore['accounts']['update']>[1]): Promise<void> {
    if (!(await this.accountsStore.accounts.get(accountId)))
      throw new ServiceError('NOT_FOUND', `No account ${accountId}`);
    await this.accountsStore.accounts.update(accountId, patch);
    await this.accountChanged(accountId);
  }

  /**
   * Resolve an API key to its principal, or 401. The transport extracts the key from its own
   * framing (HTTP: `Authorization: Bearer <key>`); the service sees only the key.
   */
  async authenticateKey(key: string): Promise<Principal> {
    if (!API_KEY_PATTERN.test(key)) throw new ServiceError('UNAUTHENTICATED', 'Invalid API key');
    const hash = sha256(key);
    const cached = this.principals.get(hash);
    let record = cached?.record;
    let principal = cached?.principal;
    if (!cached) {
      const readAt = this.principals.readingFromStore();
      record = (await this.accountsStore.keys.findActiveByHash(hash)) ?? undefined;
      const account = record && (await this.accountsStore.accounts.get(record.accountId));
      if (!record || !account) throw new ServiceError('UNAUTHENTICATED', 'Invalid API key');
      principal = { account, keyId: record.id };
      this.principals.remember(hash, principal, record, readAt);
    }
    const now = this.clock.now();
    if (!record!.lastUsedAt || now.getTime() - record!.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
      // The remembered record carries the use too: one write a minute per key, cached or not.
      record!.lastUsedAt = now;
      await this.accountsStore.keys.markUsed(record!.id, now, new Date(now.getTime() - LAST_USED_RESOLUTION_MS));
    }
    return principal!;
  }

  /** Operators: move an account to another plan (Enterprise starts from its default allowance and rate). */
  async setPlan(accountId: string, plan: PlanId): Promise<Account> {
    const account = await this.accountsStore.accounts.get(accountId);
    if (!account) throw new ServiceError('NOT_FOUND', `No account ${accountId}`);
    const custom =
      plan === 'enterprise'
        ? {
            creditsIncluded: account.creditsIncluded ?? ENTERPRISE_DEFAULTS.creditsIncluded,
            requestsPerMinute: account.requestsPerMinute ?? ENTERPRISE_DEFAULTS.requestsPerMinute,
          }
        : { creditsIncluded: null, requestsPerMinute: null };
    await this.accountsStore.accounts.update(accountId, { plan, ...custom });
    await this.accountChanged(accountId);
    return { ...account, plan, ...custom };
  }

  /** Operators: mark the account's address verified without the link (pending links are dropped). */
  async markEmailVerified(accountId: string): Promise<Account> {
    const account = await this.accountsStore.accounts.get(accountId);
    if (!account) throw new ServiceError('NOT_FOUND', `No account ${accountId}`);
    if (!account.email) throw new ServiceError('BAD_REQUEST', 'This account has no e-mail address');
    await this.accountsStore.accounts.update(accountId, { emailVerified: true });
    await this.accountChanged(accountId);
    await this.accountsStore.emailTokens.deleteByAccount(accountId);
    return { ...account, emailVerified: true };
  }

  /** Pay-as-you-go on or off, where the plan offers it (every plan but Enterprise). */
  async setOverage(accountId: string, enabled: boolean): Promise<Account> {
    const account = await this.accountsStore.accounts.get(accountId);
    if (!account) throw new ServiceError('NOT_FOUND', `No account ${accountId}`);
    if (!PLANS[account.plan].overageAvailable) {
      throw new ServiceError('FORBIDDEN', `Pay-as-you-go is not available on the ${PLANS[account.plan].label} plan`, {
        code: 'plan_required',
      });
    }
    await this.accountsStore.accounts.update(accountId, { overageEnabled: enabled });
    await this.accountChanged(accountId);
    return { ...account, overageEnabled: enabled };
  }

  /**
   * An Enterprise account's own monthly credits and requests per minute (the spec: custom on
   * Enterprise); a limit left out keeps its current value. Other plans have the plan's limits.
   */
  async setLimits(
    accountId: string,
    limits: { creditsIncluded?: number; requestsPerMinute?: number },
  ): Promise<Account> {
    const account = await this.accountsStore.accounts.get(accountId);
    if (!account) throw new ServiceError('NOT_FOUND', `No account ${accountId}`);
    if (account.plan !== 'enterprise') {
      throw new ServiceError(
        'BAD_REQUEST',
        `Custom limits are for Enterprise accounts; this one is on ${PLANS[account.plan].label} (set-plan --plan ` +
          `enterprise first)`,
      );
    }
    const patch = {
      ...(limits.creditsIncluded !== undefined ? { creditsIncluded: limits.creditsIncluded } : {}),
      ...(limits.requestsPerMinute !== undefined ? { requestsPerMinute: limits.requestsPerMinute } : {}),
    };
    await this.accountsStore.accounts.update(accountId, patch);
    await this.accountChanged(accountId);
    return { ...account, ...patch };
  }

  /** Effective limits of an account: the plan's, or the account's own on Enterprise. */
  limitsOf(account: Account) {
    return accountLimits(account);
  }
}

function summarizeKey(k: ApiKeyRecord): ApiKeySummary {
  return {
    id: k.id,
    prefix: k.prefix,
    createdAt: k.createdAt,
    revokedAt: k.revokedAt,
    name: k.name ?? null,
    lastUsedAt: k.lastUsedAt ?? null,
  };
}

/** Effective limits of an account: the plan's, or the account's own on Enterprise. */
export function accountLimits(account: Account) {
  const plan = PLANS[account.plan];
  return {
    plan,
    creditsIncluded: account.creditsIncluded ?? plan.creditsIncluded ?? ENTERPRISE_DEFAULTS.creditsIncluded,
    requestsPerMinute: account.requestsPerMinute ?? plan.requestsPerMinute ?? ENTERPRISE_DEFAULTS.requestsPerMinute,
    maxFileBytes: plan.maxFileBytes,
  };
}
