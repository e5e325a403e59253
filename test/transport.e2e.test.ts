/**
 * The transport layer shared by REST, GraphQL and tRPC: one authentication and rate-limit path.
 * Every authenticated answer carries the rate headers, the current IETF draft's
 * (draft-ietf-httpapi-ratelimit-headers-11) `RateLimit-Policy` and `RateLimit` and the legacy
 * `RateLimit-Limit/-Remaining/-Reset`; a request past the limit is a 429 with `Retry-After` on
 * every surface, each in its own error format; routes without a key carry none of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import slowText from './fixtures/plugins/slow-text.js';
import { authHeaders, startServer, type TestServer, withinOneRateWindow } from './helpers.js';

type Surface = 'REST' | 'GraphQL' | 'tRPC';

/** One authenticated read on a surface (the credits balance), as a client would send it. */
function call(url: string, surface: Surface, key: string | undefined): Promise<Response> {
  if (surface === 'REST') return fetch(`${url}/api/v1/credits`, { headers: authHeaders(key) });
  if (surface === 'GraphQL') {
    return fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authHeaders(key) },
      body: JSON.stringify({ query: '{ credits { plan } }' }),
    });
  }
  return fetch(`${url}/trpc/credits.get`, { headers: authHeaders(key) });
}

/** The rate headers of an answer, parsed: the draft's fields and the legacy ones. */
function rateHeaders(res: Response) {
  const policy = /^"default";q=(\d+);w=(\d+)$/.exec(res.headers.get('ratelimit-policy') ?? '');
  const current = /^"default";r=(\d+);t=(\d+)$/.exec(res.headers.get('ratelimit') ?? '');
  return {
    policy: policy ? { q: Number(policy[1]), w: Number(policy[2]) } : null,
    current: current ? { r: Number(current[1]), t: Number(current[2]) } : null,
    legacy: {
      limit: Number(res.headers.get('ratelimit-limit')),
      remaining: Number(res.headers.get('ratelimit-remaining')),
      reset: Number(res.headers.get('ratelimit-reset')),
    },
  };
}

/** The error an answer carries, in its surface's format. */
async function errorCode(surface: Surface, res: Response): Promise<string | undefined> {
  const body = (await res.json()) as any;
  if (surface === 'REST') return typeof body.error === 'string' ? `${res.status}` : undefined;
  if (surface === 'GraphQL') return body.errors?.[0]?.extensions?.code;
  return body.error?.data?.code;
}

const SURFACES: Surface[] = ['REST', 'GraphQL', 'tRPC'];

describe('one transport layer for REST, GraphQL and tRPC', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({ plugins: [slowText] });
  });
  afterAll(() => server?.close());

  for (const surface of SURFACES) {
    it(`${surface}: rate headers on every authenticated answer, both drafts, counting down one window`, async () => {
      const key = await server.createKey('pro');
      await withinOneRateWindow();
      const first = await call(server.url, surface, key);
      const second = await call(server.url, surface, key);
      expect(first.status).toBe(200);
      expect(second.status).toBe(200);
      const a = rateHeaders(first);
      const b = rateHeaders(second);
      expect(a.policy).toEqual({ q: 120, w: 60 });
      expect(a.current).toMatchObject({ r: 119 });
      expect(a.legacy).toMatchObject({ limit: 120, remaining: 119 });
      expect(a.current!.t).toBe(a.legacy.reset);
      expect(a.current!.t).toBeGreaterThan(0);
      expect(a.current!.t).toBeLessThanOrEqual(60);
      // The same count, whichever surface asks: one key, one window.
      expect(b.current!.r).toBe(118);
      expect(b.legacy.remaining).toBe(118);
    });

    const rateLimitTitle = `${surface}: past the limit, a 429 with Retry-After and the rate headers`;
    it(`${rateLimitTitle}, in the surface's error format`, async () => {
      const key = await server.createKey('free');
      await withinOneRateWindow();
      for (let i = 0; i < 30; i++) expect((await call(server.url, surface, key)).status).toBe(200);
      const limited = await call(server.url, surface, key);
      expect(limited.status).toBe(429);
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      const rate = rateHeaders(limited);
      expect(rate.policy).toEqual({ q: 30, w: 60 });
      expect(rate.current).toEqual({ r: 0, t: retryAfter });
      expect(rate.legacy).toEqual({ limit: 30, remaining: 0, reset: retryAfter });
      expect(await errorCode(surface, limited)).toBe(
        { REST: '429', GraphQL: 'RATE_LIMITED', tRPC: 'TOO_MANY_REQUESTS' }[surface],
      );
    });

    it(`${surface}: a missing or unknown key is refused in the surface's format, with no rate headers`, async () => {
      for (const key of [undefined, `ck_live_${'A'.repeat(43)}`]) {
        const res = await call(server.url, surface, key);
        expect(res.status).toBe(401);
        expect(res.headers.get('ratelimit')).toBeNull();
        expect(await errorCode(surface, res)).toBe(
          { REST: '401', GraphQL: 'UNAUTHENTICATED', tRPC: 'UNAUTHORIZED' }[surface],
        );
      }
    });
  }

  it('counts a request once, whichever surface it comes through', async () => {
    const key = await server.createKey('pro');
    const remaining = [];
    for (const surface of SURFACES) remaining.push(rateHeaders(await call(server.url, surface, key)).legacy.remaining);
    expect(remaining).toEqual([119, 118, 117]);
  });

  it('asks no key of health, the API description and downloads, and sends them no rate headers', async () => {
    for (const route of ['/healthz', '/api/openapi.json', '/docs', '/api/download/not-a-token']) {
      const res = await fetch(`${server.url}${route}`);
      expect(res.status, route).not.toBe(401);
      expect(res.headers.get('ratelimit-policy'), route).toBeNull();
    }
  });

  it("documents both drafts' rate headers in the OpenAPI document", async () => {
    const doc = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as any;
    const credits = doc.paths['/api/v1/credits'].get.responses['200'];
    expect(Object.keys(credits.headers)).toEqual([
      'RateLimit-Policy',
      'RateLimit',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
    ]);
    expect(Object.keys(doc.components.headers)).toEqual(
      expect.arrayContaining(['RateLimit-Policy', 'RateLimit', 'Retry-After']),
    );
  });

  it('refuses an upload without a key before reading it, on every surface', async () => {
    const form = new FormData();
    form.append('to', 'md');
    form.append('file', new Blob([Buffer.alloc(2_000_000, 'a')]), 'big.txt');
    for (const target of ['/api/v1/convert', '/trpc/convert']) {
      const res = await fetch(`${server.url}${target}`, { method: 'POST', body: form });
      expect(res.status, target).toBe(401);
      expect(res.headers.get('connection'), target).toBe('close');
    }
  });
});
