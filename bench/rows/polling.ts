/**
 * Polling: 200 concurrent pollers on GET /api/v1/jobs/{id} (a finished job, authenticated and
 * rate-counted like any poll) against a trivial Fastify route in its own process, with the same
 * client, in alternating rounds. Each round gives a p99; the row reports their median, min and max.
 * Target: p99 at most 20 ms.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import sharp from 'sharp';
import { ROOT, freePort } from '../../test/helpers.js';
import { convertTimed } from '../lib/client.js';
import { ratioOf, type BenchRow } from '../lib/results.js';
import { startBenchServer } from '../lib/server.js';
import { percentile, spread } from '../lib/stats.js';

const POLLERS = 200;

/** `pollers` keep-alive loops GETting `url` for `seconds`; every latency in ms. */
async function poll(url: string, headers: Record<string, string>, pollers: number, seconds: number): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: pollers });
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  const once = () =>
    new Promise<number>((resolve, reject) => {
      const started = performance.now();
      const req = http.get(url, { agent, headers }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`${url} answered ${res.statusCode}`))));
      });
      req.on('error', reject);
    });
  try {
    await Promise.all(Array.from({ length: pollers }, async () => {
      while (performance.now() < deadline) latencies.push(await once());
    }));
  } finally {
    agent.destroy();
  }
  return latencies;
}

export const pollingRow: BenchRow = {
  id: 'polling',
  title: `polling: ${POLLERS} concurrent pollers on GET /api/v1/jobs/{id} vs a trivial Fastify route`,
  minutes: { full: 1, quick: 0.3 },
  async run({ quick, progress }) {
    const rounds = quick ? 1 : 4;
    const seconds = quick ? 2 : 6;
    const server = await startBenchServer('polling');
    const port = await freePort();
    const trivial = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/fixtures/trivial-server.ts'), String(port)], { stdio: 'inherit' });
    try {
      const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 0, g: 0, b: 0 } } }).png().toBuffer();
      const { jobId } = await convertTimed(server.url, server.key, { name: 'tiny.png', data: png }, { to: 'webp' });
      const jobUrl = `${server.url}/api/v1/jobs/${jobId}`;
      const trivialUrl = `http://127.0.0.1:${port}/trivial`;
      for (let i = 0; ; i++) {
        try {
          await poll(trivialUrl, {}, 1, 0.01);
          break;
        } catch (err) {
          if (i > 100) throw err;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      const auth = { authorization: `Bearer ${server.key}` };
      await poll(jobUrl, auth, POLLERS, 1); // warm both
      await poll(trivialUrl, {}, POLLERS, 1);
      const service: number[] = [];
      const baseline: number[] = [];
      const counts = { service: 0, baseline: 0, p50Service: [] as number[], p50Baseline: [] as number[] };
      for (let round = 0; round < rounds; round++) {
        const s = await poll(jobUrl, auth, POLLERS, seconds);
        const b = await poll(trivialUrl, {}, POLLERS, seconds);
        service.push(percentile(s, 99));
        baseline.push(percentile(b, 99));
        counts.service += s.length;
        counts.baseline += b.length;
        counts.p50Service.push(percentile(s, 50));
        counts.p50Baseline.push(percentile(b, 50));
        progress(`round ${round + 1}/${rounds}: jobs p50 ${percentile(s, 50).toFixed(1)} / p99 ${percentile(s, 99).toFixed(1)} ms (${(s.length / seconds).toFixed(0)} req/s); trivial p50 ${percentile(b, 50).toFixed(1)} / p99 ${percentile(b, 99).toFixed(1)} ms (${(b.length / seconds).toFixed(0)} req/s)`);
      }
      const value = spread(service);
      const base = spread(baseline).median;
      const total = rounds * seconds;
      return [{
        row: 'polling', metric: `p99 latency, ${POLLERS} pollers on GET /api/v1/jobs/{id}`, unit: 'ms', value, over: `${rounds} rounds of ${seconds} s`,
        baseline: { label: 'trivial Fastify route', value: base }, ratio: ratioOf(value.median, base),
        target: { text: 'p99 ≤ 20 ms', met: value.median <= 20 },
        note: `p50 ${spread(counts.p50Service).median.toFixed(1)} ms vs ${spread(counts.p50Baseline).median.toFixed(1)} ms; ${(counts.service / total).toFixed(0)} vs ${(counts.baseline / total).toFixed(0)} requests/s (one client process, keep-alive)`,
      }];
    } finally {
      trivial.kill('SIGTERM');
      await server.stop();
    }
  },
};
