/** Accounts and API keys: creation, authentication, listing, revocation. */
import { randomUUID } from 'node:crypto';
import { ENTERPRISE_DEFAULTS, PLANS, apiKeySchema, type PlanId } from '../../schema/index.js';
import type { Account, ApiKeyRecord, Store } from '../store/types.js';
import type { Clock } from './clock.js';
import { ServiceError } from './errors.js';
import { newApiKey, sha256 } from './secrets.js';

/** Who is calling: resolved from the API key on every request. */
export interface Principal {
  account: Account;
  keyId: string;
}

const KEY_PREFIX_SHOWN = 12;

export class AccountService {
  constructor(private readonly store: Store, private readonly clock: Clock) {}

  async createAccount(input: { plan: PlanId; email?: string | null; emailVerified?: boolean; overageEnabled?: boolean }): Promise<Account> {
    const account: Account = {
      id: `acc_${randomUUID()}`,
      plan: input.plan,
      email: input.email ?? null,
      emailVerified: input.emailVerified ?? true,
      overageEnabled: input.overageEnabled ?? false,
      creditsIncluded: input.plan === 'enterprise' ? ENTERPRISE_DEFAULTS.creditsIncluded : null,
      requestsPerMinute: input.plan === 'enterprise' ? ENTERPRISE_DEFAULTS.requestsPerMinute : null,
      createdAt: this.clock.now(),
    };
    await this.store.accounts.create(account);
    return account;
  }

  /** Mint a key; the full key is returned here and never again. */
  async createKey(accountId: string): Promise<{ key: string; record: ApiKeyRecord }> {
    const account = await this.store.accounts.get(accountId);
    if (!account) throw new ServiceError('NOT_FOUND', `No account ${accountId}`);
    if (!account.emailVerified) throw new ServiceError('FORBIDDEN', 'Verify the account e-mail address before generating an API key');
    const key = newApiKey();
    const record: ApiKeyRecord = {
      id: `key_${randomUUID()}`, accountId, hash: sha256(key), prefix: key.slice(0, KEY_PREFIX_SHOWN), createdAt: this.clock.now(), revokedAt: null,
    };
    await this.store.keys.create(record);
    return { key, record };
  }

  async listKeys(accountId: string): Promise<Array<Pick<ApiKeyRecord, 'prefix' | 'createdAt' | 'revokedAt'>>> {
    const keys = await this.store.keys.listByAccount(accountId);
    return keys.map(({ prefix, createdAt, revokedAt }) => ({ prefix, createdAt, revokedAt }));
  }

  async revokeKey(key: string): Promise<boolean> {
    return this.store.keys.revokeByHash(sha256(key), this.clock.now());
  }

  async getAccount(accountId: string): Promise<Account | null> {
    return this.store.accounts.get(accountId);
  }

  async updateAccount(accountId: string, patch: Parameters<Store['accounts']['update']>[1]): Promise<void> {
    if (!(await this.store.accounts.get(accountId))) throw new ServiceError('NOT_FOUND', `No account ${accountId}`);
    await this.store.accounts.update(accountId, patch);
  }

  /**
   * Resolve an API key to its principal, or 401. The transport extracts the key from its own
   * framing (HTTP: `Authorization: Bearer <key>`); the service sees only the key.
   */
  async authenticateKey(key: string): Promise<Principal> {
    if (!apiKeySchema.safeParse(key).success) throw new ServiceError('UNAUTHENTICATED', 'Invalid API key');
    const record = await this.store.keys.findActiveByHash(sha256(key));
    const account = record && (await this.store.accounts.get(record.accountId));
    if (!record || !account) throw new ServiceError('UNAUTHENTICATED', 'Invalid API key');
    return { account, keyId: record.id };
  }

  /** Effective limits of an account: the plan's, or the account's own on Enterprise. */
  limitsOf(account: Account) {
    return accountLimits(account);
  }
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
