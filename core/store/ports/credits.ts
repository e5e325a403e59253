/**
 * Credits: usage per period, free trials and request-rate windows: the records and repository ports of this aggregate.
 */

export interface UsageRecord {
  accountId: string;
  period: string;
  used: number;
}

export type ChargeResult = { ok: true; used: number } | { ok: false; used: number };

/** The one free extraction call per tool for non-paid accounts. */
export interface TrialRepo {
  /** Atomically take the trial; false when it was already taken. */
  claim(accountId: string, tool: string, at: Date): Promise<boolean>;
  /** Give it back (the trial job failed). */
  release(accountId: string, tool: string): Promise<void>;
}

export interface UsageRepo {
  get(accountId: string, period: string): Promise<UsageRecord>;
  /**
   * Atomically add `cost` to the period's usage if `used + cost <= limit` (limit null = no cap).
   * One conditional write: never read-then-write.
   */
  charge(accountId: string, period: string, cost: number, limit: number | null): Promise<ChargeResult>;
  refund(accountId: string, period: string, cost: number): Promise<void>;
  set(accountId: string, period: string, used: number): Promise<void>;
}

export interface RateRepo {
  /** Count one request in the window starting at windowStart (ms); returns the count after it. */
  hit(key: string, windowStart: number): Promise<number>;
  deleteBefore(windowStart: number): Promise<void>;
}

/** What every adapter provides for this aggregate. */
export interface CreditsStore {
  readonly usage: UsageRepo;
  readonly trials: TrialRepo;
  readonly rates: RateRepo;
}
