/**
 * The ratchet: quality figures measured by the benches are held against baselines committed in
 * bench/baselines.json, so a figure that drops fails `npm test` instead of going unnoticed.
 *
 * - A bench reports `Figure`s: an id (`markdown.layouts.teds`), its value, which way is better, and how far it may
 *   move the wrong way before it counts as a regression (the figures here are deterministic; the tolerance absorbs
 *   one item of a large corpus, not noise).
 * - `checkFigures` compares them with the baselines: worse than baseline by more than the tolerance is a regression;
 *   better is reported, so the baseline can be raised.
 * - Raising baselines is a commit of the file written by `npx tsx bench/ratchet.ts --update` (the new figures).
 *   Lowering one needs a note: `--update` refuses a worse value unless `--why "<reason>"` is given, and writes the
 *   reason on the entry (`why`, with the value it came `from`). bench/lib/ratchet.test.ts checks the committed file
 *   the same way, against the version before its last change, so a hand edit that lowers a baseline without a new
 *   `why` fails too.
 *
 * Any figure kind can use it (speed ratios, office fidelity, structure F1): measure, call `checkFigures` in a test,
 * and add the ids with `--update`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type Better = 'higher' | 'lower';

export interface Figure {
  /** `<bench>.<corpus>.<measure>`, stable: the baseline is found by it. */
  id: string;
  value: number;
  better: Better;
  /** How far the value may move the wrong way before it is a regression (absolute, in the figure's unit). */
  tolerance: number;
  /** What the value counts, for the report ("245/250 items"). */
  detail?: string;
}

export interface Baseline {
  value: number;
  better: Better;
  tolerance: number;
  /** Why the last change lowered this baseline (required when a value goes the wrong way). */
  why?: string;
  /** The value before that lowering. */
  from?: number;
}

export type Baselines = Record<string, Baseline>;

export const BASELINES_PATH = join(dirname(fileURLToPath(import.meta.url)), '../baselines.json');

export function readBaselines(path = BASELINES_PATH): Baselines {
  return JSON.parse(readFileSync(path, 'utf8')) as Baselines;
}

/** Sorted keys, one entry a line: diffs of a raise read figure by figure. */
export function formatBaselines(baselines: Baselines): string {
  const ids = Object.keys(baselines).sort();
  const lines = ids.map((id) => `  ${JSON.stringify(id)}: ${JSON.stringify(baselines[id])}`);
  return `{\n${lines.join(',\n')}\n}\n`;
}

/** How much worse `value` is than `baseline` (positive: worse, in the figure's unit). */
export const worseBy = (value: number, baseline: number, better: Better): number =>
  better === 'higher' ? baseline - value : value - baseline;

/** Rounded as stored: figures are kept to 4 decimals so float noise never reads as a change. */
export const round = (value: number): number => Math.round(value * 10_000) / 10_000;

export interface Verdict {
  id: string;
  value: number;
  baseline?: number;
  status: 'regressed' | 'improved' | 'held' | 'new' | 'definition changed';
  message: string;
}

export function checkFigures(figures: readonly Figure[], baselines: Baselines = readBaselines()): Verdict[] {
  return figures.map((figure) => {
    const value = round(figure.value);
    const base = baselines[figure.id];
    const detail = figure.detail ? ` (${figure.detail})` : '';
    if (!base)
      return {
        id: figure.id,
        value,
        status: 'new',
        message: `${figure.id} = ${value}${detail} has no baseline: add it with npx tsx bench/ratchet.ts --update`,
      };
    if (base.better !== figure.better || base.tolerance !== figure.tolerance)
      return {
        id: figure.id,
        value,
        baseline: base.value,
        status: 'definition changed',
        message:
          `${figure.id}: the bench says ${figure.better} is better with tolerance ${figure.tolerance}, the baseline ` +
          `${base.better} with ${base.tolerance}: update the baseline with the figure's definition`,
      };
    const worse = round(worseBy(value, base.value, figure.better));
    const status = worse > figure.tolerance + 1e-9 ? 'regressed' : worse < 0 ? 'improved' : 'held';
    return {
      id: figure.id,
      value,
      baseline: base.value,
      status,
      message: `${figure.id} = ${value}${detail}, baseline ${base.value} (${figure.better} is better, tolerance ${
        figure.tolerance
      })${status === 'regressed' ? ': REGRESSED' : status === 'improved' ? ': improved, raise the baseline' : ''}`,
    };
  });
}

/** The failures of a check: regressions, figures without a baseline, definitions that changed. */
export const failures = (verdicts: readonly Verdict[]): Verdict[] =>
  verdicts.filter((v) => v.status !== 'held' && v.status !== 'improved');

/**
 * Baselines with the measured figures written in: better or equal values replace the old ones, a worse one only
 * with `why` (recorded on the entry with the value it came from). Returns the refused ids.
 */
export function updateBaselines(
  baselines: Baselines,
  figures: readonly Figure[],
  why?: string,
): { baselines: Baselines; refused: string[] } {
  const next: Baselines = { ...baselines };
  const refused: string[] = [];
  for (const figure of figures) {
    const value = round(figure.value);
    const old = baselines[figure.id];
    const entry: Baseline = { value, better: figure.better, tolerance: figure.tolerance };
    if (old && worseBy(value, old.value, old.better) > 0) {
      if (!why) {
        refused.push(figure.id);
        continue;
      }
      next[figure.id] = { ...entry, why, from: old.value };
    } else if (old?.why !== undefined && value === old.value && entry.tolerance === old.tolerance) {
      // Unchanged: the note on why it was lowered still explains it.
      next[figure.id] = { ...entry, why: old.why, ...(old.from === undefined ? {} : { from: old.from }) };
    } else next[figure.id] = entry;
  }
  return { baselines: next, refused };
}

/**
 * The entries of `current` that are worse than in `previous` (a lower value, a wider tolerance, the direction
 * turned) without a new note: each lowered baseline needs a `why` that the previous version did not carry.
 */
export function unexplainedLowerings(previous: Baselines, current: Baselines): string[] {
  return Object.entries(current).flatMap(([id, entry]) => {
    const old = previous[id];
    const loosened = old && (entry.tolerance > old.tolerance || entry.better !== old.better);
    if (!old || (!loosened && worseBy(entry.value, old.value, entry.better) <= 0)) return [];
    return entry.why?.trim() && entry.why !== old.why ? [] : [id];
  });
}

export function writeBaselines(baselines: Baselines, path = BASELINES_PATH): void {
  writeFileSync(path, formatBaselines(baselines));
}

/** The messages of a check's failures, for a test to expect empty. */
export function ratchetFailures(figures: readonly Figure[], baselines: Baselines = readBaselines()): string[] {
  const verdicts = checkFigures(figures, baselines);
  // Failures show in the assertion; a figure that got better is worth a line: its baseline can be raised.
  for (const verdict of verdicts) if (verdict.status === 'improved') console.log(`ratchet: ${verdict.message}`);
  return failures(verdicts).map((verdict) => verdict.message);
}
