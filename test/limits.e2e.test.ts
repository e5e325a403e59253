/**
 * Bounded GraphQL and tRPC requests: limits on tokens, aliases, depth and cost
 * per GraphQL operation and on procedures per tRPC batch, refused with a clean 400 naming the
 * limit; a request's weight counted against the rate limit; the API stays responsive while
 * clients send the query that used to stall it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_LIMITS } from '../apps/server/graphql/limits.js';
import { TRPC_MAX_BATCH } from '../apps/server/trpc/index.js';
import { authHeaders, startServer, type TestServer, withinOneRateWindow } from './helpers.js';

let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startServer();
  // An Enterprise key with a rate no test here reaches: the limits, not the rate, must refuse.
  const account = await server.createAccount('enterprise');
  await server.server.runtime.services.accounts.setLimits(account.accountId, { requestsPerMinute: 1_000_000 });
  key = account.key;
  // The first GraphQL request builds Yoga's pipeline: a warm server from the start.
  expect((await graphql('{ __typename }')).status).toBe(200);
}, 60_000);
afterAll(() => server?.close());

async function graphql(query: string, apiKey = key) {
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { ...authHeaders(apiKey), 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

const aliases = (n: number, selection: string) =>
  `{ ${Array.from({ length: n }, (_, i) => `a${i}: ${selection}`).join(' ')} }`;
/** The query an attacker would send: 3,000 aliases of the formats listing (about 180 KB). */
const STALLING_QUERY = aliases(3000, 'formats { conversions { from to } operations { op } }');

/**
 * An answer slower than this is a stalled event loop, not a loaded machine: /healthz answers in
 * milliseconds, and each stalling query used to hold the loop for 4.7 s (20 clients: over a minute).
 */
const STALLED_MS = 10_000;

