/**
 * JSON bodies are checked before they are parsed (apps/server/json-body.ts): a caller without a key or a session
 * sends at most 64 KB, and no caller's body may nest arrays and objects deeper than 64 levels, on every JSON
 * route (GraphQL, tRPC, the pipelines route). A deep body is what makes parsing expensive: refused unparsed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANONYMOUS_JSON_LIMIT_BYTES, MAX_JSON_DEPTH } from '../apps/server/json-body.js';
import { startServer, type TestServer } from './helpers.js';

let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startServer();
  key = await server.createKey('business');
}, 60_000);

afterAll(async () => {
  await server?.close();
});

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

async function post(path: string, body: string, withKey: boolean): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(withKey ? { authorization: `Bearer ${key}` } : {}),
      // GraphQL's CSRF guard for requests without a session.
      'graphql-require-preflight': '1',
    },
    body,
  });
  const text = await res.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = { raw: text };
  }
  return { status: res.status, body: parsed };
}

describe('JSON bodies before parsing', () => {
  it('without a key: a 1 MB body nested 500,000 deep is refused unread as too large (413)', async () => {
    const { status, body } = await post('/graphql', nested(500_000), false);
    expect(status).toBe(413);
    expect(body.error).toMatch(/without an API key.*64 KB/);
  });

  it('without a key: a flat body over 64 KB is refused (413), one under it is answered', async () => {
    const big = JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(ANONYMOUS_JSON_LIMIT_BYTES) } });
    expect((await post('/graphql', big, false)).status).toBe(413);
    const small = await post('/graphql', JSON.stringify({ query: '{ __typename }' }), false);
    expect(small.status).toBe(200);
    expect(small.body.data).toEqual({ __typename: 'Query' });
  });

  it('without a key: a small body nested too deep is refused (400) naming the depth', async () => {
    const { status, body } = await post('/graphql', nested(MAX_JSON_DEPTH + 1), false);
    expect(status).toBe(400);
    expect(body.error).toMatch(new RegExp(`deeper than ${MAX_JSON_DEPTH} levels`));
  });

  it('with a key: GraphQL, tRPC and pipelines refuse a body nested too deep (400), take one within it', async () => {
    const deep = (depth: number) =>
      JSON.stringify({ query: '{ __typename }', variables: { x: JSON.parse(nested(depth)) } });
    const refusedGraphql = await post('/graphql', deep(MAX_JSON_DEPTH + 5), true);
    expect(refusedGraphql.status).toBe(400);
    expect(refusedGraphql.body.error).toMatch(/deeper than/);
    const taken = await post('/graphql', deep(MAX_JSON_DEPTH - 5), true);
    expect(taken.status).toBe(200);
    expect(taken.body.data).toEqual({ __typename: 'Query' });

    const refusedTrpc = await post('/trpc/credits.get', nested(1_000), true);
    expect(refusedTrpc.status).toBe(400);
    expect(refusedTrpc.body.error).toMatch(/deeper than/);

    const refusedPipeline = await post('/api/v1/pipelines', `{"steps":${nested(100_000)}}`, true);
    expect(refusedPipeline.status).toBe(400);
    expect(refusedPipeline.body.error).toMatch(/deeper than/);
    // A body within the limit reaches the route (which names what is missing).
    const reached = await post('/api/v1/pipelines', '{"steps":[{"to":"pdf"}]}', true);
    expect(reached.status).toBe(400);
    expect(reached.body.error).not.toMatch(/deeper than/);
  });

  it('strings holding brackets are not nesting', async () => {
    const text = JSON.stringify({ query: '{ __typename }', variables: { s: '['.repeat(10_000) } });
    const { status } = await post('/graphql', text, true);
    expect(status).toBe(200);
  });
});
