/** The tRPC context: the services and a once-per-request caller check. */
import type { Principal, Services } from '../../../core/services/index.js';
import type { RateState } from '../../../core/services/rate-limits.js';

export interface TrpcContext {
  services: Services;
  /**
   * The caller: the bearer key authenticated and the request counted against the plan's rate
   * limit, once per HTTP request however many procedures (batch) or uploads ask.
   */
  authenticate(): Promise<Principal>;
}

export function createTrpcContext(services: Services, authorization: string | undefined, onRate?: (rate: RateState) => void): TrpcContext {
  let caller: Promise<Principal> | undefined;
  return {
    services,
    authenticate: () =>
      (caller ??= (async () => {
        const principal = await services.accounts.authenticate(authorization);
        const rate = await services.rateLimits.hit(principal);
        onRate?.(rate);
        return principal;
      })()),
  };
}
