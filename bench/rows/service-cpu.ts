/**
 * The service's own CPU per job, outside the engine: tiny PNG -> WEBP, one-page DOCX -> PDF and an HTML invoice ->
 * PDF, each sent one at a time through the API (`Prefer: wait`, so no status polls) to one server, its process tree's
 * CPU read from /proc before and after (bench/lib/service-cpu.ts: server and sandbox processes by their own time;
 * engines, bwrap and every reaped child on the other side). The baseline is the engines' CPU per job in the same
 * run. Target (HTML): the service's CPU at most 30 ms a document.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { invoiceFiles, zipOf } from '../../plugins/web/testing/invoice.js';
import { convertTimed } from '../lib/client.js';
import { ratioOf, type BenchRow, type Measurement } from '../lib/results.js';
import { startBenchServer } from '../lib/server.js';
import { cpuPerJob, treeCpu } from '../lib/service-cpu.js';
import { speedTolerance } from '../lib/speed-tolerances.js';
import { percentile } from '../lib/stats.js';
import { onePageDocx } from './office.js';

/** How long the idle server is watched before each kind's jobs. */
const IDLE_WINDOW_MS = 3_000;
/** How long a job's trailing work (off its answer's clock) is given before a snapshot. */
const TRAILING_MS = 1_000;
/** A server just started keeps working for a while (sandboxes loading plugin modules): the row waits for quiet. */
const SETTLED_MS_PER_S = 20;
const SETTLE_LIMIT_MS = 30_000;

export const serviceCpuRow: BenchRow = {
  id: 'service-cpu',
  title: 'service CPU per job outside the engine: tiny image, office and HTML jobs',
  minutes: { full: 4, quick: 2 },
  async run({ quick, progress }) {
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 200, g: 80, b: 40 } } })
      .png()
      .toBuffer();
    const jobs = [
      {
        kind: 'image',
        label: 'tiny PNG -> WEBP',
        file: { name: 'tiny.png', data: png },
        to: 'webp',
        count: quick ? 40 : 300,
      },
      {
        kind: 'office',
        label: 'one-page DOCX -> PDF',
        file: { name: 'memo.docx', data: await onePageDocx() },
        to: 'pdf',
        count: quick ? 30 : 100,
      },
      {
        kind: 'html',
        label: 'HTML invoice ZIP -> PDF',
        file: { name: 'invoice.zip', data: await zipOf(await invoiceFiles()) },
        to: 'pdf',
        count: quick ? 20 : 100,
      },
    ];
    // What the image engine (sharp, a library inside the sandbox process) costs for the same conversion.
    const sharpCpu = process.cpuUsage();
    for (let i = 0; i < 50; i++) await sharp(png).webp().toBuffer();
    const sharpMs = (() => {
      const used = process.cpuUsage(sharpCpu);
      return (used.user + used.system) / 1000 / 50;
    })();
    progress('starting the server');
    const server = await startBenchServer('service-cpu');
    try {
      for (const started = performance.now(); performance.now() - started < SETTLE_LIMIT_MS; ) {
        const from = await treeCpu(server.pid);
        await sleep(1_000);
        if (cpuPerJob(from, await treeCpu(server.pid), 1).serviceMs < SETTLED_MS_PER_S) break;
      }
      const measurements: Measurement[] = [];
      for (const job of jobs) {
        const convert = () =>
          convertTimed(server.url, server.key, job.file, { to: job.to }, 120_000, { preferWaitS: 60 });
        // The first jobs start the family's sandbox module, LibreOffice's listeners or the sandbox's browser; and
        // while a sandbox is measured after its 10th run, the next run goes to another, which then loads the module
        // (and starts a browser) too. Measured past that: the steady state.
        for (let i = 0; i < 12; i++) await convert();
        // What the service spends with no job (queue polls, health checks) is taken off, per second: watched for
        // IDLE_WINDOW_MS after the warm-up's last job has finished its trailing work (a browser's spare context, a
        // sandbox's measurement), and the jobs' window ends as long after the last job.
        await sleep(TRAILING_MS);
        const idleFrom = await treeCpu(server.pid);
        await sleep(IDLE_WINDOW_MS);
        const idle = cpuPerJob(idleFrom, await treeCpu(server.pid), IDLE_WINDOW_MS / 1000);
        const before = await treeCpu(server.pid);
        const began = performance.now();
        const latencies: number[] = [];
        for (let i = 0; i < job.count; i++) latencies.push((await convert()).totalMs);
        await sleep(TRAILING_MS);
        const busy = cpuPerJob(before, await treeCpu(server.pid), job.count);
        const idleShare = (performance.now() - began) / 1000 / job.count;
        const cpu = {
          ...busy,
          serverMs: busy.serverMs - idle.serverMs * idleShare,
          sandboxMs: busy.sandboxMs - idle.sandboxMs * idleShare,
          serviceMs: busy.serviceMs - idle.serviceMs * idleShare,
        };
        const idleNote = `idle service CPU ${idle.serviceMs.toFixed(1)} ms/s taken off`;
        const wall =
          `wall time a job p50 ${percentile(latencies, 50).toFixed(0)} ms, ` +
          `min ${Math.min(...latencies).toFixed(0)} ms`;
        const engines = Object.entries(cpu.engines)
          .filter(([, ms]) => ms >= 0.05)
          .sort((a, b) => b[1] - a[1])
          .map(([name, ms]) => `${name} ${ms.toFixed(1)}`)
          .join(', ');
        progress(
          `${job.label}: service ${cpu.serviceMs.toFixed(1)} ms a job (server ${cpu.serverMs.toFixed(1)}, sandbox ` +
            `${cpu.sandboxMs.toFixed(1)}), engines ${cpu.engineMs.toFixed(1)} ms (${engines || 'none'}); ${wall}; ` +
            idleNote,
        );
        const html = job.label.startsWith('HTML');
        const image = job.to === 'webp';
        measurements.push({
          row: 'service-cpu',
          metric: `service CPU per job outside the engine, ${job.label}`,
          unit: 'ms',
          value: { median: cpu.serviceMs, min: cpu.serviceMs, max: cpu.serviceMs, n: job.count },
          over: `${job.count} sequential jobs (one sum)`,
          baseline: image
            ? { label: 'sharp in the bench process', value: sharpMs }
            : { label: 'engine processes', value: cpu.engineMs },
          ratio: ratioOf(cpu.serviceMs, image ? sharpMs : cpu.engineMs),
          ...(html ? { target: { text: '≤ 30 ms a document', met: cpu.serviceMs <= 30 } } : {}),
          // CPU time, not wall time: it moves far less with the machine's load (bench/README.md, "The speed ratchet").
          ratchet: {
            id: `speed.service-cpu.${job.kind}`,
            better: 'lower',
            tolerance: speedTolerance(`speed.service-cpu.${job.kind}`),
            of: 'value',
          },
          note:
            `server process (HTTP, queue, workers) ${cpu.serverMs.toFixed(1)} ms, sandbox processes ` +
            `${cpu.sandboxMs.toFixed(1)} ms${
              image ? ' (sharp runs in the sandbox process: its share is in' + ' there)' : ''
            }` +
            `${cpu.bridgeMs >= 0.05 ? `, UNO bridge ${cpu.bridgeMs.toFixed(1)} ms (in neither figure)` : ''}; ` +
            `engines ${cpu.engineMs.toFixed(1)} ms a job (${engines || 'none'}; reaped = processes that ended ` +
            `between the snapshots, bwrap included); ${wall}; ${idleNote}`,
        });
      }
      return measurements;
    } finally {
      await server.stop();
    }
  },
};
