/**
 * Prints our engine's table figures on the hard-layout corpus, per document and per half, by producer and layout.
 *
 *   nice -n 10 npx tsx bench/markdown/hard/run.ts [--half tune|heldout] [--files] [--show name]
 *
 * `--files` prints each document's line (tuning half only: the held-out half is reported as aggregates);
 * `--show name` prints a tuning document's Markdown.
 */
import { aggregate, type HardAggregate, type HardScore, hardNames, scoreHard } from './score.js';

const args = process.argv.slice(2);
const option = (flag: string) => {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
};
const halves = (option('--half') ? [option('--half')] : ['tune', 'heldout']) as ('tune' | 'heldout')[];
const show = option('--show');

const ratio = (a: number, b: number) => (b === 0 ? '-' : (a / b).toFixed(3));
const line = (label: string, a: HardAggregate) =>
  `| ${label} | ${a.documents} | ${ratio(a.cells.correct, a.cells.total)} (${a.cells.correct}/${a.cells.total}) | ` +
  `${a.teds.toFixed(3)} | ${a.truth} | ${a.output} | ${a.found} | ${ratio(a.found, a.output)} | ` +
  `${ratio(a.found, a.truth)} | ${a.leaks}/${a.runningLines} |`;

for (const half of halves) {
  const scores: HardScore[] = [];
  for (const name of hardNames(half)) {
    const score = await scoreHard(name);
    scores.push(score);
    if (half === 'tune' && args.includes('--files'))
      console.log(
        `${name}: cells ${score.cells.correct}/${score.cells.total}, TEDS ${(
          score.tables.tedsSum / Math.max(1, score.tables.truth)
        ).toFixed(3)}, found ${score.tables.found}/${score.tables.truth}, output ${score.tables.output}, leaks ${
          score.leaks
        }`,
      );
    if (half === 'tune' && show === name) console.log(score.markdown);
  }
  console.log(`\n${half}\n| set | docs | cells | TEDS | truth | output | found | precision | recall | leaks |`);
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  console.log(line('all', aggregate(scores)));
  for (const key of ['latex', 'office', 'browser'])
    console.log(line(key, aggregate(scores.filter((s) => s.meta.producer === key))));
  for (const key of ['two-column', 'merged', 'continued', 'footnotes', 'scan'])
    console.log(line(key, aggregate(scores.filter((s) => s.meta.layout === key))));
}
