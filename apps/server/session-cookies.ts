/**
 * The browser session's two cookies, set by the GraphQL signIn/signUp mutations and read by the
 * transport's hook (auth.ts):
 * - `transmute_session`: the session token; HttpOnly, so page scripts never see it.
 * - `transmute_csrf`: the session's CSRF token, readable by the page, which sends it back as the
 *   `X-CSRF-Token` header on every mutation (a page of another site can neither read it nor set
 *   the header without a CORS preflight this server does not grant with credentials).
 * Both are SameSite=Lax, Path=/, and Secure when the service is reached over HTTPS (PUBLIC_URL
 * https, or the request came over TLS, directly or through a proxy's X-Forwarded-Proto).
 */
import type {} from '@fastify/cookie'; // request.cookies, reply.setCookie
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SessionGrant } from '../../core/services/sessions.js';

export const SESSION_COOKIE = 'transmute_session';
export const CSRF_COOKIE = 'transmute_csrf';
/** As Node presents it: lower case. */
export const CSRF_HEADER = 'x-csrf-token';

export interface CookiePolicy {
  publicUrl: string;
}

function attributes(request: FastifyRequest, policy: CookiePolicy, expires: Date) {
  const secure = request.protocol === 'https' || policy.publicUrl.startsWith('https:');
  return { path: '/', sameSite: 'lax' as const, secure, expires };
}

function setBoth(
  request: FastifyRequest,
  reply: FastifyReply,
  policy: CookiePolicy,
  token: string,
  csrfToken: string,
  expires: Date,
): void {
  reply.setCookie(SESSION_COOKIE, token, { ...attributes(request, policy, expires), httpOnly: true });
  reply.setCookie(CSRF_COOKIE, csrfToken, { ...attributes(request, policy, expires), httpOnly: false });
}

export function startSessionCookies(
  request: FastifyRequest,
  reply: FastifyReply,
  policy: CookiePolicy,
  grant: SessionGrant,
): void {
  setBoth(request, reply, policy, grant.token, grant.csrfToken, grant.expiresAt);
}

/** The session slid forward: so do its cookies (same values). */
export function renewSessionCookies(
  request: FastifyRequest,
  reply: FastifyReply,
  policy: CookiePolicy,
  token: string,
  expires: Date,
): void {
  const csrfToken = request.cookies[CSRF_COOKIE];
  if (csrfToken) setBoth(request, reply, policy, token, csrfToken, expires);
}

export function clearSessionCookies(request: FastifyRequest, reply: FastifyReply, policy: CookiePolicy): void {
  const gone = new Date(0);
  reply.setCookie(SESSION_COOKIE, '', { ...attributes(request, policy, gone), httpOnly: true });
  reply.setCookie(CSRF_COOKIE, '', { ...attributes(request, policy, gone), httpOnly: false });
}
