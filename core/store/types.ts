/**
 * Repository ports, one per aggregate (ports/*.ts). Services talk to these only, each to the aggregates it uses;
 * sqlite/, postgres/ and mongo/ implement them, one file per aggregate, and every adapter passes the shared suites
 * in testing/suite/ (one per aggregate).
 */
import type { AccountsStore } from './ports/accounts.js';
import type { CreditsStore } from './ports/credits.js';
import type { JobsStore } from './ports/jobs.js';
import type { LinksStore } from './ports/links.js';
import type { WebhooksStore } from './ports/webhooks.js';

export * from './ports/accounts.js';
export * from './ports/jobs.js';
export * from './ports/credits.js';
export * from './ports/links.js';
export * from './ports/webhooks.js';

/**
 * How a process hears that another process changed an API key or an account, so that a principal it remembers
 * (AccountService's per-process cache) is dropped. Each adapter says how it hears and how long a remembered
 * principal may be trusted without word of a change.
 */
export interface PrincipalChanges {
  /** How long (ms) a cached principal may serve requests: the bound on a change made elsewhere going unseen. */
  cacheForMs(): number;
  /** Tell the other processes that the account (its keys, plan, limits or status) changed; no-op without a channel. */
  publish(accountId: string): Promise<void>;
  /**
   * Hear the changes other processes publish: an account id, or null when any account may have changed (the channel
   * was down). Returns the unsubscribe.
   */
  subscribe(listener: (accountId: string | null) => void): () => void;
}

/**
 * One adapter's aggregates, by name, plus what the process needs of the database as a whole. Only the composition
 * root holds it: it hands each service the aggregates that service uses.
 */
export interface Store {
  readonly accounts: AccountsStore;
  readonly jobs: JobsStore;
  readonly credits: CreditsStore;
  readonly links: LinksStore;
  readonly webhooks: WebhooksStore;
  readonly principalChanges: PrincipalChanges;
  /** Cheap round trip for /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
