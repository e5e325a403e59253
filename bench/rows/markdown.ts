/**
 * pdf-to-markdown: pages per second in-process on the single-column bench corpus (its text
 * PDFs), one engine process per core (bench/markdown/throughput.ts), against poppler's
 * `pdftotext` on the same files with as many lanes, in the same run: plain text extraction, the
 * floor any structure recovery adds to. Target: at least 50 pages/s.
 */
import { readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runProcess } from '../../core/engines/process.js';
import { CORPUS_DIR, type TruthMeta } from '../markdown/corpus/generate.js';
import { parallelThroughput } from '../markdown/throughput.js';
import { ratioOf, type BenchRow } from '../lib/results.js';
import { spread } from '../lib/stats.js';

function textPdfs(): Array<{ pdf: string; pages: number }> {
  return readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith('.pdf'))
    .sort()
    .map((f) => ({
      pdf: path.join(CORPUS_DIR, f),
      meta: JSON.parse(readFileSync(path.join(CORPUS_DIR, f.replace(/\.pdf$/, '.json')), 'utf8')) as TruthMeta,
    }))
    .filter(({ meta }) => meta.route !== 'scan')
    .map(({ pdf, meta }) => ({ pdf, pages: meta.pages }));
}

/** pdftotext over the corpus `passes` times in `lanes` parallel lanes; pages per second. */
async function pdftotextRate(
  files: ReadonlyArray<{ pdf: string; pages: number }>,
  passes: number,
  lanes: number,
): Promise<number> {
  const queue = Array.from({ length: passes }, () => files).flat();
  let pages = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        await runProcess('pdftotext', ['-layout', next.pdf, '-'], { timeoutMs: 60_000 });
        pages += next.pages;
      }
    }),
  );
  return pages / ((performance.now() - started) / 1000);
}

export const markdownRow: BenchRow = {
  id: 'markdown',
  title: 'pdf-to-markdown: pages/s in-process on the bench corpus vs pdftotext',
  minutes: { full: 1, quick: 0.4 },
  async run({ quick, progress }) {
    const files = textPdfs();
    const workers = os.availableParallelism();
    const rounds = quick ? 1 : 3;
    const passes = quick ? 1 : 3;
    const ours: number[] = [];
    const cpuBound: number[] = [];
    const baseline: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const run = await parallelThroughput(
        files.map((f) => f.pdf),
        { passes, workers },
      );
      ours.push(run.wall);
      cpuBound.push(run.cpuBound);
      baseline.push(await pdftotextRate(files, passes, workers));
      progress(
        `round ${round + 1}/${rounds}: ${run.wall.toFixed(1)} pages/s (CPU-bound ${run.cpuBound.toFixed(1)}), ` +
          `pdftotext ${baseline.at(-1)!.toFixed(1)} pages/s`,
      );
    }
    const value = spread(ours);
    const base = spread(baseline).median;
    const pages = files.reduce((n, f) => n + f.pages, 0);
    return [
      {
        row: 'pdf-to-markdown',
        metric: `pages/s in-process, ${workers} processes`,
        unit: 'pages/s',
        value,
        over: `${rounds} rounds of ${passes} passes over ${pages} pages`,
        baseline: { label: 'pdftotext', value: base },
        ratio: ratioOf(value.median, base),
        target: { text: '≥ 50 pages/s', met: value.median >= 50 },
        note:
          `CPU-bound rate ${spread(cpuBound).median.toFixed(1)} pages/s (pages per CPU-second × processes: what ` +
          `the machine's other load does not distort); corpus ${files.length} text PDFs`,
      },
    ];
  },
};
