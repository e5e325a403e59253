/** The tRPC context: the services and the caller, as the transport authenticated it. */
import { ServiceError, type Principal, type Services } from '../../../core/services/index.js';
import type { WarningLog } from '../../../core/services/unavailable.js';

export interface TrpcContext {
  services: Services;
  /**
   * The caller: the principal the transport's hook (../auth.ts) resolved from the key and counted
   * against the rate limit, once per HTTP request however many procedures it carries; or why there
   * is none, which every authenticated procedure raises (UNAUTHORIZED, TOO_MANY_REQUESTS).
   */
  caller: Principal | ServiceError;
  /** The request's logger: a backend that did not answer is logged there as a warning (a 503). */
  log?: WarningLog;
}

const anonymous = () => new ServiceError('UNAUTHENTICATED', 'Missing API key: send Authorization: Bearer <API_KEY>');

/**
 * In-process calls (tests, scripts) pass the principal themselves:
 * `createCaller(createTrpcContext(services, await services.accounts.authenticateKey(key)))`.
 */
export function createTrpcContext(
  services: Services,
  caller: Principal | ServiceError = anonymous(),
  log?: WarningLog,
): TrpcContext {
  return { services, caller, ...(log ? { log } : {}) };
}
