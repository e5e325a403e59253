/**
 * Cardinality stays bounded: after requests full of client-chosen strings (URLs, ids, file
 * names, methods, headers, GraphQL operation names, keys), no metric label carries any of them,
 * and every label takes a value from a set the server defines. Also the default access rule:
 * /metrics answers loopback clients only, and not through a proxy.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAN_IDS } from '../schema/index.js';
import { READINESS_CHECKS, SANDBOX_KILL_REASONS, WEBHOOK_RESULTS } from '../core/telemetry/metrics.js';
import { standardPlugins } from '../plugins/index.js';
import { authHeaders, startServer, submitConvert, waitForJob, type TestServer } from './helpers.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
}

/** The exposition's samples (label values unescaped). */
function samples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[name!] = JSON.parse(`"${value}"`);
    out.push({ name: match[1]!, labels });
  }
  return out;
}

/** Every label of our metrics, with the values it may take (route: checked against the routes registered). */
const ALLOWED: Record<string, (value: string) => boolean> = {
  plugin: (v) => standardPlugins.some((p) => p.id === v),
  method: (v) => ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'OTHER'].includes(v),
  // An HTTP status, or a job's end (transmute_jobs_finished_total).
  status: (v) => /^[1-5]\d\d$/.test(v) || v === 'done' || v === 'failed',
  plan: (v) => (PLAN_IDS as readonly string[]).includes(v),
  reason: (v) => (SANDBOX_KILL_REASONS as readonly string[]).includes(v),
  result: (v) => (WEBHOOK_RESULTS as readonly string[]).includes(v),
  check: (v) => (READINESS_CHECKS as readonly string[]).includes(v),
  state: (v) => ['idle', 'busy', 'waiting', 'stopped', 'starting', 'down'].includes(v),
  le: (v) => v === '+Inf' || Number.isFinite(Number(v)),
};

describe('metric labels', () => {
  let server: TestServer;
  let key: string;
  const marker = `zq${randomUUID().replaceAll('-', '')}`;

  beforeAll(async () => {
    server = await startServer();
    key = await server.createKey('business');
  });
  afterAll(() => server?.close());

  it('never carry a value a client chose', { timeout: 120_000 }, async () => {
    const headers = { ...authHeaders(key), 'x-forwarded-for': marker, 'user-agent': marker, 'x-request-id': marker };
    const requests: Array<Promise<Response>> = [
      fetch(`${server.url}/api/v1/jobs/${marker}`, { headers }),
      fetch(`${server.url}/${marker}/${marker}?${marker}=${marker}`, { headers }),
      fetch(`${server.url}/api/v1/jobs/${marker}`, { headers: { authorization: `Bearer ${marker}` } }),
      fetch(`${server.url}/api/v1/${marker}`, { method: 'PROPFIND', headers }),
      fetch(`${server.url}/api/v1/${marker}`, { method: 'PURGE', headers }),
      fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ operationName: marker, query: `query ${marker} { formats { id } }` }),
      }),
      fetch(`${server.url}/trpc/${marker}?input=${marker}`, { headers }),
      fetch(`${server.url}/api/v1/download/${marker}?token=${marker}`),
    ];
    for (const res of await Promise.all(requests)) {
      await res.arrayBuffer();
      expect(res.status).toBeLessThan(500);
    }
    const refused = await submitConvert(server.url, key, { name: `${marker}.csv`, data: 'a,b\n1,2\n' }, { to: marker });
    expect(refused.status).toBe(400);
    expect(
      (
        await submitConvert(
          server.url,
          key,
          { name: `${marker}.csv`, data: 'a,b\n1,2\n' },
          { to: 'json', [marker]: marker },
        )
      ).status,
    ).toBe(400);
    const accepted = await submitConvert(
      server.url,
      key,
      { name: `${marker}.csv`, data: `${marker},b\n1,2\n` },
      { to: 'json' },
    );
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(await waitForJob(server.url, key, accepted.body.jobId)).toMatchObject({ status: 'done' });

    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text.toLowerCase()).not.toContain(marker);
    const all = samples(text);
    const ours = all.filter((s) => s.name.startsWith('transmute_'));
    expect(ours.some((s) => s.name === 'transmute_http_requests_total' && s.labels.route === 'unmatched')).toBe(true);
    expect(
      ours.some(
        (s) =>
          s.name === 'transmute_jobs_accepted_total' &&
          s.labels.plugin === 'data-convert' &&
          s.labels.plan === undefined,
      ),
    ).toBe(true);
    for (const sample of ours) {
      for (const [label, value] of Object.entries(sample.labels)) {
        if (label === 'route') {
          const registered =
            value === 'unmatched' ||
            ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'].some((method) =>
              server.server.app.hasRoute({ method, url: value }),
            );
          expect(registered, `${sample.name} route="${value}" is not a route template`).toBe(true);
        } else {
          expect(ALLOWED[label], `${sample.name}: label ${label} is not known to be bounded`).toBeDefined();
          expect(ALLOWED[label]!(value), `${sample.name}{${label}="${value}"}`).toBe(true);
        }
      }
    }
  });

  it(
    'answers loopback clients only, and not through a proxy, when neither METRICS_TOKEN nor METRICS_PORT is ' + 'set',
    async () => {
      expect((await fetch(`${server.url}/metrics`)).status).toBe(200);
      for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip']) {
        const res = await fetch(`${server.url}/metrics`, { headers: { [header]: '203.0.113.9' } });
        expect(res.status).toBe(403);
        expect(await res.json()).toEqual({ error: expect.stringContaining('METRICS_TOKEN or METRICS_PORT') });
      }
    },
  );
});
