import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { recordHttpRequest, renderMetrics } from './metrics.js';

describe('the exposition', () => {
  it('leaves out the gauges promtool rejects, and passes promtool check metrics', async () => {
    const text = await renderMetrics();
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'])
      expect(text).not.toContain(`${name} `);
    expect(text).toContain('# TYPE nodejs_active_handles gauge');
    const lint = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(lint.status, `${lint.stdout}${lint.stderr}`).toBe(0);
  });

  it(
    'labels a request by its route template, a known method or OTHER, and unmatched when no route ' + 'matched',
    async () => {
      recordHttpRequest('/api/v1/jobs/:id', 'GET', 200, 0.01);
      recordHttpRequest(undefined, 'PROPFIND', 404, 0.001);
      const text = await renderMetrics();
      expect(text).toContain('transmute_http_requests_total{route="/api/v1/jobs/:id",method="GET",status="200"} 1');
      expect(text).toContain('transmute_http_requests_total{route="unmatched",method="OTHER",status="404"} 1');
    },
  );
});
