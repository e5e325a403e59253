/**
 * Office: one-page DOCX -> PDF through the HTTP API (accept -> done -> download), with 1, 2 and 4
 * clients converting in closed loops, against a server with the LibreOffice pool disabled
 * (OFFICE_POOL_SIZE=0: a cold soffice per file, Gotenberg's model) in the same run. Both servers
 * run side by side with product defaults otherwise; levels alternate between them so machine
 * drift falls on both. Targets: p50 at most 150 ms with one client; at 4 clients at least 15
 * conversions/s and at least 10x the cold throughput.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runProcess } from '../../core/engines/process.js';
import { POLL_MS, closedLoop, convertTimed, windowRates } from '../lib/client.js';
import { ratioOf, type BenchRow, type Measurement } from '../lib/results.js';
import { startBenchServer, type BenchServer } from '../lib/server.js';
import { percentile, spread } from '../lib/stats.js';

const LEVELS = [1, 2, 4] as const;
const MEMO =
  `# Quarterly memo

This one-page document is what the office benchmark converts: a heading, three short paragraphs and a list.

The conversion goes through the public API exactly as a client would use it: upload, poll the job until it is done, ` +
  `then download the PDF.

- accepted by the HTTP server
- run by a worker through LibreOffice
- downloaded through its 15-minute link

The numbers are compared with a server that starts LibreOffice afresh for every file.
`;

/** A one-page DOCX made by pandoc (as the office e2e tests make theirs). */
export async function onePageDocx(): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-office-'));
  try {
    await writeFile(path.join(dir, 'memo.md'), MEMO);
    await runProcess('pandoc', [path.join(dir, 'memo.md'), '-o', path.join(dir, 'memo.docx')], { timeoutMs: 30_000 });
    return await readFile(path.join(dir, 'memo.docx'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export const officeRow: BenchRow = {
  id: 'office',
  title: 'office: DOCX -> PDF over HTTP, pool vs cold soffice, 1/2/4 clients',
  minutes: { full: 6.5, quick: 1 },
  async run({ quick, progress }) {
    const seconds = quick ? 8 : 60;
    const windowMs = quick ? 2_000 : 5_000;
    const docx = { name: 'memo.docx', data: await onePageDocx() };
    const modes = [
      // Empty = unset (one listener per core), whatever the calling shell has.
      { label: 'pool', env: { OFFICE_POOL_SIZE: '' } as Record<string, string> },
      { label: 'cold', env: { OFFICE_POOL_SIZE: '0' } },
    ] as const;
    const servers = new Map<string, BenchServer>();
    /** What /readyz says of the office pool: the pool row is only the pool's if it says `pool`. */
    const officeState = async (server: BenchServer) => {
      const office = (
        (await (await fetch(`${server.url}/readyz`)).json()) as {
          office?: { mode?: string; size?: number; fallbackReason?: string };
        }
      ).office;
      return office
        ? `${office.mode}${office.size !== undefined ? ` (${office.size} listeners)` : ''}` +
            `${office.fallbackReason ? `: ${office.fallbackReason}` : ''}`
        : 'not reported';
    };
    const states: string[] = [];
    try {
      for (const mode of modes) {
        progress(`starting the ${mode.label} server`);
        const server = await startBenchServer(`office-${mode.label}`, mode.env);
        servers.set(mode.label, server);
        // First conversions load LibreOffice and the sandbox's plugin module: not part of the steady state.
        for (let i = 0; i < 3; i++) await convertTimed(server.url, server.key, docx, { to: 'pdf' });
        const state = await officeState(server);
        progress(`${mode.label} server ready; /readyz office: ${state}`);
        if (mode.label === 'pool' && !state.startsWith('pool'))
          progress(`WARNING: the pool server is not on its pool: its numbers are not the pool's`);
      }
      const results = new Map<
        string,
        { latencies: number[]; acceptances: number[]; rates: number[]; overall: number }
      >();
      for (const clients of LEVELS) {
        for (const mode of modes) {
          const server = servers.get(mode.label)!;
          progress(`${mode.label}, ${clients} client${clients > 1 ? 's' : ''}, ${seconds} s`);
          const run = await closedLoop(clients, seconds, () =>
            convertTimed(server.url, server.key, docx, { to: 'pdf' }),
          );
          const overall = run.latencies.length / (run.elapsedMs / 1000);
          results.set(`${mode.label}:${clients}`, {
            latencies: run.latencies,
            acceptances: run.acceptances,
            rates: windowRates(run.completedAt, run.elapsedMs, windowMs),
            overall,
          });
          progress(
            `  ${run.latencies.length} conversions, ${overall.toFixed(2)}/s, p50 ` +
              `${percentile(run.latencies, 50).toFixed(0)} ms, p99 ${percentile(run.latencies, 99).toFixed(0)} ms`,
          );
        }
      }
      for (const mode of modes)
        states.push(`${mode.label} server at the end: ${await officeState(servers.get(mode.label)!)}`);
      const pool = (clients: number) => results.get(`pool:${clients}`)!;
      const cold = (clients: number) => results.get(`cold:${clients}`)!;
      const measurements: Measurement[] = [];
      const p50Pool = spread(pool(1).latencies);
      measurements.push({
        row: 'office',
        metric: 'end-to-end latency, 1 client (pool)',
        unit: 'ms',
        value: p50Pool,
        over: `${p50Pool.n} conversions`,
        baseline: { label: 'cold soffice', value: spread(cold(1).latencies).median },
        ratio: ratioOf(p50Pool.median, spread(cold(1).latencies).median),
        target: { text: 'p50 ≤ 150 ms', met: p50Pool.median <= 150 },
        note:
          `of which upload to accepted: p50 ${percentile(pool(1).acceptances, 50).toFixed(0)} ms; the rest is ` +
          `queue, conversion, polling (every ${POLL_MS} ms) and download. /readyz office: ${states.join('; ')}`,
      });
      for (const clients of LEVELS) {
        const speedUp = ratioOf(pool(clients).overall, cold(clients).overall);
        const atFour = clients === 4;
        measurements.push({
          row: 'office',
          metric: `throughput, ${clients} client${clients > 1 ? 's' : ''} (pool)`,
          unit: 'conv/s',
          // Headline: conversions over the whole level; min/max: its windows, to show how steady it was.
          value: {
            median: pool(clients).overall,
            min: Math.min(...pool(clients).rates),
            max: Math.max(...pool(clients).rates),
            n: pool(clients).latencies.length,
          },
          over: `${seconds} s (min/max: ${windowMs / 1000} s windows)`,
          baseline: { label: 'cold soffice', value: cold(clients).overall },
          ratio: speedUp,
          ...(atFour
            ? { target: { text: '≥ 15 conv/s and ≥ 10× cold', met: pool(4).overall >= 15 && speedUp >= 10 } }
            : {}),
          note:
            `${pool(clients).latencies.length} vs ${cold(clients).latencies.length} conversions; p50 ` +
            `${percentile(pool(clients).latencies, 50).toFixed(0)} ms vs ` +
            `${percentile(cold(clients).latencies, 50).toFixed(0)} ms, p99 ` +
            `${percentile(pool(clients).latencies, 99).toFixed(0)} ms vs ` +
            `${percentile(cold(clients).latencies, 99).toFixed(0)} ms`,
        });
      }
      return measurements;
    } finally {
      for (const server of servers.values()) await server.stop();
    }
  },
};
