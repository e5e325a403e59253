/**
 * Service errors as GraphQL errors: `extensions.code` by meaning (the REST status's meaning).
 * Errors of a whole request (key, rate limit, malformed upload) also carry the HTTP status;
 * errors of one field stay 200 as GraphQL has it, except UNAVAILABLE (a backend that did not answer): it carries
 * the 503 and Retry-After wherever it happens, since the request is worth retrying whole. Anything unexpected is
 * masked.
 *
 * Errors are made with Yoga's createGraphQLError so they are instances of the `graphql` module
 * Yoga checks against, even where a bundler (vitest) loads `graphql` twice.
 */
import type { GraphQLError } from 'graphql';
import { createGraphQLError, maskError as yogaMaskError, type YogaServerOptions } from 'graphql-yoga';
import { HTTP_STATUS, ServiceError, expectedError, type ServiceErrorCode } from '../../../core/services/index.js';
import { extensionsOf } from './codes.js';
import type { WarningLog } from '../../../core/services/unavailable.js';

/** Failures worth retrying whole, wherever they happen: they carry their HTTP status (503, 507). */
const wholeRequest = new Set<ServiceErrorCode>(['UNAVAILABLE', 'INSUFFICIENT_STORAGE']);

/** The REST status and headers of `error`, as Yoga sets them on the HTTP answer. */
function httpOf(error: ServiceError) {
  const retryAfter = error.detail.retryAfterSeconds;
  return {
    status: HTTP_STATUS[error.code],
    ...(retryAfter !== undefined ? { headers: { 'Retry-After': String(retryAfter) } } : {}),
  };
}

/** A failure of the whole request: answered with the REST status and headers. */
export function requestError(error: ServiceError): GraphQLError {
  return createGraphQLError(error.message, { extensions: { ...extensionsOf(error), http: httpOf(error) } });
}

type MaskError = NonNullable<
  NonNullable<Exclude<YogaServerOptions<object, object>['maskedErrors'], boolean | undefined>>['maskError']
>;

/**
 * A resolver's ServiceError keeps its message and gains its code; a backend that did not answer becomes
 * UNAVAILABLE (logged on `log` as a warning); anything else goes to Yoga's masking.
 */
export const maskErrorLogging =
  (log?: WarningLog): MaskError =>
  (error, message, isDev) => {
    const located = error as Partial<GraphQLError>;
    const cause = expectedError(error instanceof ServiceError ? error : (located.originalError ?? error), log);
    if (cause) {
      return createGraphQLError(cause.message, {
        ...(located.nodes ? { nodes: located.nodes } : {}),
        ...(located.path ? { path: located.path } : {}),
        extensions: { ...extensionsOf(cause), ...(wholeRequest.has(cause.code) ? { http: httpOf(cause) } : {}) },
      });
    }
    return yogaMaskError(error, message, isDev);
  };

export const maskError: MaskError = maskErrorLogging();
