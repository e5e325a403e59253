/**
 * Headings without an outline: each real PDF of a half is converted twice, as shipped and as a copy with its
 * outline removed (qpdf: the pages copied into an empty PDF, which leaves /Outlines behind), and both outputs are
 * scored against the shipped file's outline (heading F1, as run.ts scores it). Files without an outline have no
 * heading truth and are left out, as in run.ts.
 *
 *   nice -n 10 npx tsx bench/markdown/real/no-outline.ts [--half tune|heldout|extra] [--files]
 *
 * `--files` prints each file's line (tuning half and extra set only; a held-out file's line is never printed).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { pdfToMarkdown } from '../../../plugins/markdown/shared/engine/index.js';
import { type Counts, f1 } from '../score.js';
import { loadRealCorpus, outlineRemovedCopy, realCacheDir } from './corpus.js';
import { scoreReal } from './score.js';
import { truthOf } from './truth.js';

const { values } = parseArgs({
  options: { half: { type: 'string', default: 'tune' }, files: { type: 'boolean', default: false } },
});
const half = values.half!;
const corpus = loadRealCorpus((pdf) => pdf.half === half);
const cache = realCacheDir();

const convert = async (file: string) =>
  (await pdfToMarkdown(new Uint8Array(readFileSync(file)), { timeoutMs: 600_000 })).markdown;
const add = (into: Counts, from: Counts) => {
  into.truePositives += from.truePositives;
  into.predicted += from.predicted;
  into.expected += from.expected;
};

const withOutline: Counts = { truePositives: 0, predicted: 0, expected: 0 };
const without: Counts = { truePositives: 0, predicted: 0, expected: 0 };
let files = 0;
for (const pdf of corpus) {
  const truth = await truthOf(pdf, cache);
  if (!truth.outline.length) continue;
  const copy = outlineRemovedCopy(pdf, cache);
  const kept = scoreReal(await convert(pdf.file), truth).headings;
  const lost = scoreReal(await convert(copy), truth).headings;
  if (!kept || !lost) continue;
  files++;
  add(withOutline, kept);
  add(without, lost);
  if (values.files && half !== 'heldout')
    console.log(
      `${pdf.id.replace(/^.*\//, '').padEnd(32)} with outline ${f1(kept).toFixed(2)} ` +
        `(${kept.predicted}/${kept.expected})` +
        `  without ${f1(lost).toFixed(2)} (${lost.predicted}/${lost.expected})`,
    );
}
const line = (label: string, c: Counts) =>
  `${label.padEnd(16)} heading F1 ${f1(c).toFixed(3)}  headings out ${c.predicted} / outline ${c.expected}, ${
    c.truePositives
  } matched`;
console.log(`\n${half}: ${files} files with an outline`);
console.log(line('with outline', withOutline));
console.log(line('outline removed', without));
