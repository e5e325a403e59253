/**
 * Scores our engine on the lists corpus, per file and per half (generate.ts: `half`): list F1,
 * heading F1, text similarity, page markers and determinism. The held-out half is only measured.
 *
 *   npx tsx bench/markdown/lists/run.ts [--half tune|heldout] [--out dir] [--dir corpus-files-dir]
 *
 * `--dir` scores another corpus in the same format (bench/markdown/corpus/files, layouts/files): ours only, no anchor.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { pdfToMarkdown } from '../../../plugins/markdown/shared/engine/index.js';
import type { TruthMeta } from '../corpus/generate.js';
import { type Counts, type DocumentScore, f1, scoreDocument } from '../score.js';
import { half, LISTS_DIR } from './generate.js';

const { values } = parseArgs({
  options: { half: { type: 'string' }, out: { type: 'string' }, dir: { type: 'string' } },
});

interface Scored {
  name: string;
  half: 'tune' | 'heldout';
  score: DocumentScore;
  deterministic: boolean;
}

const sum = (counts: Counts[]): Counts =>
  counts.reduce(
    (a, b) => ({
      truePositives: a.truePositives + b.truePositives,
      predicted: a.predicted + b.predicted,
      expected: a.expected + b.expected,
    }),
    { truePositives: 0, predicted: 0, expected: 0 },
  );

function summary(label: string, scored: readonly Scored[]): string {
  if (!scored.length) return `${label}: no files`;
  const lists = sum(scored.map((s) => s.score.listItems));
  const headings = sum(scored.map((s) => s.score.headings));
  const text = scored.reduce((n, s) => n + s.score.textSimilarity, 0) / scored.length;
  const markers = scored.reduce(
    (a, s) => ({ correct: a.correct + s.score.pageMarkers.correct, total: a.total + s.score.pageMarkers.total }),
    { correct: 0, total: 0 },
  );
  const deterministic = scored.filter((s) => s.deterministic).length;
  return (
    `${label.padEnd(16)} files ${String(scored.length).padStart(2)}  list F1 ${f1(lists).toFixed(3)} ` +
    `(${lists.truePositives}/${lists.expected} found, ${lists.predicted} output)  heading F1 ` +
    `${f1(headings).toFixed(3)}  ` +
    `text ${text.toFixed(4)}  page markers ${markers.correct}/${markers.total}  deterministic ` +
    `${deterministic}/${scored.length}`
  );
}

const scored: Scored[] = [];
const dir = values.dir ?? LISTS_DIR;
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith('.pdf'))
  .sort()) {
  const name = basename(file, '.pdf');
  if (values.half && half(name) !== values.half) continue;
  const bytes = new Uint8Array(readFileSync(join(dir, file)));
  const first = (await pdfToMarkdown(bytes)).markdown;
  const second = (await pdfToMarkdown(bytes)).markdown;
  const truth = readFileSync(join(dir, `${name}.md`), 'utf8');
  const meta = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as TruthMeta;
  if (values.out) {
    mkdirSync(values.out, { recursive: true });
    writeFileSync(join(values.out, `${name}.md`), first);
  }
  const entry: Scored = {
    name,
    half: half(name),
    score: scoreDocument(first, truth, meta),
    deterministic: first === second,
  };
  scored.push(entry);
  console.log(summary(`${name} (${entry.half})`, [entry]));
}
console.log('');
for (const which of ['tune', 'heldout'] as const)
  console.log(
    summary(
      which,
      scored.filter((s) => s.half === which),
    ),
  );
console.log(summary('all', scored));
