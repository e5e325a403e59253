/**
 * Measures the figures the ratchet holds and compares them with bench/baselines.json (bench/lib/ratchet.ts); with
 * --update, writes the measured figures in (a raise is a commit of that file; a worse value needs --why).
 *
 *   npx tsx bench/ratchet.ts [single] [layouts] [lists] [real] [cv] [hard] [printed] [structure-pdf] [office]
 *     [--update [--why "reason"]]
 *
 * With no corpus named, all but `office` (the same figures `npm test` checks in bench/markdown/ratchet.test.ts,
 * bench/markdown/real/ratchet.test.ts, bench/markdown/hard/ratchet.test.ts, bench/markdown/printed/ratchet.test.ts,
 * bench/cv/ratchet.test.ts and bench/structure/ratchet.test.ts). `office` (the office fidelity bench, both halves)
 * takes about 25 minutes of a loaded 2-core machine, too long for `npm test`: it runs only when named, and at the
 * end of every bench/office-fidelity/run.ts.
 */
import { parseArgs } from 'node:util';
import { cvTuningFigures } from './cv/figures.js';
import { checkFigures, type Figure, failures, readBaselines, updateBaselines, writeBaselines } from './lib/ratchet.js';
import { generatedFigures, realTuningFigures, scoreGenerated } from './markdown/figures.js';
import { hardFigures, hardNames, scoreHard } from './markdown/hard/score.js';
import { printedFigures } from './markdown/printed/corpus.js';
import { fidelityFigures } from './office-fidelity/figures.js';
import { pdfStructureFigures } from './structure/pdf.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { update: { type: 'boolean', default: false }, why: { type: 'string' } },
});
const CORPORA = ['single', 'layouts', 'lists', 'real', 'cv', 'hard', 'printed', 'structure-pdf', 'office'] as const;
const wanted = positionals.length ? positionals : CORPORA.filter((name) => name !== 'office');
for (const name of wanted)
  if (!(CORPORA as readonly string[]).includes(name)) throw new Error(`unknown corpus ${name}: ${CORPORA.join(', ')}`);

const figures: Figure[] = [];
for (const name of wanted) {
  if (name === 'single' || name === 'layouts' || name === 'lists')
    figures.push(...generatedFigures(name, await scoreGenerated(name)));
  else if (name === 'real') figures.push(...(await realTuningFigures()));
  else if (name === 'hard') {
    const scores = [];
    for (const hard of hardNames('tune')) scores.push(await scoreHard(hard));
    figures.push(...hardFigures('tune', scores));
  } else if (name === 'printed') figures.push(...(await printedFigures('tune')));
  else if (name === 'structure-pdf') figures.push(...(await pdfStructureFigures()));
  else if (name === 'office')
    figures.push(...fidelityFigures(await (await import('./office-fidelity/measure.js')).measureOfficeCorpus()));
  else if (name === 'cv') figures.push(...(await cvTuningFigures('first')), ...(await cvTuningFigures('second')));
}

const baselines = readBaselines();
const verdicts = checkFigures(figures, baselines);
for (const verdict of verdicts) console.log(`${verdict.status.padEnd(18)} ${verdict.message}`);
if (values.update) {
  const { baselines: next, refused } = updateBaselines(baselines, figures, values.why);
  writeBaselines(next);
  console.log(`\nbench/baselines.json written (${figures.length - refused.length} figures)`);
  if (refused.length) {
    console.log(`refused, worse than their baselines (give --why "<reason>" to lower them): ${refused.join(', ')}`);
    process.exitCode = 1;
  }
} else if (failures(verdicts).length) process.exitCode = 1;
