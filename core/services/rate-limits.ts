/**
 * Per-key requests-per-minute, counted by the store's `rates` port: in the database with PostgreSQL or MongoDB, so
 * every API instance shares the count; in memory for the embedded server, the one API process on its DATA_DIR
 * (apps/shared/data-dir-lock.ts), which saves a write per request (counts restart with the process).
 * Fixed one-minute windows: simple, exact across instances, and what "requests per minute" says.
 * Browser sessions count per account: however many tabs or sessions, the web app gets one budget,
 * beside each key's own: the plan's rate, but at least SESSION_MIN_PER_MINUTE, since a page asks
 * several small queries per screen where an API client makes one call per file. Sign-in, sign-up
 * and mail attempts are counted the same way under their own keys (`attempt`).
 */
import type { CreditsStore } from '../store/types.js';
import type { Principal, AccountService } from './accounts.js';
import type { Clock } from './clock.js';
import { ServiceError } from './errors.js';

export interface RateState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  /** Length of the window the limit counts over, in seconds. */
  windowSeconds: number;
}

const WINDOW_MS = 60_000;
/** The least a browser session may send per minute, whatever the plan (see above). */
export const SESSION_MIN_PER_MINUTE = 120;

export class RateLimitService {
  private lastPrune = 0;

  private readonly creditsStore: CreditsStore;

  constructor(
    ports: { credits: CreditsStore },
    private readonly accounts: AccountService,
    private readonly clock: Clock,
  ) {
    this.creditsStore = ports.credits;
  }

  /** Count one request; throws RATE_LIMITED (with the state) past the plan's limit. */
  async hit(principal: Principal): Promise<RateState> {
    return this.charge(principal, 1);
  }

  /**
   * Count `weight` requests at once: a request doing the work of several (a GraphQL operation
   * with several root fields, a tRPC batch) counts as that many. Throws RATE_LIMITED past the limit.
   */
  async charge(principal: Principal, weight: number): Promise<RateState> {
    const now = this.clock.now().getTime();
    const windowStart = now - (now % WINDOW_MS);
    const planLimit = this.accounts.limitsOf(principal.account).requestsPerMinute;
    const limit = principal.session ? Math.max(planLimit, SESSION_MIN_PER_MINUTE) : planLimit;
    const key = principal.session ? `session:${principal.account.id}` : principal.keyId;
    // The store counts one at a time; a weight is bounded by the request limits (at most a few dozen).
    const count =
      weight < 2
        ? await this.creditsStore.rates.hit(key, windowStart)
        : Math.max(
            ...(await Promise.all(
              Array.from({ length: Math.floor(weight) }, () => this.creditsStore.rates.hit(key, windowStart)),
            )),
          );
    const state: RateState = {
      limit,
      remaining: Math.max(0, limit - count),
      resetSeconds: Math.ceil((windowStart + WINDOW_MS - now) / 1000),
      windowSeconds: WINDOW_MS / 1000,
    };
    if (windowStart - this.lastPrune >= 10 * WINDOW_MS) {
      this.lastPrune = windowStart;
      await this.creditsStore.rates.deleteBefore(windowStart - WINDOW_MS);
    }
    if (count > limit) {
      throw new ServiceError(
        'RATE_LIMITED',
        `Rate limit of ${limit} requests per minute exceeded; retry after ${state.resetSeconds} s`,
        {
          retryAfterSeconds: state.resetSeconds,
          rate: state,
        },
      );
    }
    return state;
  }

  /**
   * Count one attempt at something abusable (sign-in per e-mail and per address, sign-up, mail)
   * under `key`; RATE_LIMITED past `perMinute` in the current minute.
   */
  async attempt(key: string, perMinute: number, message: string): Promise<void> {
    const now = this.clock.now().getTime();
    const windowStart = now - (now % WINDOW_MS);
    const count = await this.creditsStore.rates.hit(key, windowStart);
    if (count > perMinute) {
      const retryAfterSeconds = Math.ceil((windowStart + WINDOW_MS - now) / 1000);
      throw new ServiceError('RATE_LIMITED', `${message}; try again in ${retryAfterSeconds} s`, { retryAfterSeconds });
    }
  }
}
