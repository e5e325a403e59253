/**
 * 405 for a known path asked with a method it does not take (`GET /api/v1/convert`), with the
 * `Allow` header RFC 9110 §15.5.6 requires; 404 stays for paths nothing serves. Fastify answers
 * both with its not-found handler, so the routes are recorded as they are registered and the
 * handler asks which methods the request's path has. Wildcard routes (static assets) are left out:
 * they do not make every path below them "known".
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { redactUrl } from '../shared/logging.js';

interface KnownPath {
  pattern: RegExp;
  methods: Set<string>;
}

/** `/api/batch/:id/download` → a regular expression matching its concrete paths. */
function patternOf(url: string): RegExp {
  const escaped = url
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${escaped.join('/')}/?$`);
}

/**
 * Records every route registered after it (call before the routes); returns the answer for a
 * request no route took: 405 with `Allow` when its path has routes, else null (a 404).
 */
export function trackRoutes(
  app: FastifyInstance,
): (request: FastifyRequest, reply: FastifyReply) => FastifyReply | null {
  const paths = new Map<string, KnownPath>();
  app.addHook('onRoute', (route) => {
    if (route.url.includes('*')) return;
    const known = paths.get(route.url) ?? { pattern: patternOf(route.url), methods: new Set<string>() };
    for (const method of [route.method].flat()) known.methods.add(method.toUpperCase());
    paths.set(route.url, known);
  });
  return (request, reply) => {
    const path = request.url.split('?')[0]!;
    const allowed = new Set<string>();
    for (const known of paths.values())
      if (known.pattern.test(path)) for (const method of known.methods) allowed.add(method);
    if (!allowed.size || allowed.has(request.method)) return null;
    const allow = [...allowed].sort().join(', ');
    return reply
      .status(405)
      .header('Allow', allow)
      .send({ error: `Method ${request.method} is not allowed on ${redactUrl(path)}; allowed: ${allow}` });
  };
}
