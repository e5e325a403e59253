/**
 * Service errors as GraphQL errors: `extensions.code` by meaning (the REST status's meaning).
 * Errors of a whole request (key, rate limit, malformed upload) also carry the HTTP status;
 * errors of one field stay 200 as GraphQL has it. Anything unexpected is masked.
 *
 * Errors are made with Yoga's createGraphQLError so they are instances of the `graphql` module
 * Yoga checks against, even where a bundler (vitest) loads `graphql` twice.
 */
import type { GraphQLError } from 'graphql';
import { createGraphQLError, maskError as yogaMaskError, type YogaServerOptions } from 'graphql-yoga';
import { HTTP_STATUS, ServiceError, type ServiceErrorCode } from '../../../core/services/index.js';

const GRAPHQL_CODES: Record<ServiceErrorCode, string> = {
  BAD_REQUEST: 'BAD_USER_INPUT',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  PAYMENT_REQUIRED: 'PAYMENT_REQUIRED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  GONE: 'GONE',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  RATE_LIMITED: 'RATE_LIMITED',
  CONFLICT: 'CONFLICT',
};

function extensionsOf(error: ServiceError) {
  return {
    code: GRAPHQL_CODES[error.code],
    ...(error.detail.code ? { reason: error.detail.code } : {}),
    ...(error.detail.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.detail.retryAfterSeconds } : {}),
  };
}

/** A failure of the whole request: answered with the REST status and headers. */
export function requestError(error: ServiceError): GraphQLError {
  const retryAfter = error.detail.retryAfterSeconds;
  return createGraphQLError(error.message, {
    extensions: {
      ...extensionsOf(error),
      http: {
        status: HTTP_STATUS[error.code],
        ...(retryAfter !== undefined ? { headers: { 'Retry-After': String(retryAfter) } } : {}),
      },
    },
  });
}

type MaskError = NonNullable<
  NonNullable<Exclude<YogaServerOptions<object, object>['maskedErrors'], boolean | undefined>>['maskError']
>;

/** A resolver's ServiceError keeps its message and gains its code; anything else goes to Yoga's masking. */
export const maskError: MaskError = (error, message, isDev) => {
  const located = error as Partial<GraphQLError>;
  const cause = error instanceof ServiceError ? error : located.originalError;
  if (cause instanceof ServiceError) {
    return createGraphQLError(cause.message, {
      ...(located.nodes ? { nodes: located.nodes } : {}),
      ...(located.path ? { path: located.path } : {}),
      extensions: extensionsOf(cause),
    });
  }
  return yogaMaskError(error, message, isDev);
};
