/**
 * Repository ports, one per aggregate (ports/*.ts). Services talk to these only; sqlite/ and
 * mongo/ implement them, one file per aggregate, and every adapter passes the contract suites in
 * contract/ (one per aggregate).
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

/** Every aggregate, plus what the process needs of the database as a whole. */
export interface Store extends AccountsStore, JobsStore, CreditsStore, LinksStore, WebhooksStore {
  /** Cheap round trip for /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
