/**
 * The benchmark suite: runs each row, prints progress, and writes a table where every
 * measurement stands against a baseline measured in the same run, with its target and
 * MET / MISSED.
 *
 *   npm run bench                        # every row, full durations (about 13 minutes); writes bench/RESULTS.md
 *   npm run bench -- --quick             # short durations for development; writes .tmp/bench/RESULTS-quick.md
 *   npm run bench -- --only office,polling
 *   npm run bench -- --out path.md
 *   npm run bench -- --quick --update [--why "reason"]   # write the quick run's speed figures into
 * bench/baselines.json
 *
 * With --quick, the speed ratchet checks the rows' ratios against bench/baselines.json (bench/lib/ratchet.ts, the
 * same file as the extraction figures): a ratio worse than its baseline by more than its tolerance exits 1 and names
 * the rows. The baselines are quick-mode figures, so a full run prints its ratios without checking them. Wall-time
 * ratios are held on a quiet machine only: when other work already uses a quarter of the CPU at the start, only the
 * CPU figures (service CPU per job) are checked or written (bench/README.md, "The speed ratchet").
 */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from '../test/helpers.js';
import { machineBusyShare } from './lib/cpu.js';
import { checkFigures, failures, readBaselines, updateBaselines, writeBaselines } from './lib/ratchet.js';
import { missedLines, speedFigures, tableLines, type BenchRow, type Measurement } from './lib/results.js';
import { chromiumRow } from './rows/chromium.js';
import { imageRow } from './rows/image.js';
import { isolationRow } from './rows/isolation.js';
import { markdownRow } from './rows/markdown.js';
import { mediaRow } from './rows/media.js';
import { officeRow } from './rows/office.js';
import { pollingRow } from './rows/polling.js';
import { serviceCpuRow } from './rows/service-cpu.js';
import { uploadsRow } from './rows/uploads.js';

const ROWS: readonly BenchRow[] = [
  officeRow,
  imageRow,
  mediaRow,
  uploadsRow,
  pollingRow,
  markdownRow,
  isolationRow,
  chromiumRow,
  serviceCpuRow,
];

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    out: { type: 'string' },
    update: { type: 'boolean', default: false },
    why: { type: 'string' },
  },
  strict: true,
});
const quick = values.quick!;
const wanted = values.only
  ?.split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const unknown = wanted?.filter((id) => !ROWS.some((r) => r.id === id)) ?? [];
if (unknown.length) {
  console.error(`unknown row(s): ${unknown.join(', ')}; rows: ${ROWS.map((r) => r.id).join(', ')}`);
  process.exit(2);
}
if (values.update && !values.quick) {
  console.error("--update writes the speed ratchet's baselines, which are quick-mode figures: add --quick");
  process.exit(2);
}
const rows = ROWS.filter((r) => !wanted || wanted.includes(r.id));
const out = values.out
  ? path.resolve(values.out)
  : quick
    ? path.join(ROOT, '.tmp/bench/RESULTS-quick.md')
    : path.join(ROOT, 'bench/RESULTS.md');

const loadText = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const commit = (() => {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
})();
const startedAt = new Date();
/** Other work's share of the CPU before the first row: above this, wall-time ratios say more about it than about us. */
const BUSY_SHARE = 0.25;
const busyShare = await machineBusyShare();
const quiet = busyShare < BUSY_SHARE;
const facts = [
  `date: ${startedAt.toISOString()}`,
  `mode: ${quick ? 'QUICK (short durations, for development: do not quote)' : 'full'}`,
  `machine: ${os.availableParallelism()} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), ` +
    `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${os.type()} ${os.release()}, Node ${process.version}`,
  `load average at start (1/5/15 min): ${loadText()}`,
  `CPU in use before the first row (3 s, all cores): ${(busyShare * 100).toFixed(0)}% (${quiet ? 'quiet' : 'busy'})`,
  `commit: ${commit}`,
];
const estimate = rows.reduce((n, r) => n + r.minutes[quick ? 'quick' : 'full'], 0);
console.log(facts.join('\n'));
console.log(`rows: ${rows.map((r) => r.id).join(', ')} (about ${Math.ceil(estimate)} min)\n`);

