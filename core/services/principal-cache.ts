/**
 * The principals of API keys, remembered per process by key hash: a poll no longer reads the key row and the account
 * row. A change made in this process (a key revoked, a plan or limits changed) drops what it touches at once
 * (AccountService); a change made by another process arrives through the store's PrincipalChanges (PostgreSQL
 * LISTEN/NOTIFY), or else is seen when the entry expires (the store's cacheForMs: a second on SQLite, a few seconds
 * on MongoDB, a minute on PostgreSQL for a notification lost). Unknown and revoked keys are never remembered: each
 * try reads the store.
 */
import type { ApiKeyRecord, PrincipalChanges } from '../store/types.js';

/** What is remembered of a principal (accounts.ts's Principal; generic so this file does not import it back). */
interface CachedPrincipal {
  account: { id: string };
}

interface Entry<Principal extends CachedPrincipal> {
  principal: Principal;
  record: ApiKeyRecord;
  /** performance.now() after which the entry is read again. */
  until: number;
}

/** Beyond this many keys in use at once, the oldest remembered one goes. */
const MAX_ENTRIES = 10_000;

export class PrincipalCache<Principal extends CachedPrincipal> {
  private readonly entries = new Map<string, Entry<Principal>>();
  private listening = false;
  /** Counts the changes heard: a principal read from the store before a change is not remembered after it. */
  private generation = 0;

  constructor(private readonly changes: PrincipalChanges) {}

  /** The remembered principal of the key with this hash, while it may be trusted. */
  get(hash: string): Entry<Principal> | undefined {
    if (!this.listening) {
      // Subscribed at the first use: only processes that authenticate (API servers) listen.
      this.listening = true;
      this.changes.subscribe((accountId) => {
        if (accountId !== null) return this.dropLocal(accountId);
        this.generation++;
        this.entries.clear();
      });
    }
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (performance.now() < entry.until) return entry;
    this.entries.delete(hash);
    return undefined;
  }

  /** Taken before reading the key and account rows; remember() with it is ignored if a change came in between. */
  readingFromStore(): number {
    return this.generation;
  }

  remember(hash: string, principal: Principal, record: ApiKeyRecord, readAt: number): void {
    if (readAt !== this.generation) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(hash, { principal, record, until: performance.now() + this.changes.cacheForMs() });
  }

  /** The account's keys or the account changed here: drop its principals now, and tell the other processes. */
  async accountChanged(accountId: string): Promise<void> {
    this.dropLocal(accountId);
    // The change itself is written: a notification that cannot be sent must not fail it. The database being out of
    // reach for this process, the others' listening connections are down too, and they trust nothing for long then.
    await this.changes.publish(accountId).catch(() => undefined);
  }

  private dropLocal(accountId: string): void {
    this.generation++;
    for (const [hash, entry] of this.entries) if (entry.principal.account.id === accountId) this.entries.delete(hash);
  }
}
