/**
 * The browser app (apps/web, built by scripts/setup.sh into apps/web/dist) under `/`: its hashed
 * assets under /assets/ and index.html for each client route. The routes are listed rather than
 * caught by a fallback, so nothing here can shadow /api, /graphql, /trpc, /docs, /healthz,
 * /readyz or a download path, and an unknown path still gets the API's JSON 404.
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

export const WEB_DIST = path.resolve(import.meta.dirname, '../web/dist');
/** The app's own routes (apps/web/src/router.ts). */
const CLIENT_ROUTES = ['/', '/convert', '/account', '/signin', '/signup', '/verify'];

/** The page does everything through same-origin GraphQL: nothing else may load or be framed. */
const CSP = [
  "default-src 'self'",
  "img-src 'self' data: blob:",
  "style-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

const NOT_BUILT =
  `<!doctype html><html lang="en"><meta charset="utf-8"><title>Transmute</title>
<body style="font-family:system-ui;max-width:40rem;margin:3rem auto;padding:0 1rem">
<h1>The web app is not built</h1>
<p>Run <code>npm run setup</code> (or <code>npm start</code>, which runs it) to build it into ` +
  `<code>apps/web/dist</code>.</p>
<p>The API works without it: see <a href="/docs">/docs</a>.</p></body></html>`;

export async function webRoutes(app: FastifyInstance, { distDir = WEB_DIST }: { distDir?: string } = {}) {
  const assets = path.join(distDir, 'assets');
  if (existsSync(assets)) {
    // File names carry a content hash: cached for good.
    await app.register(fastifyStatic, {
      root: assets,
      prefix: '/assets/',
      index: false,
      immutable: true,
      maxAge: '365d',
      wildcard: true,
    });
  }
  const index = path.join(distDir, 'index.html');
  for (const url of CLIENT_ROUTES) {
    app.get(url, async (_request, reply) => {
      // Read per request: a rebuild while the server runs is served at once.
      const html = await readFile(index, 'utf8').catch(() => undefined);
      reply
        .header('Cache-Control', 'no-cache')
        .header('X-Content-Type-Options', 'nosniff')
        .header('Referrer-Policy', 'same-origin');
      if (html === undefined) return reply.status(503).type('text/html; charset=utf-8').send(NOT_BUILT);
      return reply.header('Content-Security-Policy', CSP).type('text/html; charset=utf-8').send(html);
    });
  }
}
