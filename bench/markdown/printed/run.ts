/**
 * The printed corpus: real HTML documentation pages printed to PDF by a browser and exported by an office suite,
 * truth from the HTML (selection, halves and truth: corpus.ts). Scores table detection (precision, recall: a truth
 * table is found when its paired output table scores TEDS 0.5 or more), mean TEDS over truth tables, per producer
 * and per half. Held-out pages are counted only, unless --lines asks for them.
 *
 *   nice -n 10 npx tsx bench/markdown/printed/run.ts [--half tune|heldout] [--only text] [--lines]
 */
import { parseArgs } from 'node:util';
import { scoreTableDetection, type TableDetection } from '../score.js';
import { convertPrinted, type Entry, printedCorpus, sumDetection } from './corpus.js';

const { values } = parseArgs({
  options: { half: { type: 'string' }, only: { type: 'string' }, lines: { type: 'boolean', default: false } },
});

const line = (label: string, s: TableDetection, files: number) =>
  `${label.padEnd(22)} files ${String(files).padStart(3)}  truth tables ${String(s.truth).padStart(4)}  output ` +
  `${String(s.output).padStart(4)}  found ${String(s.found).padStart(4)}  precision` +
  ` ${(s.output ? s.found / s.output : 1).toFixed(3)}  ` +
  `recall ${(s.truth ? s.found / s.truth : 1).toFixed(3)}  TEDS ${(s.truth ? s.tedsSum / s.truth : 1).toFixed(3)}`;

const results: { entry: Entry; score: TableDetection }[] = [];
for (const entry of printedCorpus()) {
  if (values.half && entry.half !== values.half) continue;
  if (values.only && !entry.id.includes(values.only)) continue;
  const markdown = await convertPrinted(entry);
  const score = scoreTableDetection(markdown, entry.truth);
  results.push({ entry, score });
  // Held-out files are only counted: their lines are not printed unless asked for.
  if (values.lines || entry.half === 'tune')
    console.log(
      line(`${entry.half === 'tune' ? 'T' : 'H'} ${entry.producer} ${entry.id.replace(/^.*\//, '')}`, score, 1),
    );
}
console.log('');
for (const half of ['tune', 'heldout'] as const)
  for (const producer of ['browser', 'office'] as const) {
    const picked = results.filter((r) => r.entry.half === half && r.entry.producer === producer);
    if (picked.length)
      console.log(line(`${half} ${producer}`, sumDetection(picked.map((r) => r.score)), picked.length));
  }
for (const half of ['tune', 'heldout'] as const) {
  const picked = results.filter((r) => r.entry.half === half);
  if (picked.length) console.log(line(`${half} both`, sumDetection(picked.map((r) => r.score)), picked.length));
}
