/**
 * Office: one-page DOCX -> PDF through the HTTP API (accept -> done -> download), with 1, 2 and 4
 * clients converting in closed loops, against what a user compares with: a direct cold
 * `soffice --headless --convert-to pdf` per file with a fresh profile (no HTTP, no queue, no jail), with as many
 * lanes, in the same run; levels alternate between the two so machine drift falls on both. Targets: p50 at most
 * 150 ms with one client; at 4 clients at least 15 conversions/s and at least 10x the cold throughput.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { runProcess } from '../../core/engines/process.js';
import { POLL_MS, closedLoop, convertTimed, type ConvertTiming, windowRates } from '../lib/client.js';
import { ratioOf, type BenchRow, type Measurement } from '../lib/results.js';
import { type BenchServer, startBenchServer } from '../lib/server.js';
import { speedTolerance } from '../lib/speed-tolerances.js';
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

The numbers are compared with LibreOffice started afresh for every file.
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

/**
 * One direct cold soffice on `docx` with a fresh profile (first start included: what a script calling soffice per
 * file pays), into its own folder.
 */
async function coldSoffice(docx: string, scratch: string): Promise<ConvertTiming> {
  const started = performance.now();
  const dir = await mkdtemp(path.join(scratch, 'cold-'));
  try {
    await runProcess(
      'soffice',
      [
        `-env:UserInstallation=${pathToFileURL(path.join(dir, 'profile')).href}`,
        '--headless',
        '--norestore',
        '--convert-to',
        'pdf',
        '--outdir',
        dir,
        docx,
      ],
      { timeoutMs: 120_000, env: { ...process.env, HOME: dir } },
    );
    if ((await stat(path.join(dir, 'memo.pdf'))).size === 0) throw new Error('cold soffice wrote an empty PDF');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return { totalMs: performance.now() - started, acceptMs: 0, jobId: 'cold' };
}

/**
 * `lanes` loops of cold conversions for about `seconds`; unlike `closedLoop`, conversions that end after the deadline
 * count and the time runs to the last one: a cold conversion takes seconds, and cutting at the deadline would count
 * whole conversions out.
 */
async function coldLoop(lanes: number, seconds: number, convert: () => Promise<ConvertTiming>) {
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      do latencies.push((await convert()).totalMs);
      while (performance.now() < deadline);
    }),
  );
  const elapsedMs = performance.now() - started;
  return { latencies, overall: latencies.length / (elapsedMs / 1000) };
}

export const officeRow: BenchRow = {
  id: 'office',
  title: 'office: DOCX -> PDF over HTTP on the pool vs a direct cold soffice, 1/2/4 clients',
  minutes: { full: 6.5, quick: 1.5 },
  async run({ quick, progress }) {
    const seconds = quick ? 8 : 60;
    const windowMs = quick ? 2_000 : 5_000;
    const docx = { name: 'memo.docx', data: await onePageDocx() };
    const scratch = await mkdtemp(path.join(os.tmpdir(), 'bench-office-cold-'));
    const docxPath = path.join(scratch, 'memo.docx');
    await writeFile(docxPath, docx.data);
    /** What /readyz says of the office pool: the row is only the pool's if it says `pool`. */
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
    progress('starting the server');
    // Empty = unset (one listener per core), whatever the calling shell has.
    const server = await startBenchServer('office', { OFFICE_POOL_SIZE: '' });
    try {
      // First conversions load LibreOffice and the sandbox's plugin module: not part of the steady state.
      for (let i = 0; i < 3; i++) await convertTimed(server.url, server.key, docx, { to: 'pdf' });
      await coldSoffice(docxPath, scratch);
      const stateAtStart = await officeState(server);
      progress(`server ready; /readyz office: ${stateAtStart}`);
      if (!stateAtStart.startsWith('pool'))
        progress(`WARNING: the server is not on its pool: its numbers are not the pool's`);
      const pools = new Map<number, { latencies: number[]; acceptances: number[]; rates: number[]; overall: number }>();
      const colds = new Map<number, { latencies: number[]; overall: number }>();
      for (const clients of LEVELS) {
        const plural = clients > 1 ? 's' : '';
        progress(`pool, ${clients} client${plural}, ${seconds} s`);
        const run = await closedLoop(clients, seconds, () => convertTimed(server.url, server.key, docx, { to: 'pdf' }));
        const overall = run.latencies.length / (run.elapsedMs / 1000);
        pools.set(clients, {
          latencies: run.latencies,
          acceptances: run.acceptances,
          rates: windowRates(run.completedAt, run.elapsedMs, windowMs),
          overall,
        });
        progress(
          `  ${run.latencies.length} conversions, ${overall.toFixed(2)}/s, p50 ` +
            `${percentile(run.latencies, 50).toFixed(0)} ms, p99 ${percentile(run.latencies, 99).toFixed(0)} ms`,
        );
        progress(`cold soffice, ${clients} lane${plural}, about ${seconds} s`);
        const cold = await coldLoop(clients, seconds, () => coldSoffice(docxPath, scratch));
        colds.set(clients, cold);
        progress(
          `  ${cold.latencies.length} conversions, ${cold.overall.toFixed(2)}/s, p50 ` +
            `${percentile(cold.latencies, 50).toFixed(0)} ms`,
        );
      }
      const stateAtEnd = await officeState(server);
      const pool = (clients: number) => pools.get(clients)!;
      const cold = (clients: number) => colds.get(clients)!;
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
        ratchet: { id: 'speed.office.latency1', better: 'lower', tolerance: speedTolerance('speed.office.latency1') },
        note:
          `of which upload to accepted: p50 ${percentile(pool(1).acceptances, 50).toFixed(0)} ms; the rest is ` +
          `queue, conversion, polling (every ${POLL_MS} ms) and download. /readyz office at the start: ` +
          `${stateAtStart}, at the end: ${stateAtEnd}`,
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
          ...(clients === 1 || atFour
            ? {
                ratchet: {
                  id: `speed.office.throughput${clients}`,
                  better: 'higher' as const,
                  tolerance: speedTolerance(`speed.office.throughput${clients}`),
                },
              }
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
      await server.stop();
      await rm(scratch, { recursive: true, force: true });
    }
  },
};
