/**
 * Plugin work never stalls the service: while runs spin, hog memory or chew a pathological CSV,
 * /healthz and job polls keep answering, each run ends at its deadline with a clear error, and
 * failed runs are refunded.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, getJson, startServer, submitConvert, waitForJob, type TestServer } from './helpers.js';

const HOSTILE = path.join(ROOT, 'test/fixtures/plugins/hostile.ts');
/**
 * An answer slower than this means a stalled event loop (a run on the HTTP thread), not a loaded
 * machine: answers take milliseconds, and the spin alone would hold a shared loop for its whole run.
 */
const STALLED_MS = 10_000;

/** Probes /healthz every 50 ms until stopped; returns the slowest answer. */
function probeHealth(url: string) {
  let worst = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const res = await fetch(`${url}/healthz`);
      await res.arrayBuffer();
      worst = Math.max(worst, performance.now() - started);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return async () => {
    running = false;
    await loop;
    return worst;
  };
}

describe('isolated runs', () => {
  let server: TestServer;
  let key: string;

  beforeAll(async () => {
    server = await startServer({ env: { PLUGINS: HOSTILE } });
    key = await server.createKey('business');
  });
  afterAll(() => server?.close());

  it('keeps /healthz answering while runs spin, hog memory and chew a 150,000-column CSV; failures refunded', {
    timeout: 180_000,
  }, async () => {
    const stop = probeHealth(server.url);
    const wide = `${Array.from({ length: 150_000 }, (_, i) => `c${i}`).join(',')}\n`;
    const submitted = await Promise.all([
      submitConvert(server.url, key, { name: 'spin.txt', data: 'x' }, { to: 'txt', op: 'test-spin' }),
      submitConvert(server.url, key, { name: 'hog.txt', data: 'x' }, { to: 'txt', op: 'test-hog' }),
      submitConvert(server.url, key, { name: 'wide.csv', data: wide }, { to: 'xlsx' }),
      submitConvert(server.url, key, { name: 'wide.csv', data: wide }, { to: 'json' }),
    ]);
    for (const s of submitted) expect(s.status, JSON.stringify(s.body)).toBe(200);
    const charged = submitted.reduce((sum, s) => sum + s.body.creditCost, 0);

    // A poll of a job answers meanwhile (bounded like /healthz, by STALLED_MS).
    const pollStarted = performance.now();
    expect((await getJson(`${server.url}/api/v1/jobs/${submitted[0]!.body.jobId}`, key)).status).toBe(200);
    expect(performance.now() - pollStarted).toBeLessThan(STALLED_MS);

    const [spin, hog, xlsx, json] = await Promise.all(
      submitted.map((s) => waitForJob(server.url, key, s.body.jobId, 150_000)),
    );
    const worst = await stop();
    expect(spin).toEqual({ status: 'failed', error: 'Timed out after 2 s' });
    expect(hog).toEqual({ status: 'failed', error: 'The job exceeded the memory limit of 500 MB' });
    for (const wideJob of [xlsx, json]) expect(['done', 'failed']).toContain(wideJob!.status);
    expect(worst).toBeLessThan(STALLED_MS);

    // Failed jobs are refunded: only the ones that succeeded are still charged.
    const kept = submitted
      .filter((_, i) => [spin, hog, xlsx, json][i]!.status === 'done')
      .reduce((sum, s) => sum + s.body.creditCost, 0);
    const { body: credits } = await getJson(`${server.url}/api/v1/credits`, key);
    expect(credits.creditsUsed).toBe(kept);
    expect(kept).toBeLessThan(charged);

    // The service goes on: a normal job after all that.
    const ok = await submitConvert(server.url, key, { name: 'a.csv', data: 'a,b\n1,2\n' }, { to: 'json' });
    expect(await waitForJob(server.url, key, ok.body.jobId)).toMatchObject({ status: 'done' });
  });
});