const measurements: Measurement[] = [];
const errors: string[] = [];
const durations: string[] = [];
for (const [i, row] of rows.entries()) {
  const began = performance.now();
  console.log(
    `[${i + 1}/${rows.length}] ${row.title} (about ${row.minutes[quick ? 'quick' : 'full']} min; load ${loadText()})`,
  );
  try {
    measurements.push(...(await row.run({ quick, progress: (message) => console.log(`  ${row.id}: ${message}`) })));
  } catch (err) {
    const message = `ERROR: ${row.id} did not complete: ${(err as Error).stack ?? String(err)}`;
    errors.push(message.split('\n').slice(0, 3).join(' '));
    console.error(message);
  }
  durations.push(`${row.id} ${((performance.now() - began) / 60_000).toFixed(1)} min`);
}

/** The speed ratchet (quick mode): its verdict lines, and whether it failed. */
const ratchetLines: string[] = [];
let ratchetFailed = false;
const measured = speedFigures(measurements);
// A busy machine stretches wall time by a third to all of itself (bench/README.md): only CPU figures are held then.
const cpuFigures = new Set(measurements.filter((m) => m.ratchet?.of === 'value').map((m) => m.ratchet!.id));
const figures = quick && !quiet ? measured.filter((f) => cpuFigures.has(f.id)) : measured;
if (quick && !quiet)
  ratchetLines.push(
    ...measured
      .filter((f) => !cpuFigures.has(f.id))
      .map(
        (f) =>
          `${f.id} = ${f.value.toFixed(4)} (not checked: ${(busyShare * 100).toFixed(0)}% of the CPU was in use ` +
          'at the start; wall-time ratios are held on a quiet machine)',
      ),
  );
if (figures.length && quick) {
  const baselines = readBaselines();
  const verdicts = checkFigures(figures, baselines);
  // The ratchet's hint names the extraction figures' command; speed figures are written by this one.
  const hint = (message: string) =>
    message.replace('npx tsx bench/ratchet.ts --update', 'npm run bench -- --quick --update');
  ratchetLines.push(...verdicts.map((v) => `${v.status.padEnd(18)} ${hint(v.message)}`));
  if (values.update) {
    const { baselines: next, refused } = updateBaselines(baselines, figures, values.why);
    writeBaselines(next);
    ratchetLines.push(`bench/baselines.json written (${figures.length - refused.length} speed figures)`);
    if (refused.length) {
      ratchetLines.push(`refused, worse than their baselines (give --why "<reason>"): ${refused.join(', ')}`);
      ratchetFailed = true;
    }
  } else {
    const failed = failures(verdicts);
    if (failed.length) {
      ratchetFailed = true;
      ratchetLines.push(`SPEED RATCHET FAILED: ${failed.map((v) => v.id).join(', ')}`);
    }
  }
} else if (figures.length)
  ratchetLines.push(
    ...figures.map((f) => `${f.id} = ${f.value.toFixed(4)} (not checked: the baselines are quick-mode figures)`),
  );

const table = tableLines(measurements);
const missed = missedLines(measurements);
const notes = measurements.filter((m) => m.note).map((m) => `- ${m.row}, ${m.metric}: ${m.note}`);
const report = [
  '# Benchmark results',
  '',
  `Written by \`npm run bench${quick ? ' -- --quick' : ''}${wanted ? ` -- --only ${wanted.join(',')}` : ''}\` ` +
    `(bench/run.ts; what each row measures: bench/README.md).`,
  '',
  ...facts.map((f) => `- ${f}`),
  `- load average at end: ${loadText()}`,
  `- duration: ${((Date.now() - startedAt.getTime()) / 60_000).toFixed(1)} min (${durations.join(', ')})`,
  '',
  ...table,
  '',
  ...(missed.length || errors.length
    ? ['## Missed or not run', '', ...[...missed, ...errors].map((l) => `- ${l}`), '']
    : ['All targets met.', '']),
  ...(notes.length ? ['## Notes', '', ...notes, ''] : []),
  ...(ratchetLines.length ? ['## Speed ratchet', '', ...ratchetLines.map((l) => `    ${l}`), ''] : []),
].join('\n');
await mkdir(path.dirname(out), { recursive: true });
await writeFile(out, report);
console.log(`\n${table.join('\n')}\n`);
for (const line of [...missed, ...errors]) console.log(line);
if (!missed.length && !errors.length) console.log('All targets met.');
if (ratchetLines.length) console.log(`\nspeed ratchet:\n${ratchetLines.join('\n')}`);
console.log(`\nwritten: ${path.relative(process.cwd(), out)}`);
process.exit(errors.length || ratchetFailed ? 1 : 0);
