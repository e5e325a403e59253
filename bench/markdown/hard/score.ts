/**
 * Scores our engine on the hard-layout corpus (files/, made by generate.ts): per document the truth tables against
 * the output (cell accuracy, TEDS, tables found, output tables) and running-line leaks; per half the aggregates
 * the ratchet holds (`markdown.hard-tune.*`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pdfToMarkdown } from '../../../plugins/markdown/shared/engine/index.js';
import type { Figure } from '../../lib/ratchet.js';
import { runningLeaks, scoreTableDetection, scoreTables, type TableDetection } from '../score.js';
import { HARD_DIR, type HardMeta } from './generate.js';

export interface HardScore {
  name: string;
  meta: HardMeta;
  cells: { correct: number; total: number };
  tables: TableDetection;
  leaks: number;
  markdown: string;
}

const TIMEOUT_MS = 600_000;
const RATIO_TOLERANCE = 0.005;

export function hardNames(half?: 'tune' | 'heldout'): string[] {
  return readdirSync(HARD_DIR)
    .filter((file) => file.endsWith('.json'))
    .map((file) => basename(file, '.json'))
    .filter((name) => !half || readMeta(name).half === half)
    .sort();
}

const readMeta = (name: string) => JSON.parse(readFileSync(join(HARD_DIR, `${name}.json`), 'utf8')) as HardMeta;

/** A document's PDF, for a converter other than ours (the anchor). */
export const hardPdfPath = (name: string) => join(HARD_DIR, `${name}.pdf`);

export async function scoreHard(name: string): Promise<HardScore> {
  const pdf = new Uint8Array(readFileSync(hardPdfPath(name)));
  const { markdown } = await pdfToMarkdown(pdf, { timeoutMs: TIMEOUT_MS });
  return scoreHardMarkdown(name, markdown);
}

/** Scores any converter's Markdown of a document by the same rules as ours. */
export function scoreHardMarkdown(name: string, markdown: string): HardScore {
  const meta = readMeta(name);
  const truth = readFileSync(join(HARD_DIR, `${name}.md`), 'utf8');
  return {
    name,
    meta,
    cells: scoreTables(markdown, truth),
    tables: scoreTableDetection(markdown, truth),
    leaks: runningLeaks(markdown, meta.runningLines),
    markdown,
  };
}

export interface HardAggregate {
  documents: number;
  cells: { correct: number; total: number };
  truth: number;
  output: number;
  found: number;
  teds: number;
  leaks: number;
  runningLines: number;
}

export function aggregate(scores: readonly HardScore[]): HardAggregate {
  const sum = (pick: (s: HardScore) => number) => scores.reduce((n, s) => n + pick(s), 0);
  const truth = sum((s) => s.tables.truth);
  return {
    documents: scores.length,
    cells: { correct: sum((s) => s.cells.correct), total: sum((s) => s.cells.total) },
    truth,
    output: sum((s) => s.tables.output),
    found: sum((s) => s.tables.found),
    teds: truth ? sum((s) => s.tables.tedsSum) / truth : 1,
    leaks: sum((s) => s.leaks),
    // Each page prints each running line once.
    runningLines: sum((s) => s.meta.pages * s.meta.runningLines.length),
  };
}

const share = (part: number, whole: number) => (whole === 0 ? 1 : part / whole);

/** The tuning half's figures for the ratchet. */
export function hardFigures(half: 'tune' | 'heldout', scores: readonly HardScore[]): Figure[] {
  const a = aggregate(scores);
  const prefix = `markdown.hard-${half === 'tune' ? 'tune' : 'heldout'}`;
  return [
    {
      id: `${prefix}.tableCells`,
      value: share(a.cells.correct, a.cells.total),
      better: 'higher',
      tolerance: RATIO_TOLERANCE,
      detail: `${a.cells.correct}/${a.cells.total} cells`,
    },
    {
      id: `${prefix}.teds`,
      value: a.teds,
      better: 'higher',
      tolerance: RATIO_TOLERANCE,
      detail: `mean over ${a.truth} truth tables`,
    },
    {
      id: `${prefix}.tableRecall`,
      value: share(a.found, a.truth),
      better: 'higher',
      tolerance: RATIO_TOLERANCE,
      detail: `${a.found} of ${a.truth} truth tables found`,
    },
    {
      id: `${prefix}.tablePrecision`,
      value: share(a.found, a.output),
      better: 'higher',
      tolerance: RATIO_TOLERANCE,
      detail: `${a.found} of ${a.output} output tables`,
    },
    {
      id: `${prefix}.runningLeaks`,
      value: a.leaks,
      better: 'lower',
      tolerance: 0,
      detail: `of ${a.runningLines} running lines`,
    },
  ];
}
