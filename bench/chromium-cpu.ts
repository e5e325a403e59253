/**
 * CPU per document of the warm Chromium path alone (no server, queue or sandbox): this process
 * renders the bench invoice with renderPdf N times back to back, a fresh context each, and counts
 * the CPU of itself and every Chromium process by kind (reaped renderers included, through the
 * zygote's children's time). For measuring one Chromium change at a time; `--jail` renders in the
 * bubblewrap jail, as sandboxes do.
 *
 *     npx tsx bench/chromium-cpu.ts [documents, default 30] [--jail]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { closeChromiumPool, renderPdf } from '../core/engines/chromium.js';
import { configureConfinement } from '../core/engines/confine.js';
import { htmlToPdfOptions } from '../plugins/web/html-to-pdf/options.js';
import { pdfRenderOptions } from '../plugins/web/shared/options.js';
import { memorySource } from '../plugins/web/shared/site.js';
import { invoiceFiles } from '../plugins/web/testing/invoice.js';
import { cpuByKind, cpuReport } from './lib/cpu.js';
import { percentile } from './lib/stats.js';

const documents = Number(process.argv[2] ?? 30);
if (process.argv.includes('--jail')) configureConfinement(true);
const files = new Map(Object.entries(await invoiceFiles()));
const options = pdfRenderOptions(htmlToPdfOptions.parse({}));
const dir = await mkdtemp(path.join(os.tmpdir(), 'chromium-cpu-'));
const render = async () => {
  const started = performance.now();
  const deadline = Date.now() + 60_000;
  const context = { signal: new AbortController().signal, remainingMs: () => deadline - Date.now() };
  await renderPdf(memorySource(files, 'index.html'), path.join(dir, 'out.pdf'), options, context);
  return performance.now() - started;
};
try {
  for (let i = 0; i < 3; i++) await render();
  const before = await cpuByKind([process.pid]);
  const latencies: number[] = [];
  for (let i = 0; i < documents; i++) latencies.push(await render());
  // The last context closes off the clock.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const after = await cpuByKind([process.pid]);
  console.log(
    `${documents} documents, one after another: p50 ${percentile(latencies, 50).toFixed(0)} ms ` +
      `(min ${Math.min(...latencies).toFixed(0)}), load ${os.loadavg()[0]?.toFixed(1)}`,
  );
  cpuReport(before, after, documents);
} finally {
  await closeChromiumPool();
  await rm(dir, { recursive: true, force: true });
}
