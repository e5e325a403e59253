/**
 * Structure F1 for PDF input through the document model (pdf.ts), tuning and held-out halves:
 *   nice -n 10 npx tsx bench/structure/run-pdf.ts
 * The real corpus is fetched once with apt-get download into .tmp/bench/markdown-real (bench/markdown/real).
 */
import { f1 } from '../markdown/score.js';
import { generatedStructure, realHeadings } from './pdf.js';

const row = (what: string, c: { truePositives: number; predicted: number; expected: number }) =>
  `  ${what.padEnd(34)} F1 ${f1(c).toFixed(3)}  (${c.truePositives} of ${c.expected} found, ${c.predicted} output)`;

for (const half of ['tune', 'heldout'] as const) {
  const real = await realHeadings(half);
  const lists = await generatedStructure('lists', half);
  console.log(`\n${half}`);
  console.log(`  real corpus: ${real.files} PDFs with an outline`);
  console.log(row('real headings (text)', real.text));
  console.log(row('real headings (level + text)', real.level));
  console.log(`  lists corpus: ${lists.files} PDFs`);
  console.log(row('lists: list items (depth, number, text)', lists.lists));
  console.log(row('lists: headings (level + text)', lists.headings));
}
const layouts = await generatedStructure('layouts');
console.log(`\nlayouts corpus (one set): ${layouts.files} PDFs`);
console.log(row('layouts: headings (level + text)', layouts.headings));
console.log(row('layouts: list items', layouts.lists));
const accuracy = layouts.cells.correct / Math.max(1, layouts.cells.total);
console.log(
  `  ${'layouts: table cells'.padEnd(34)} accuracy ${accuracy.toFixed(3)}` +
    `  (${layouts.cells.correct}/${layouts.cells.total})`,
);
