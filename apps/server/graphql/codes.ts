/**
 * Service errors' codes in GraphQL's terms (`extensions.code`, by the REST status's meaning). Apart from errors.ts,
 * which needs graphql-yoga: the route (index.ts) answers failures before Yoga is loaded with these alone.
 */
import type { ServiceError, ServiceErrorCode } from '../../../core/services/index.js';

const GRAPHQL_CODES: Record<ServiceErrorCode, string> = {
  BAD_REQUEST: 'BAD_USER_INPUT',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  PAYMENT_REQUIRED: 'PAYMENT_REQUIRED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  GONE: 'GONE',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
  RATE_LIMITED: 'RATE_LIMITED',
  CONFLICT: 'CONFLICT',
  UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  INSUFFICIENT_STORAGE: 'INSUFFICIENT_STORAGE',
};

export function extensionsOf(error: ServiceError) {
  return {
    code: GRAPHQL_CODES[error.code],
    ...(error.detail.code ? { reason: error.detail.code } : {}),
    ...(error.detail.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.detail.retryAfterSeconds } : {}),
  };
}