/** The slowest /healthz answer (ms) while 20 clients send `query` in a loop for 3 s; every one must be a 200. */
async function healthzUnderFlood(query: string): Promise<{ worst: number; statuses: number[]; sent: number }> {
  let running = true;
  const statuses = new Set<number>();
  let sent = 0;
  // Serialised once: the clients share this process with the server, and should cost it little.
  const body = JSON.stringify({ query });
  const headers = { ...authHeaders(key), 'content-type': 'application/json' };
  const clients = Array.from({ length: 20 }, async () => {
    while (running) {
      const res = await fetch(`${server.url}/graphql`, { method: 'POST', headers, body });
      await res.arrayBuffer();
      statuses.add(res.status);
      sent += 1;
    }
  });
  const latencies: number[] = [];
  const until = Date.now() + 3000;
  while (Date.now() < until) {
    const started = performance.now();
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    await res.text();
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  running = false;
  await Promise.all(clients);
  return { worst: Math.max(...latencies), statuses: [...statuses], sent };
}

describe('GraphQL limits', () => {
  it('refuses the 3,000-alias query at once, with 400 BAD_USER_INPUT naming the token limit', async () => {
    expect(STALLING_QUERY.length).toBeGreaterThan(150_000);
    const { status, body } = await graphql(STALLING_QUERY);
    expect(status).toBe(400);
    expect(body.data).toBeUndefined();
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].message).toMatch(/Token limit of 2000 exceeded/);
    expect(body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      reason: 'MAX_TOKENS',
      limit: GRAPHQL_LIMITS.tokens,
    });
    // MAX_TOKENS is the lexer's verdict: refused before the query is parsed, validated or run (which
    // took 4.7 s).
  });

  it('refuses more aliases than the limit, under the token limit', async () => {
    const { status, body } = await graphql(aliases(GRAPHQL_LIMITS.aliases + 1, 'me { id }'));
    expect(status).toBe(400);
    expect(body.errors[0].message).toMatch(
      new RegExp(`Aliases limit of ${GRAPHQL_LIMITS.aliases} exceeded, found ${GRAPHQL_LIMITS.aliases + 1}`),
    );
    expect(body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'MAX_ALIASES' });
  });

  it('refuses a selection nested deeper than the limit', async () => {
    const deep = `{ ${'formats { '.repeat(GRAPHQL_LIMITS.depth + 2)}op${' }'.repeat(GRAPHQL_LIMITS.depth + 2)} }`;
    const { status, body } = await graphql(deep);
    expect(status).toBe(400);
    expect(body.errors[0].message).toMatch(/Query refused: .*depth/i);
    expect(body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'MAX_DEPTH' });
  });

  it('serves a query within the limits, and counts each root field against the rate limit', async () => {
    const pro = await server.createKey('pro');
    // Both requests in one rate window: across a minute boundary the count starts again.
    await withinOneRateWindow(10_000);
    const first = await graphql('{ me { id } }', pro);
    expect(first.status).toBe(200);
    const before = Number(first.headers.get('ratelimit-remaining'));
    const five = await graphql(aliases(5, 'credits { creditsRemaining }'), pro);
    expect(five.status).toBe(200);
    expect(Object.keys(five.body.data)).toHaveLength(5);
    expect(Number(five.headers.get('ratelimit-remaining'))).toBe(before - 5);
  });

  it('refuses with 429 an operation whose weight passes what is left of the minute', async () => {
    const free = await server.createKey('free'); // 30 requests a minute
    await withinOneRateWindow();
    const { status, headers } = await graphql(aliases(GRAPHQL_LIMITS.aliases, 'me { id }'), free);
    expect(status).toBe(200);
    expect(Number(headers.get('ratelimit-remaining'))).toBe(30 - GRAPHQL_LIMITS.aliases);
    const again = await graphql(aliases(GRAPHQL_LIMITS.aliases, 'me { id }'), free);
    expect(again.status).toBe(429);
    expect(again.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    expect(again.headers.get('retry-after')).toBeTruthy();
  });

  it('keeps /healthz answering while 20 clients send the stalling query in a loop', async () => {
    // Before the limits, each such request blocked the event loop for 4.7 s: /healthz waited behind
    // twenty of them. Now each is refused while lexing, and /healthz answers throughout.
    const stalling = await healthzUnderFlood(STALLING_QUERY);
    expect(stalling.statuses).toEqual([400]);
    expect(stalling.sent).toBeGreaterThan(20);
    expect(stalling.worst).toBeLessThan(STALLED_MS);
  }, 60_000);

  it('serves formats from the cached listing on every surface', async () => {
    const rest = await fetch(`${server.url}/api/v1/formats`, { headers: authHeaders(key) });
    expect(rest.status).toBe(200);
    expect(rest.headers.get('content-type')).toMatch(/^application\/json/);
    const listing = (await rest.json()) as any;
    expect(listing.conversions.png).toContain('jpg');
    const { body } = await graphql('{ formats { conversions { from to } } }');
    expect(body.data.formats.conversions.find((c: any) => c.from === 'png').to).toEqual(listing.conversions.png);
  });
});

describe('tRPC batch limit', () => {
  const batch = (n: number) =>
    `${server.url}/trpc/${Array.from({ length: n }, () => 'credits.get').join(',')}` +
    `?batch=1&input=${encodeURIComponent(JSON.stringify({}))}`;

  it('serves a batch within the limit and counts each procedure against the rate limit', async () => {
    const pro = await server.createKey('pro');
    const res = await fetch(batch(3), { headers: authHeaders(pro) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any[];
    expect(body).toHaveLength(3);
    expect(body[0].result.data.creditsIncluded).toBe(3000);
    expect(Number(res.headers.get('ratelimit-remaining'))).toBe(120 - 3);
  });

  it(`refuses a batch of more than ${TRPC_MAX_BATCH} procedures with 400 naming the limit`, async () => {
    const res = await fetch(batch(TRPC_MAX_BATCH + 1), { headers: authHeaders(key) });
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    const error = Array.isArray(body) ? body[0].error : body.error;
    expect(error.data.code).toBe('BAD_REQUEST');
    expect(error.message).toContain(`limit is ${TRPC_MAX_BATCH}`);
  });
});
