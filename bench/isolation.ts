/**
 * Isolation: how quickly the server answers while plugin runs are as heavy as they get. Measures
 * GET /healthz and GET /api/v1/jobs/{id} latency (p50, p99) on an idle server, then while a
 * CPU-bound run and a memory-hungry run (600 MB) are active, and prints the ratios against idle
 * from the same run. Target: p99 at most 50 ms under load. The server runs as its own process,
 * as `npm start` does.
 *
 *   npx tsx bench/isolation.ts [requests=400]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ROOT, admin, getJson, spawnServer, submitConvert, waitForJob } from '../test/helpers.js';

const requests = Number(process.argv[2] ?? 400);
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bench-isolation-'));
const { result } = await admin(dataDir, 'create-key', '--plan', 'enterprise');
const key: string = result.key;
const server = await spawnServer({ DATA_DIR: dataDir, WORKERS: '2', LOG_LEVEL: 'warn', PLUGINS: path.join(ROOT, 'bench/fixtures/load-plugins.ts') });

async function latencies(url: string, withKey: boolean): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < requests; i++) {
    const started = performance.now();
    const res = await fetch(url, { headers: withKey ? { authorization: `Bearer ${key}` } : {} });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${url} answered ${res.status}`);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

try {
  const done = await submitConvert(server.url, key, { name: 'a.txt', data: 'x' }, { to: 'txt', op: 'bench-cpu' });
  await waitForJob(server.url, key, done.body.jobId, 30_000);
  const jobUrl = `${server.url}/api/v1/jobs/${done.body.jobId}`;
  const idle = { health: await latencies(`${server.url}/healthz`, false), job: await latencies(jobUrl, true) };

  const heavy = await Promise.all(['bench-cpu', 'bench-memory'].map((op) => submitConvert(server.url, key, { name: 'a.txt', data: 'x' }, { to: 'txt', op })));
  for (;;) {
    const states = await Promise.all(heavy.map(async (h) => (await getJson(`${server.url}/api/v1/jobs/${h.body.jobId}`, key)).body.status));
    if (states.every((s) => s === 'active')) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 1_500)); // both runs at full weight
  const loaded = { health: await latencies(`${server.url}/healthz`, false), job: await latencies(jobUrl, true) };
  const stillActive = await Promise.all(heavy.map(async (h) => (await getJson(`${server.url}/api/v1/jobs/${h.body.jobId}`, key)).body.status));

  const row = (name: string, a: number[], b: number[]) => {
    const p99 = pct(b, 99);
    return `| ${name} | ${pct(a, 50).toFixed(2)} / ${pct(a, 99).toFixed(2)} | ${pct(b, 50).toFixed(2)} / ${p99.toFixed(2)} | ${(pct(b, 50) / pct(a, 50)).toFixed(2)} / ${(p99 / pct(a, 99)).toFixed(2)} | ${p99 <= 50 ? 'met' : 'MISSED'} |`;
  };
  console.log(`isolation bench: ${requests} sequential requests each; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; heavy runs still active at the end: ${stillActive.join(', ')}`);
  console.log('| endpoint | idle p50 / p99 (ms) | under load p50 / p99 (ms) | ratio p50 / p99 | target p99 <= 50 ms |');
  console.log('|---|---|---|---|---|');
  console.log(row('GET /healthz', idle.health, loaded.health));
  console.log(row('GET /api/v1/jobs/{id}', idle.job, loaded.job));
} finally {
  await server.kill('SIGTERM');
  await rm(dataDir, { recursive: true, force: true });
}
