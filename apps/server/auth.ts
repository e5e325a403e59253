/**
 * The transport's one authentication path, for `/api`, `/graphql` and `/trpc` alike: a Fastify
 * `onRequest` hook (before any body is read) takes the key from `Authorization: Bearer <key>`,
 * has AccountService resolve it to a principal, counts the request against the plan's rate limit
 * (RateLimitService) and sends the rate headers. The principal is put on the request; the
 * surfaces read it from there (REST routes, GraphQL and tRPC context) and never parse a header.
 *
 * Routes say how a failure is answered, in their route config:
 * - `auth: 'required'` (the default): the hook answers it, as REST `{error}` with the status.
 * - `auth: 'in-band'` (GraphQL, tRPC): the failure is kept on the request and the surface raises it
 *   in its own protocol (GraphQL `extensions.code`, TRPCError), with the same status.
 * - `auth: 'public'`: no key, no count (downloads: the token is the credential).
 */
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { ServiceError, type Principal, type Services } from '../../core/services/index.js';
import type { RateState } from '../../core/services/rate-limits.js';

export type AuthMode = 'required' | 'in-band' | 'public';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthMode;
  }
  interface FastifyRequest {
    /** The caller, once the hook authenticated the key and counted the request. */
    principal?: Principal;
    /** Why there is no principal (an `in-band` route raises it itself). */
    authFailure?: ServiceError;
  }
}

/** The key of an `Authorization: Bearer <key>` header (RFC 6750 §2.1: the scheme is case-insensitive). */
export function bearerKey(authorization: string | undefined): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) throw new ServiceError('UNAUTHENTICATED', 'Missing API key: send Authorization: Bearer <API_KEY>');
  return match[1]!;
}

/**
 * Rate headers: the current IETF draft's (draft-ietf-httpapi-ratelimit-headers-11) `RateLimit-Policy`
 * and `RateLimit`, and the earlier drafts' three `RateLimit-*` fields that existing clients read.
 */
export function setRateHeaders(reply: FastifyReply, rate: RateState): void {
  reply
    .header('RateLimit-Policy', `"default";q=${rate.limit};w=${rate.windowSeconds}`)
    .header('RateLimit', `"default";r=${rate.remaining};t=${rate.resetSeconds}`)
    .header('RateLimit-Limit', rate.limit)
    .header('RateLimit-Remaining', rate.remaining)
    .header('RateLimit-Reset', rate.resetSeconds);
}

/** The hook: authenticate, count, and leave the principal (or the failure) on the request. */
export function authenticateRequests(services: Services): onRequestAsyncHookHandler {
  return async function authenticate(request, reply) {
    const mode = request.routeOptions.config.auth ?? 'required';
    if (mode === 'public') return;
    try {
      const principal = await services.accounts.authenticateKey(bearerKey(request.headers.authorization));
      request.log = request.log.child({ accountId: principal.account.id });
      setRateHeaders(reply, await services.rateLimits.hit(principal));
      request.principal = principal;
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      if (error.detail.rate) setRateHeaders(reply, error.detail.rate);
      if (error.detail.retryAfterSeconds !== undefined) reply.header('Retry-After', error.detail.retryAfterSeconds);
      if (mode !== 'in-band') throw error;
      request.authFailure = error;
    }
  };
}

/** The authenticated caller of a request, or the authentication failure (a ServiceError). */
export function principalOf(request: FastifyRequest): Principal {
  if (request.principal) return request.principal;
  if (request.authFailure) throw request.authFailure;
  throw new Error(`route ${request.routeOptions.url} is not authenticated`);
}
