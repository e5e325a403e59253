/**
 * Prints our engine's table figures on the hard-layout corpus, per document and per half, by producer and layout.
 *
 *   nice -n 10 npx tsx bench/markdown/hard/run.ts [--half tune|heldout] [--files] [--show name] [--anchor]
 *
 * `--files` prints each document's line (tuning half only: the held-out half is reported as aggregates);
 * `--show name` prints a tuning document's Markdown (with `--anchor`, the anchor's too). `--anchor` also converts
 * each document with the comparison converter (@opendataloader/pdf, one JVM a half) and prints its figures, scored
 * by the same rules, on the line under ours.
 */
import { anchorUnavailable, convertWithAnchor } from '../anchor.js';
import {
  aggregate,
  type HardAggregate,
  type HardScore,
  hardNames,
  hardPdfPath,
  scoreHard,
  scoreHardMarkdown,
} from './score.js';

const args = process.argv.slice(2);
const option = (flag: string) => {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
};
const halves = (option('--half') ? [option('--half')] : ['tune', 'heldout']) as ('tune' | 'heldout')[];
const show = option('--show');
const withAnchor = args.includes('--anchor');

const ratio = (a: number, b: number) => (b === 0 ? '-' : (a / b).toFixed(3));
const line = (label: string, engine: string, a: HardAggregate) =>
  `| ${label} | ${engine} | ${a.documents} | ${ratio(a.cells.correct, a.cells.total)} ` +
  `(${a.cells.correct}/${a.cells.total}) | ${a.teds.toFixed(3)} | ${a.truth} | ${a.output} | ${a.found} | ` +
  `${ratio(a.found, a.output)} | ${ratio(a.found, a.truth)} | ${a.leaks}/${a.runningLines} |`;
const fileLine = (name: string, engine: string, score: HardScore) =>
  `${name} ${engine}: cells ${score.cells.correct}/${score.cells.total}, TEDS ${(
    score.tables.tedsSum / Math.max(1, score.tables.truth)
  ).toFixed(3)}, found ${score.tables.found}/${score.tables.truth}, output ${score.tables.output}, leaks ${
    score.leaks
  }`;

async function anchorScores(names: readonly string[]): Promise<HardScore[] | string> {
  const unavailable = await anchorUnavailable();
  if (unavailable) return unavailable;
  try {
    const { outputs } = await convertWithAnchor(names.map((name) => ({ id: name, file: hardPdfPath(name) })));
    return names.map((name) => scoreHardMarkdown(name, outputs.get(name) ?? ''));
  } catch (error) {
    return `@opendataloader/pdf failed: ${(error as Error).message.split('\n')[0]}`;
  }
}

for (const half of halves) {
  const names = hardNames(half);
  const ours: HardScore[] = [];
  for (const name of names) ours.push(await scoreHard(name));
  const anchorRun = withAnchor ? await anchorScores(names) : 'not asked for (--anchor)';
  const anchor = typeof anchorRun === 'string' ? undefined : anchorRun;
  if (withAnchor && !anchor) console.log(`ANCHOR NOT RUN: ${anchorRun}`);
  if (half === 'tune')
    names.forEach((name, i) => {
      if (args.includes('--files')) {
        console.log(fileLine(name, 'ours', ours[i]!));
        if (anchor) console.log(fileLine(name, 'anchor', anchor[i]!));
      }
      if (show === name) {
        console.log(ours[i]!.markdown);
        if (anchor) console.log(`--- anchor ---\n${anchor[i]!.markdown}`);
      }
    });
  console.log(
    `\n${half}\n| set | engine | docs | cells | TEDS | truth | output | found | precision | recall | leaks |`,
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  const rows = (label: string, keep: (s: HardScore) => boolean) => {
    console.log(line(label, 'ours', aggregate(ours.filter(keep))));
    if (anchor) console.log(line(label, 'anchor', aggregate(anchor.filter(keep))));
  };
  rows('all', () => true);
  for (const key of ['latex', 'office', 'browser']) rows(key, (s) => s.meta.producer === key);
  for (const key of ['two-column', 'merged', 'continued', 'footnotes', 'scan']) rows(key, (s) => s.meta.layout === key);
}
