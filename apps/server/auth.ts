/**
 * The transport's one authentication path, for `/api`, `/graphql` and `/trpc` alike: a Fastify
 * `onRequest` hook (before any body is read) takes the key from `Authorization: Bearer <key>`,
 * has AccountService resolve it to a principal, counts the request against the plan's rate limit
 * (RateLimitService) and sends the rate headers. The principal is put on the request; the
 * surfaces read it from there (REST routes, GraphQL and tRPC context) and never parse a header.
 *
 * Without an Authorization header, the browser session cookie (`transmute_session`, set by the
 * GraphQL signIn/signUp mutations, see session-cookies.ts) stands in for the key: the principal
 * acts for the session's account, counted per account. A request it authenticates with any
 * method but GET/HEAD/OPTIONS must carry `X-CSRF-Token` equal to the `transmute_csrf` cookie and
 * to the session's own CSRF token (double submit, bound to the session), or it is refused 403.
 * A stale session cookie is cleared and the request goes on as one without credentials.
 *
 * Routes say how a failure is answered, in their route config:
 * - `auth: 'required'` (the default): the hook answers it, as REST `{error}` with the status.
 * - `auth: 'in-band'` (GraphQL, tRPC): the failure is kept on the request and the surface raises it
 *   in its own protocol (GraphQL `extensions.code`, TRPCError), with the same status.
 * - `auth: 'public'`: no key, no count (downloads: the token is the credential).
 */
import type { FastifyBaseLogger, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { ServiceError, expectedError, type Principal, type Services } from '../../core/services/index.js';
import type { RateState } from '../../core/services/rate-limits.js';
import {
  CSRF_COOKIE,
  CSRF_HEADER,
  SESSION_COOKIE,
  clearSessionCookies,
  renewSessionCookies,
  type CookiePolicy,
} from './session-cookies.js';

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
    /**
     * The request came with no credentials at all (no key, no live session): GraphQL may still answer it (sign-in,
     * `me`).
     */
    anonymous?: boolean;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const CSRF_FAILURE = 'Missing or wrong CSRF token';

/** The key of an `Authorization: Bearer <key>` header (RFC 6750 §2.1: the scheme is case-insensitive). */
export function bearerKey(authorization: string | undefined): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) throw new ServiceError('UNAUTHENTICATED', 'Missing API key: send Authorization: Bearer <API_KEY>');
  return match[1]!;
}

/**
 * The `WWW-Authenticate` challenge of a 401 (RFC 6750 §3): `Bearer realm="transmute"`, with
 * `error="invalid_token"` when a key was sent but is not valid.
 */
export function bearerChallenge(request: FastifyRequest): string {
  return request.headers.authorization === undefined
    ? 'Bearer realm="transmute"'
    : 'Bearer realm="transmute", error="invalid_token"';
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

/**
 * The principal of the request's session cookie (null without a live one), refusing an unsafe method without the CSRF
 * token.
 */
async function sessionPrincipal(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  cookies: CookiePolicy,
): Promise<Principal | null> {
  const token = request.cookies[SESSION_COOKIE];
  if (!token) return null;
  const authenticated = await services.sessions.authenticate(token);
  if (!authenticated) {
    clearSessionCookies(request, reply, cookies);
    return null;
  }
  const { principal, renewedUntil } = authenticated;
  if (!SAFE_METHODS.has(request.method)) {
    const sent = request.headers[CSRF_HEADER];
    const header = Array.isArray(sent) ? undefined : sent;
    if (
      !header ||
      header !== request.cookies[CSRF_COOKIE] ||
      !services.sessions.checkCsrf(principal.session!, header)
    ) {
      // A jar holding the session without its CSRF cookie can never send a mutation again (the
      // page cannot rewrite an HttpOnly cookie): it is cleared so the next sign-in starts afresh.
      if (!request.cookies[CSRF_COOKIE]) clearSessionCookies(request, reply, cookies);
      throw new ServiceError('FORBIDDEN', CSRF_FAILURE);
    }
  }
  if (renewedUntil) renewSessionCookies(request, reply, cookies, token, renewedUntil);
  return principal;
}

/** The hook: authenticate, count, and leave the principal (or the failure) on the request. */
export function authenticateRequests(services: Services, cookies: CookiePolicy): onRequestAsyncHookHandler {
  return async function authenticate(request, reply) {
    const mode = request.routeOptions.config.auth ?? 'required';
    if (mode === 'public') return;
    try {
      const session =
        request.headers.authorization === undefined ? await sessionPrincipal(services, request, reply, cookies) : null;
      if (!session && request.headers.authorization === undefined) request.anonymous = true;
      const principal = session ?? (await services.accounts.authenticateKey(bearerKey(request.headers.authorization)));
      request.anonymous = false;
      // The request's own child logger (Fastify makes one per request) gains the account: no second child.
      const log = request.log as FastifyBaseLogger & { setBindings?: (bindings: object) => void };
      if (log.setBindings) log.setBindings({ accountId: principal.account.id });
      else request.log = request.log.child({ accountId: principal.account.id });
      setRateHeaders(reply, await services.rateLimits.hit(principal));
      request.principal = principal;
    } catch (thrown) {
      // A store that did not answer is an UNAVAILABLE failure (503), raised by in-band surfaces in their own terms.
      const error = expectedError(thrown, request.log);
      if (!error) throw thrown;
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
