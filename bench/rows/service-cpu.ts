/**
 * The service's own CPU per job, outside the engine: tiny PNG -> WEBP, one-page DOCX -> PDF and an HTML invoice ->
 * PDF, each sent one at a time through the API (`Prefer: wait`, so no status polls) to one server, its process tree's
 * CPU read from /proc before and after (bench/lib/service-cpu.ts: server and sandbox processes by their own time;
 * engines, bwrap and every reaped child on the other side). The baseline is the engines' CPU per job in the same
 * run. Target (HTML): the service's CPU at most 30 ms a document.
 */
import sharp from 'sharp';
import { invoiceFiles, zipOf } from '../../plugins/web/testing/invoice.js';
import { convertTimed } from '../lib/client.js';
import { ratioOf, type BenchRow, type Measurement } from '../lib/results.js';
import { startBenchServer } from '../lib/server.js';
import { cpuPerJob, treeCpu } from '../lib/service-cpu.js';
import { onePageDocx } from './office.js';

export const serviceCpuRow: BenchRow = {
  id: 'service-cpu',
  title: 'service CPU per job outside the engine: tiny image, office and HTML jobs',
  minutes: { full: 4, quick: 1.5 },
  async run({ quick, progress }) {
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 200, g: 80, b: 40 } } })
      .png()
      .toBuffer();
    const jobs = [
      { label: 'tiny PNG -> WEBP', file: { name: 'tiny.png', data: png }, to: 'webp', count: quick ? 40 : 300 },
      {
        label: 'one-page DOCX -> PDF',
        file: { name: 'memo.docx', data: await onePageDocx() },
        to: 'pdf',
        count: quick ? 20 : 100,
      },
      {
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
      const measurements: Measurement[] = [];
      for (const job of jobs) {
        const convert = () =>
          convertTimed(server.url, server.key, job.file, { to: job.to }, 120_000, { preferWaitS: 60 });
        // The first jobs start the family's sandbox module, LibreOffice's listeners or the sandbox's browser; and
        // while a sandbox is measured after its 10th run, the next run goes to another, which then loads the module
        // (and starts a browser) too. Measured past that: the steady state.
        for (let i = 0; i < 12; i++) await convert();
        const before = await treeCpu(server.pid);
        for (let i = 0; i < job.count; i++) await convert();
        const cpu = cpuPerJob(before, await treeCpu(server.pid), job.count);
        const engines = Object.entries(cpu.engines)
          .filter(([, ms]) => ms >= 0.05)
          .sort((a, b) => b[1] - a[1])
          .map(([name, ms]) => `${name} ${ms.toFixed(1)}`)
          .join(', ');
        progress(
          `${job.label}: service ${cpu.serviceMs.toFixed(1)} ms a job (server ${cpu.serverMs.toFixed(1)}, sandbox ` +
            `${cpu.sandboxMs.toFixed(1)}), engines ${cpu.engineMs.toFixed(1)} ms (${engines || 'none'})`,
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
          note:
            `server process (HTTP, queue, workers) ${cpu.serverMs.toFixed(1)} ms, sandbox processes ` +
            `${cpu.sandboxMs.toFixed(1)} ms${
              image ? ' (sharp runs in the sandbox process: its share is in' + ' there)' : ''
            }` +
            `${cpu.bridgeMs >= 0.05 ? `, UNO bridge ${cpu.bridgeMs.toFixed(1)} ms (in neither figure)` : ''}; ` +
            `engines ${cpu.engineMs.toFixed(1)} ms a job (${engines || 'none'}; reaped = processes that ended ` +
            `between the snapshots, bwrap included)`,
        });
      }
      return measurements;
    } finally {
      await server.stop();
    }
  },
};
