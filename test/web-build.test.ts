/**
 * The web app's build and serving, without a browser: its GraphQL documents typecheck against
 * the current schema/schema.graphql (gql.tada), and the server serves it under `/` without
 * shadowing the API: client routes answer the app's HTML with a CSP, assets are cached for good,
 * and every other path keeps its own answer.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEB_DIST } from '../apps/server/web.js';
import { ROOT, startServer, type TestServer } from './helpers.js';

const run = promisify(execFile);
const bin = (name: string) => path.join(ROOT, 'node_modules/.bin', name);

describe('web app build', () => {
  it('typechecks against the current GraphQL schema', async () => {
    await run(bin('gql-tada'), ['generate-output', '--tsconfig', 'apps/web/tsconfig.json'], { cwd: ROOT });
    const result = await run(bin('tsc'), ['--noEmit', '-p', 'apps/web'], { cwd: ROOT }).catch(
      (error: { stdout: string }) => error,
    );
    expect('stdout' in result ? result.stdout : '', 'apps/web type errors').toBe('');
  }, 240_000);
});

describe('web app served under /', () => {
  let server: TestServer;
  beforeAll(async () => {
    // npm test's set-up builds it (scripts/setup.sh); say so when it is missing.
    if (!existsSync(path.join(WEB_DIST, 'index.html')))
      throw new Error('apps/web/dist is missing: run `npm run setup` to build the web app');
    server = await startServer();
  });
  afterAll(() => server?.close());

  it('answers each client route with the app, under a strict CSP', async () => {
    for (const route of ['/', '/convert', '/account', '/signin', '/signup', '/verify?token=abc']) {
      const response = await fetch(`${server.url}${route}`);
      expect(response.status, route).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
      const html = await response.text();
      expect(html).toContain('<div id="app">');
      // Everything comes from this server: no CDN at run time.
      expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    }
  });

  it('serves the hashed assets with a long cache life', async () => {
    const [script] = (await readdir(path.join(WEB_DIST, 'assets'))).filter((name) => name.endsWith('.js'));
    const response = await fetch(`${server.url}/assets/${script}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/javascript/);
    expect(response.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${server.url}/assets/nothing-here.js`)).status).toBe(404);
  });

  it('leaves the API, docs and health paths alone', async () => {
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: 'ok' });
    const missing = await fetch(`${server.url}/api/v1/nothing`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/json/);
    expect((await fetch(`${server.url}/api/v1/credits`)).status).toBe(401);
    expect((await fetch(`${server.url}/docs`)).headers.get('content-type')).toMatch(/^text\/html/);
    const graphql = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(graphql.headers.get('content-type')).toMatch(/json/);
    // An unknown page is not the app: the API's JSON 404.
    expect((await fetch(`${server.url}/no-such-page`)).status).toBe(404);
  });
});
