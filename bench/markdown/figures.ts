/**
 * The PDF -> Markdown figures the ratchet holds (bench/lib/ratchet.ts), measured the way the benches measure them:
 * the generated corpora (`single`, `layouts`), the lists corpus' tuning half and the real corpus' tuning half. Our
 * engine only, once per file, in-process; no timing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pdfToMarkdown } from '../../plugins/markdown/shared/engine/index.js';
import type { Figure } from '../lib/ratchet.js';
import { CORPUS_DIR, type TruthMeta } from './corpus/generate.js';
import { LAYOUTS_DIR } from './layouts/generate.js';
import { half as listsHalf, LISTS_DIR } from './lists/generate.js';
import { loadRealCorpus, MANIFEST_PATH, outlineRemovedCopy, realCacheDir } from './real/corpus.js';
import { scoreReal } from './real/score.js';
import { truthOf } from './real/truth.js';
import { type Counts, type DocumentScore, f1, scoreDocument } from './score.js';

/** Ratios move by one item of a corpus of a few hundred; counts (leaks, false tables) may not move at all. */
export const RATIO_TOLERANCE = 0.005;
const TEXT_TOLERANCE = 0.002;

/** A conversion that outruns this on a loaded machine scores as empty: quality is measured here, not speed. */
const TIMEOUT_MS = 600_000;

async function convert(file: string): Promise<string> {
  return (await pdfToMarkdown(new Uint8Array(readFileSync(file)), { timeoutMs: TIMEOUT_MS })).markdown;
}

const sumCounts = (counts: readonly Counts[]): Counts =>
  counts.reduce(
    (a, b) => ({
      truePositives: a.truePositives + b.truePositives,
      predicted: a.predicted + b.predicted,
      expected: a.expected + b.expected,
    }),
    { truePositives: 0, predicted: 0, expected: 0 },
  );

const share = (part: number, whole: number) => (whole === 0 ? 1 : part / whole);

export type GeneratedCorpus = 'single' | 'layouts' | 'lists';

const DIRS: Record<GeneratedCorpus, string> = { single: CORPUS_DIR, layouts: LAYOUTS_DIR, lists: LISTS_DIR };

/** Each document's score on a generated corpus (the lists corpus: its tuning half only). */
export async function scoreGenerated(corpus: GeneratedCorpus): Promise<Map<string, DocumentScore>> {
  const dir = DIRS[corpus];
  const scores = new Map<string, DocumentScore>();
  const names = readdirSync(dir)
    .filter((file) => file.endsWith('.pdf'))
    .map((file) => basename(file, '.pdf'))
    .filter((name) => corpus !== 'lists' || listsHalf(name) === 'tune')
    .sort();
  for (const name of names) {
    const truth = readFileSync(join(dir, `${name}.md`), 'utf8');
    const meta = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as TruthMeta;
    scores.set(name, scoreDocument(await convert(join(dir, `${name}.pdf`)), truth, meta));
  }
  return scores;
}

/** The aggregate figures of a generated corpus: `markdown.<corpus>.<measure>`. */
export function generatedFigures(corpus: GeneratedCorpus, scores: ReadonlyMap<string, DocumentScore>): Figure[] {
  const all = [...scores.values()];
  const prefix = `markdown.${corpus === 'lists' ? 'lists-tune' : corpus}`;
  const add = (pick: (s: DocumentScore) => { correct: number; total: number }) =>
    all.map(pick).reduce((a, b) => ({ correct: a.correct + b.correct, total: a.total + b.total }), {
      correct: 0,
      total: 0,
    });
  const headings = sumCounts(all.map((s) => s.headings));
  const lists = sumCounts(all.map((s) => s.listItems));
  const markers = add((s) => s.pageMarkers);
  const figures: Figure[] = [
    {
      id: `${prefix}.headingF1`,
      value: f1(headings),
      better: 'higher',
      tolerance: RATIO_TOLERANCE,
      detail: `${headings.truePositives} of ${headings.expected} found, ${headings.predicted} output`,
    },
    {
      id: `${prefix}.listF1`,
      value: f1(lists),
      better: 'higher',
      tolerance: RATIO_TOLERANCE,
      detail: `${lists.truePositives} of ${lists.expected} found, ${lists.predicted} output`,
    },
    {
      id: `${prefix}.textSimilarity`,
      value: all.reduce((n, s) => n + s.textSimilarity, 0) / Math.max(1, all.length),
      better: 'higher',
      tolerance: TEXT_TOLERANCE,
    },
    {
      id: `${prefix}.pageMarkers`,
      value: share(markers.correct, markers.total),
      better: 'higher',
      tolerance: RATIO_TOLERANCE,
      detail: `${markers.correct}/${markers.total}`,
    },
    {
      id: `${prefix}.runningLeaks`,
      value: all.reduce((n, s) => n + s.runningLeaks, 0),
      better: 'lower',
      tolerance: 0,
    },
  ];
  const cells = add((s) => s.tableCells);
  if (cells.total) {
    const truthTables = all.reduce((n, s) => n + s.tables.truth, 0);
    const outputTables = all.reduce((n, s) => n + s.tables.output, 0);
    const found = all.reduce((n, s) => n + s.tables.found, 0);
    figures.push(
      {
        id: `${prefix}.tableCells`,
        value: share(cells.correct, cells.total),
        better: 'higher',
        tolerance: RATIO_TOLERANCE,
        detail: `${cells.correct}/${cells.total} cells`,
      },
      {
        id: `${prefix}.teds`,
        value: all.reduce((n, s) => n + s.tables.tedsSum, 0) / truthTables,
        better: 'higher',
        tolerance: RATIO_TOLERANCE,
        detail: `mean over ${truthTables} truth tables`,
      },
      {
        id: `${prefix}.tableRecall`,
        value: share(found, truthTables),
        better: 'higher',
        tolerance: RATIO_TOLERANCE,
        detail: `${found} of ${truthTables} truth tables found`,
      },
      {
        id: `${prefix}.tablePrecision`,
        value: share(found, outputTables),
        better: 'higher',
        tolerance: RATIO_TOLERANCE,
        detail: `${found} of ${outputTables} output tables`,
      },
    );
  }
  return figures;
}

