/**
 * CPU per document of the warm Chromium path alone (no server, queue or sandbox): this process
 * renders the bench invoice with renderPdf N times back to back, a fresh context each, and counts
 * the CPU of itself and every Chromium process by kind (reaped renderers included, through the
 * zygote's children's time). For measuring one Chromium change at a time; `--jail` renders in the
 * bubblewrap jail, as sandboxes do. `--cold` prints the same invoice with a cold `chromium --print-to-pdf` each time
 * instead (the bench row's baseline: Debian's full browser, same switches, the files on disk, a fresh profile;
 * `--cold-shell` the same with the pool's headless shell), for the CPU ratio of cold to
 * warm that bounds the row's throughput ratio on saturated cores; its Chromium processes are counted as this
 * process's reaped children ("node").
 *
 *     npx tsx bench/chromium-cpu.ts [documents, default 30] [--jail] [--cold | --cold-shell]
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CHROMIUM, chromiumCommand, closeChromiumPool, renderPdf } from '../core/engines/chromium.js';
import { configureConfinement } from '../core/engines/confine.js';
import { runProcess } from '../core/engines/process.js';
import { htmlToPdfOptions } from '../plugins/web/html-to-pdf/options.js';
import { pdfRenderOptions } from '../plugins/web/shared/options.js';
import { memorySource } from '../plugins/web/shared/site.js';
import { invoiceFiles } from '../plugins/web/testing/invoice.js';
import { cpuByKind, cpuReport } from './lib/cpu.js';
import { percentile } from './lib/stats.js';

const documents = Number(process.argv[2] ?? 30);
const coldShell = process.argv.includes('--cold-shell');
const cold = coldShell || process.argv.includes('--cold');
if (process.argv.includes('--jail')) configureConfinement(true);
const files = new Map(Object.entries(await invoiceFiles()));
const options = pdfRenderOptions(htmlToPdfOptions.parse({}));
const dir = await mkdtemp(path.join(os.tmpdir(), 'chromium-cpu-'));
const warmRender = async () => {
  const deadline = Date.now() + 60_000;
  const context = { signal: new AbortController().signal, remainingMs: () => deadline - Date.now() };
  await renderPdf(memorySource(files, 'index.html'), path.join(dir, 'out.pdf'), options, context);
};
/**
 * Runs its arguments as the child of a subreaper, which reaps every descendant before it exits: a cold browser's
 * renderers outlive their zygote at exit, and their CPU would otherwise reach no one's children's time here.
 * The wrapper's own start (~20 ms of CPU) is counted with the print.
 */
const SUBREAPER = [
  'import ctypes, os, sys',
  'ctypes.CDLL(None).prctl(36, 1)  # PR_SET_CHILD_SUBREAPER',
  'pid = os.fork()',
  'if pid == 0: os.execv(sys.argv[1], sys.argv[1:])',
  'code = 1',
  'while True:',
  '    try: child, status = os.wait()',
  '    except ChildProcessError: break',
  '    if child == pid: code = os.waitstatus_to_exitcode(status)',
  'sys.exit(code)',
].join('\n');
const coldRender = async () => {
  const site = path.join(dir, 'site');
  for (const [name, data] of files) {
    await mkdir(path.dirname(path.join(site, name)), { recursive: true });
    await writeFile(path.join(site, name), data);
  }
  const profile = await mkdtemp(path.join(dir, 'profile-'));
  const { executablePath, args } = await chromiumCommand(coldShell ? CHROMIUM.command : 'chromium');
  const page = pathToFileURL(path.join(site, 'index.html')).href;
  const print = [`--user-data-dir=${profile}`, '--no-pdf-header-footer', `--print-to-pdf=${path.join(dir, 'out.pdf')}`];
  await runProcess('/usr/bin/python3', ['-c', SUBREAPER, executablePath, ...args, ...print, page], {
    timeoutMs: 60_000,
  });
  await rm(profile, { recursive: true, force: true });
};
const render = async () => {
  const started = performance.now();
  await (cold ? coldRender() : warmRender());
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
    `${documents} documents${cold ? ' (cold prints)' : ''}, one after another: ` +
      `p50 ${percentile(latencies, 50).toFixed(0)} ms ` +
      `(min ${Math.min(...latencies).toFixed(0)}), load ${os.loadavg()[0]?.toFixed(1)}`,
  );
  cpuReport(before, after, documents);
} finally {
  await closeChromiumPool();
  await rm(dir, { recursive: true, force: true });
}
