import { describe, expect, it } from 'vitest';
import { metricsAccess, startMetricsServer } from './metrics-endpoint.js';
import { loadConfig } from './config.js';

const TOKEN = 'a-metrics-token-of-some-length';
const local = { headers: {}, remoteAddress: '127.0.0.1' };
const remote = { headers: {}, remoteAddress: '203.0.113.7' };

describe('metricsAccess', () => {
  it('with METRICS_TOKEN: the bearer token, from anywhere, on either port', () => {
    const settings = { token: TOKEN, port: undefined };
    expect(
      metricsAccess(settings, { headers: { authorization: `Bearer ${TOKEN}` }, remoteAddress: '203.0.113.7' }, false),
    ).toEqual({ ok: true });
    expect(
      metricsAccess(
        { token: TOKEN, port: 9464 },
        { headers: { authorization: `bearer ${TOKEN}` }, remoteAddress: '203.0.113.7' },
        true,
      ),
    ).toEqual({ ok: true });
    expect(metricsAccess(settings, local, false)).toMatchObject({ ok: false, status: 401 });
    expect(
      metricsAccess(settings, { headers: { authorization: `Bearer ${TOKEN}x` }, remoteAddress: '127.0.0.1' }, false),
    ).toMatchObject({ ok: false, status: 401 });
    expect(
      metricsAccess(settings, { headers: { authorization: TOKEN }, remoteAddress: '127.0.0.1' }, false),
    ).toMatchObject({ ok: false, status: 401 });
  });

  it('with METRICS_PORT only: open there, not on PORT', () => {
    const settings = { token: undefined, port: 9464 };
    expect(metricsAccess(settings, remote, true)).toEqual({ ok: true });
    expect(metricsAccess(settings, local, false)).toMatchObject({ ok: false, status: 404 });
  });

  it('with neither: loopback clients only, never through a proxy', () => {
    const settings = { token: undefined, port: undefined };
    for (const remoteAddress of ['127.0.0.1', '127.3.4.5', '::1', '::ffff:127.0.0.1'])
      expect(metricsAccess(settings, { headers: {}, remoteAddress }, false)).toEqual({ ok: true });
    for (const remoteAddress of ['203.0.113.7', '10.0.0.2', '::ffff:10.0.0.2', 'fe80::1', undefined]) {
      expect(metricsAccess(settings, { headers: {}, remoteAddress }, false)).toMatchObject({ ok: false, status: 403 });
    }
    expect(
      metricsAccess(settings, { headers: { 'x-forwarded-for': '127.0.0.1' }, remoteAddress: '127.0.0.1' }, false),
    ).toMatchObject({ ok: false, status: 403 });
  });

  it('reads METRICS_TOKEN and METRICS_PORT from the environment, refusing a short token', () => {
    expect(loadConfig({ METRICS_TOKEN: TOKEN, METRICS_PORT: '9464' }).metrics).toEqual({ token: TOKEN, port: 9464 });
    expect(loadConfig({ METRICS_TOKEN: '', METRICS_PORT: '' }).metrics).toEqual({ token: undefined, port: undefined });
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
  });
});

describe('the METRICS_PORT listener', () => {
  it('serves GET /metrics only', async () => {
    const server = (await startMetricsServer({ token: undefined, port: 0 }, '127.0.0.1'))!;
    try {
      const res = await fetch(`${server.url}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(await res.text()).toContain('# TYPE transmute_jobs_accepted_total counter');
      expect((await fetch(`${server.url}/other`)).status).toBe(404);
      expect((await fetch(`${server.url}/metrics`, { method: 'POST' })).status).toBe(405);
    } finally {
      await server.close();
    }
    expect(await startMetricsServer({ token: undefined, port: undefined }, '127.0.0.1')).toBeUndefined();
  });
});
