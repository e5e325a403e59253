/**
 * Isolation: how quickly the server answers while plugin runs are as heavy as they get. Measures
 * GET /healthz and GET /api/v1/jobs/{id} latency on an idle server, then while a CPU-bound run
 * and a memory-hungry run (600 MB; bench/fixtures/load-plugins.ts) are active, in rounds of
 * sequential requests (each round gives a p50 and a p99). Target: p99 at most 50 ms under load.
 * The server runs as its own process, as `npm start` does.
 */
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT, getJson, submitConvert, waitForJob } from '../../test/helpers.js';
import { ratioOf, type BenchRow, type Measurement } from '../lib/results.js';
import { startBenchServer } from '../lib/server.js';
import { percentile, spread } from '../lib/stats.js';

export interface RoundLatencies {
  health: number[][];
  job: number[][];
}

export interface IsolationResult {
  idle: RoundLatencies;
  loaded: RoundLatencies;
  /** Status of each heavy run when the loaded rounds ended: both should still be `active`. */
  heavyAtEnd: string[];
}

export async function measureIsolation({
  requests,
  rounds,
}: {
  requests: number;
  rounds: number;
}): Promise<IsolationResult> {
  const server = await startBenchServer('isolation', {
    WORKERS: '2',
    PLUGINS: path.join(ROOT, 'bench/fixtures/load-plugins.ts'),
  });
  const key = server.key;
  const latencies = async (url: string, withKey: boolean) => {
    const times: number[] = [];
    for (let i = 0; i < requests; i++) {
      const started = performance.now();
      const res = await fetch(url, { headers: withKey ? { authorization: `Bearer ${key}` } : {} });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`${url} answered ${res.status}`);
      times.push(performance.now() - started);
    }
    return times;
  };
  const measureRounds = async (jobUrl: string): Promise<RoundLatencies> => {
    const result: RoundLatencies = { health: [], job: [] };
    for (let round = 0; round < rounds; round++) {
      result.health.push(await latencies(`${server.url}/healthz`, false));
      result.job.push(await latencies(jobUrl, true));
    }
    return result;
  };
  try {
    const done = await submitConvert(server.url, key, { name: 'a.txt', data: 'x' }, { to: 'txt', op: 'bench-cpu' });
    await waitForJob(server.url, key, done.body.jobId, 30_000);
    const jobUrl = `${server.url}/api/v1/jobs/${done.body.jobId}`;
    const idle = await measureRounds(jobUrl);

    const heavy = await Promise.all(
      ['bench-cpu', 'bench-memory'].map((op) =>
        submitConvert(server.url, key, { name: 'a.txt', data: 'x' }, { to: 'txt', op }),
      ),
    );
    const states = () =>
      Promise.all(
        heavy.map(async (h) => (await getJson(`${server.url}/api/v1/jobs/${h.body.jobId}`, key)).body.status as string),
      );
    while (!(await states()).every((s) => s === 'active')) await sleep(100);
    await sleep(1_500); // both runs at full weight
    const loaded = await measureRounds(jobUrl);
    return { idle, loaded, heavyAtEnd: await states() };
  } finally {
    await server.stop();
  }
}

export const isolationRow: BenchRow = {
  id: 'isolation',
  title: 'isolation: health and job-status latency while heavy plugin runs are active',
  minutes: { full: 0.7, quick: 0.5 },
  async run({ quick, progress }) {
    const requests = quick ? 100 : 200;
    const rounds = quick ? 1 : 3;
    const { idle, loaded, heavyAtEnd } = await measureIsolation({ requests, rounds });
    progress(`heavy runs at the end of the loaded rounds: ${heavyAtEnd.join(', ')}`);
    const p99s = (sets: number[][]) => sets.map((s) => percentile(s, 99));
    const p50s = (sets: number[][]) => sets.map((s) => percentile(s, 50));
    const measurement = (endpoint: string, idleSets: number[][], loadedSets: number[][]): Measurement => {
      const value = spread(p99s(loadedSets));
      const base = spread(p99s(idleSets)).median;
      return {
        row: 'isolation',
        metric: `p99 latency of ${endpoint} under heavy runs`,
        unit: 'ms',
        value,
        over: `${rounds} rounds of ${requests} sequential requests`,
        baseline: { label: 'same server idle', value: base },
        ratio: ratioOf(value.median, base),
        target: { text: 'p99 ≤ 50 ms', met: value.median <= 50 },
        note:
          `p50 ${spread(p50s(loadedSets)).median.toFixed(2)} ms under load vs ` +
          `${spread(p50s(idleSets)).median.toFixed(2)} ms idle; heavy runs still active at the end: ` +
          `${heavyAtEnd.join(', ')}`,
      };
    };
    return [
      measurement('GET /healthz', idle.health, loaded.health),
      measurement('GET /api/v1/jobs/{id}', idle.job, loaded.job),
    ];
  },
};
