/**
 * Structure F1 for PDF input through the document model (what op=structure answers): the engine's
 * structure read into the model (plugins/markdown/shared/document.ts), then scored.
 *
 * - The real corpus (bench/markdown/real: PDFs of Debian documentation packages, tuning and held-out
 *   halves fixed by sha256 of the id): headings against each file's outline (bookmarks), by text
 *   (headingKey: section numbers and punctuation aside, as the Markdown bench compares) and by
 *   level + text (the outline's depth + 1). Real PDFs carry no truth for lists or cells.
 * - Lists and table cells: the generated corpora with truth (bench/markdown: the lists corpus' tuning
 *   and held-out halves, the layouts corpus' tables), the model rendered as Markdown by the model's own
 *   renderer and scored by bench/markdown/score.ts (list items with depth and number, cell by cell).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { renderMarkdown, walkBlocks } from '../../core/contract/document/index.js';
import { pdfDocument } from '../../plugins/markdown/shared/document.js';
import { pdfStructure } from '../../plugins/markdown/shared/engine/index.js';
import type { Document } from '../../schema/index.js';
import type { TruthMeta } from '../markdown/corpus/generate.js';
import { LAYOUTS_DIR } from '../markdown/layouts/generate.js';
import { half as listsHalf, LISTS_DIR } from '../markdown/lists/generate.js';
import { loadRealCorpus, MANIFEST_PATH, realCacheDir } from '../markdown/real/corpus.js';
import { headingKey } from '../markdown/real/score.js';
import { truthOf } from '../markdown/real/truth.js';
import { type Counts, f1, scoreDocument } from '../markdown/score.js';
import type { Figure } from '../lib/ratchet.js';

/** Ratios move by one item in a few hundred. */
const RATIO_TOLERANCE = 0.005;
/** Quality is measured here, not speed: a loaded machine must not turn a slow file into an empty one. */
const TIMEOUT_MS = 600_000;

export type RealHalf = 'tune' | 'heldout';

async function modelOf(file: string): Promise<Document> {
  const structure = await pdfStructure(new Uint8Array(readFileSync(file)), { timeoutMs: TIMEOUT_MS });
  return pdfDocument(structure, basename(file));
}

/** Multiset matches of `found` against `expected`. */
function counts(expected: readonly string[], found: readonly string[]): Counts {
  const left = new Map<string, number>();
  for (const key of expected) left.set(key, (left.get(key) ?? 0) + 1);
  let truePositives = 0;
  for (const key of found) {
    const n = left.get(key) ?? 0;
    if (n > 0) {
      truePositives++;
      left.set(key, n - 1);
    }
  }
  return { truePositives, predicted: found.length, expected: expected.length };
}

const add = (a: Counts, b: Counts): Counts => ({
  truePositives: a.truePositives + b.truePositives,
  predicted: a.predicted + b.predicted,
  expected: a.expected + b.expected,
});
const ZERO: Counts = { truePositives: 0, predicted: 0, expected: 0 };

export interface RealHeadings {
  files: number;
  text: Counts;
  level: Counts;
}

/** Headings of the model against the outlines of one half of the real corpus (files with an outline). */
export async function realHeadings(half: RealHalf): Promise<RealHeadings> {
  const corpus = loadRealCorpus((pdf) => pdf.half === half);
  const manifest = JSON.parse(readFileSync(MANIFEST_PATH, 'utf8')) as { pdfs: { half: string }[] };
  const pinned = manifest.pdfs.filter((pdf) => pdf.half === half).length;
  if (corpus.length !== pinned)
    throw new Error(`the real ${half} half has ${corpus.length} of its ${pinned} pinned PDFs (see SKIP lines)`);
  const cache = realCacheDir();
  let text = ZERO;
  let level = ZERO;
  let files = 0;
  for (const pdf of corpus) {
    const truth = await truthOf(pdf, cache);
    const outline = truth.outline.filter((entry) => headingKey(entry.title));
    if (!outline.length) continue;
    files++;
    const headings = [...walkBlocks((await modelOf(pdf.file)).body)].flatMap((block) =>
      block.type === 'heading' && headingKey(block.text) ? [block] : [],
    );
    text = add(
      text,
      counts(
        outline.map((e) => headingKey(e.title)),
        headings.map((h) => headingKey(h.text)),
      ),
    );
    level = add(
      level,
      counts(
        outline.map((e) => `${Math.min(e.depth + 1, 6)}:${headingKey(e.title)}`),
        headings.map((h) => `${h.level}:${headingKey(h.text)}`),
      ),
    );
  }
  return { files, text, level };
}

export interface GeneratedStructure {
  files: number;
  headings: Counts;
  lists: Counts;
  cells: { correct: number; total: number };
}

/** A generated corpus with truth, through the model: headings, list items and table cells. */
export async function generatedStructure(corpus: 'lists' | 'layouts', half?: RealHalf): Promise<GeneratedStructure> {
  const dir = corpus === 'lists' ? LISTS_DIR : LAYOUTS_DIR;
  const names = readdirSync(dir)
    .filter((file) => file.endsWith('.pdf'))
    .map((file) => basename(file, '.pdf'))
    .filter((name) => !half || listsHalf(name) === half)
    .sort();
  const result: GeneratedStructure = { files: 0, headings: ZERO, lists: ZERO, cells: { correct: 0, total: 0 } };
  for (const name of names) {
    const truth = readFileSync(join(dir, `${name}.md`), 'utf8');
    const meta = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as TruthMeta;
    const score = scoreDocument(renderMarkdown(await modelOf(join(dir, `${name}.pdf`))), truth, meta);
    result.files++;
    result.headings = add(result.headings, score.headings);
    result.lists = add(result.lists, score.listItems);
    result.cells.correct += score.tableCells.correct;
    result.cells.total += score.tableCells.total;
  }
  return result;
}

const detail = (c: Counts) => `${c.truePositives} of ${c.expected} found, ${c.predicted} output`;

/**
 * The ratchet's structure figures for PDF input (tuning material only; held-out halves are measured by hand):
 * heading F1 on the real corpus' tuning half (text; level + text), list F1 on the lists corpus' tuning half,
 * table cell accuracy on the layouts corpus.
 */
export async function pdfStructureFigures(): Promise<Figure[]> {
  const real = await realHeadings('tune');
  const lists = await generatedStructure('lists', 'tune');
  const layouts = await generatedStructure('layouts');
  const figure = (id: string, value: number, text: string): Figure => ({
    id: `structure.pdf.${id}`,
    value,
    better: 'higher',
    tolerance: RATIO_TOLERANCE,
    detail: text,
  });
  return [
    figure('real-tune.headingF1', f1(real.text), detail(real.text)),
    figure('real-tune.headingLevelF1', f1(real.level), detail(real.level)),
    figure('lists-tune.listF1', f1(lists.lists), detail(lists.lists)),
    figure('layouts.listF1', f1(layouts.lists), detail(layouts.lists)),
    figure('layouts.headingLevelF1', f1(layouts.headings), detail(layouts.headings)),
    figure(
      'layouts.tableCells',
      layouts.cells.total ? layouts.cells.correct / layouts.cells.total : 1,
      `${layouts.cells.correct}/${layouts.cells.total} cells`,
    ),
  ];
}