/**
 * The real corpus' tuning half (real/manifest.json, fetched with apt-get download into the bench cache): heading
 * F1 on the outline, running-line leaks on their own page, tables in files without one, files with tables where
 * one is found, word recall, two-column reading order. Throws when a pinned file cannot be had: a ratchet that
 * silently measured fewer files would hide what it is for.
 */
export async function realTuningFigures(): Promise<Figure[]> {
  const corpus = loadRealCorpus((pdf) => pdf.half === 'tune');
  const manifest = JSON.parse(readFileSync(MANIFEST_PATH, 'utf8')) as {
    pdfs: { half: string }[];
  };
  const expected = manifest.pdfs.filter((pdf) => pdf.half === 'tune').length;
  if (corpus.length !== expected)
    throw new Error(`the real tuning half has ${corpus.length} of its ${expected} pinned PDFs (see SKIP lines)`);
  const cache = realCacheDir();
  const headings: Counts = { truePositives: 0, predicted: 0, expected: 0 };
  // The same files' headings with their outline removed (real/no-outline.ts): what the page alone shows.
  const withoutOutline: Counts = { truePositives: 0, predicted: 0, expected: 0 };
  let leaks = 0;
  let running = 0;
  let falseTables = 0;
  let withTables = 0;
  let withTableFound = 0;
  const words = { found: 0, total: 0 };
  const order = { found: 0, total: 0 };
  for (const pdf of corpus) {
    const truth = await truthOf(pdf, cache);
    const score = scoreReal(await convert(pdf.file), truth);
    if (score.headings) {
      for (const key of ['truePositives', 'predicted', 'expected'] as const) headings[key] += score.headings[key];
      const lost = scoreReal(await convert(outlineRemovedCopy(pdf, cache)), truth).headings!;
      for (const key of ['truePositives', 'predicted', 'expected'] as const) withoutOutline[key] += lost[key];
    }
    leaks += score.runningLeaks;
    running += score.runningLines;
    falseTables += score.falseTables ?? 0;
    if (score.foundTables !== undefined) {
      withTables++;
      if (score.foundTables > 0) withTableFound++;
    }
    words.found += score.words.found;
    words.total += score.words.total;
    order.found += score.order.found;
    order.total += score.order.total;
  }
  const prefix = 'markdown.real-tune';
  return [
    {
      id: `${prefix}.headingF1`,
      value: f1(headings),
      better: 'higher',
      tolerance: RATIO_TOLERANCE,
      detail: `${headings.predicted} headings out, ${headings.expected} in the outlines`,
    },
    {
      id: `${prefix}.headingF1OutlineRemoved`,
      value: f1(withoutOutline),
      better: 'higher',
      tolerance: RATIO_TOLERANCE,
      detail: `${withoutOutline.predicted} headings out, ${withoutOutline.expected} in the outlines they lost`,
    },
    {
      id: `${prefix}.runningLeaks`,
      value: leaks,
      better: 'lower',
      tolerance: 0,
      detail: `of ${running} running lines`,
    },
    {
      id: `${prefix}.falseTables`,
      value: falseTables,
      better: 'lower',
      tolerance: 0,
      detail: 'tables in files without one',
    },
    {
      id: `${prefix}.filesWithTableFound`,
      value: withTableFound,
      better: 'higher',
      tolerance: 0,
      detail: `of ${withTables} files with tables`,
    },
    {
      id: `${prefix}.wordRecall`,
      value: share(words.found, words.total),
      better: 'higher',
      tolerance: TEXT_TOLERANCE,
      detail: `${words.found}/${words.total} words`,
    },
    {
      id: `${prefix}.twoColumnOrder`,
      value: share(order.found, order.total),
      better: 'higher',
      tolerance: RATIO_TOLERANCE,
      detail: `${order.found}/${order.total} word pairs`,
    },
  ];
}
