/**
 * One core's share of the throughput measurement (forked by run.ts with IPC):
 * argv = passes, ...pdf paths. Does a warm-up pass, reports ready, then on 'go' runs the timed passes and reports
 * {pages, cpuSeconds}.
 */
import { readFileSync } from 'node:fs';
import { pdfToMarkdown } from '../../plugins/markdown/shared/engine/index.js';

const [passes = '1', ...files] = process.argv.slice(2);
const pdfs = files.map((file) => new Uint8Array(readFileSync(file)));

async function convertAll(): Promise<number> {
  let pages = 0;
  for (const pdf of pdfs) pages += (await pdfToMarkdown(pdf)).pages;
  return pages;
}

await convertAll();
process.send!('ready');
process.once('message', async () => {
  let pages = 0;
  const cpuBefore = process.cpuUsage();
  for (let pass = 0; pass < Number(passes); pass++) pages += await convertAll();
  const cpu = process.cpuUsage(cpuBefore);
  process.send!({ pages, cpuSeconds: (cpu.user + cpu.system) / 1e6 });
});
