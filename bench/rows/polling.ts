/**
 * Polling: 200 concurrent pollers on GET /api/v1/jobs/{id} (a finished job, authenticated and
 * rate-counted like any poll), each polling once a second as the spec asks clients to (staggered
 * at random), against a trivial Fastify route in its own process with the same client, in
 * alternating rounds. Each round gives a p99; the row reports their median, min and max. The
 * notes add what each side serves when the 200 poll back to back (saturation).
 * Target: p99 at most 20 ms.
 */
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { convertTimed } from '../lib/client.js';
import { ratioOf, type BenchRow } from '../lib/results.js';
import { startBenchServer, startTrivialServer } from '../lib/server.js';
import { speedTolerance } from '../lib/speed-tolerances.js';
import { percentile, spread } from '../lib/stats.js';

const POLLERS = 200;
/** The spec: clients poll every 1 to 2 seconds. */
const POLL_INTERVAL_MS = 1_000;

/**
 * `pollers` keep-alive clients GETting `url` for `seconds`: each every `intervalMs` (on a fixed
 * schedule from a random offset, so a slow answer does not thin the load), or back to back when
 * `intervalMs` is 0. Every latency in ms.
 */
async function poll(
  url: string,
  headers: Record<string, string>,
  pollers: number,
  seconds: number,
  intervalMs: number,
): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: pollers });
  const latencies: number[] = [];
  const begin = performance.now();
  const deadline = begin + seconds * 1000;
  const once = () =>
    new Promise<number>((resolve, reject) => {
      const started = performance.now();
      const req = http.get(url, { agent, headers }, (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(performance.now() - started)
            : reject(new Error(`${url} answered ${res.statusCode}`)),
        );
      });
      req.on('error', reject);
    });
  try {
    await Promise.all(
      Array.from({ length: pollers }, async () => {
        for (let next = begin + Math.random() * intervalMs; next < deadline; next += intervalMs) {
          const wait = next - performance.now();
          if (wait > 0) await sleep(wait);
          latencies.push(await once());
          if (intervalMs === 0) next = performance.now();
        }
      }),
    );
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
    const rounds = quick ? 1 : 3;
    const seconds = quick ? 3 : 10;
    const saturationSeconds = quick ? 1 : 3;
    const server = await startBenchServer('polling');
    const trivial = await startTrivialServer().catch(async (err) => {
      await server.stop();
      throw err;
    });
    try {
      const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 0, g: 0, b: 0 } } })
        .png()
        .toBuffer();
      const { jobId } = await convertTimed(server.url, server.key, { name: 'tiny.png', data: png }, { to: 'webp' });
      const jobUrl = `${server.url}/api/v1/jobs/${jobId}`;
      const trivialUrl = `${trivial.url}/trivial`;
      const auth = { authorization: `Bearer ${server.key}` };
      await poll(jobUrl, auth, POLLERS, 1, 0); // warm both
      await poll(trivialUrl, {}, POLLERS, 1, 0);
      const service: number[] = [];
      const baseline: number[] = [];
      const p50s = { service: [] as number[], baseline: [] as number[] };
      for (let round = 0; round < rounds; round++) {
        const s = await poll(jobUrl, auth, POLLERS, seconds, POLL_INTERVAL_MS);
        const b = await poll(trivialUrl, {}, POLLERS, seconds, POLL_INTERVAL_MS);
        service.push(percentile(s, 99));
        baseline.push(percentile(b, 99));
        p50s.service.push(percentile(s, 50));
        p50s.baseline.push(percentile(b, 50));
        progress(
          `round ${round + 1}/${rounds} (${(s.length / seconds).toFixed(0)} req/s offered): jobs p50 ` +
            `${percentile(s, 50).toFixed(1)} / p99 ${percentile(s, 99).toFixed(1)} ms; trivial p50 ` +
            `${percentile(b, 50).toFixed(1)} / p99 ${percentile(b, 99).toFixed(1)} ms`,
        );
      }
      // Closed loop: the same pollers back to back, alternating sides, `rounds` times each.
      const throughput = { service: [] as number[], baseline: [] as number[] };
      for (let round = 0; round < rounds; round++) {
        throughput.service.push((await poll(jobUrl, auth, POLLERS, saturationSeconds, 0)).length / saturationSeconds);
        throughput.baseline.push(
          (await poll(trivialUrl, {}, POLLERS, saturationSeconds, 0)).length / saturationSeconds,
        );
      }
      const saturated = { service: spread(throughput.service).median, baseline: spread(throughput.baseline).median };
      const throughputRatio = ratioOf(saturated.service, saturated.baseline);
      progress(
        `back to back: jobs ${saturated.service.toFixed(0)} req/s, trivial ${saturated.baseline.toFixed(0)} req/s ` +
          `(${(throughputRatio * 100).toFixed(0)}%)`,
      );
      const value = spread(service);
      const base = spread(baseline).median;
      return [
        {
          row: 'polling',
          metric: `p99 latency, ${POLLERS} pollers (1/s each) on GET /api/v1/jobs/{id}`,
          unit: 'ms',
          value,
          over: `${rounds} rounds of ${seconds} s`,
          baseline: { label: 'trivial Fastify route', value: base },
          ratio: ratioOf(value.median, base),
          target: { text: 'p99 ≤ 20 ms', met: value.median <= 20 },
          note:
            `p50 ${spread(p50s.service).median.toFixed(1)} ms vs ${spread(p50s.baseline).median.toFixed(1)} ms; ` +
            `polled back to back by the same ${POLLERS} (saturation): ${saturated.service.toFixed(0)} vs ` +
            `${saturated.baseline.toFixed(0)} requests/s, one client process, keep-alive`,
        },
        {
          row: 'polling',
          metric: `requests/s, ${POLLERS} closed-loop pollers on GET /api/v1/jobs/{id} (authenticated, rate-counted)`,
          unit: 'req/s',
          value: spread(throughput.service),
          over: `${rounds} rounds of ${saturationSeconds} s`,
          baseline: { label: 'trivial Fastify route', value: saturated.baseline },
          ratio: throughputRatio,
          // The status route's answer is serialised from its response schema (the operation table).
          target: { text: '≥ 50% of the trivial route', met: throughputRatio >= 0.5 },
          ratchet: {
            id: 'speed.polling.throughput',
            better: 'higher',
            tolerance: speedTolerance('speed.polling.throughput'),
          },
          note: `${(throughputRatio * 100).toFixed(0)}% of the trivial route's throughput, measured in the same run`,
        },
      ];
    } finally {
      trivial.stop();
      await server.stop();
    }
  },
};
