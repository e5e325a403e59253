/**
 * What a row reports, and the RESULTS.md table: each measurement against a baseline measured in
 * the same run, with its target and MET / MISSED spelled out.
 */
import type { Better, Figure } from './ratchet.js';
import type { spread } from './stats.js';

export interface Measurement {
  row: string;
  metric: string;
  unit: string;
  /** Median, min and max over what `over` names (runs, rounds, requests). */
  value: ReturnType<typeof spread>;
  over: string;
  baseline?: { label: string; value: number };
  /** value / baseline, or the row's own ratio (e.g. speed-up) when it says so. */
  ratio?: number;
  target?: { text: string; met: boolean };
  note?: string;
  /**
   * Held by the speed ratchet (`npm run bench -- --quick` checks it against bench/baselines.json): the figure is
   * `ratio`, under `id` (`speed.<row>.<measure>`), with how far it may move the wrong way (absolute, in ratio units,
   * chosen from the quick runs' measured spread: bench/README.md, "The speed ratchet").
   */
  ratchet?: {
    id: string;
    better: Better;
    tolerance: number;
    /**
     * What is held: the ratio (default), or the value itself where it does not depend on the machine's load the way
     * wall time does (the service's CPU per job, in ms: bench/README.md, "The speed ratchet").
     */
    of?: 'ratio' | 'value';
  };
}

/** What every row module exports; `run` prints its own progress. */
export interface BenchRow {
  id: string;
  title: string;
  /** Rough minutes in full and quick mode, for the plan printed at the start. */
  minutes: { full: number; quick: number };
  run(context: RowContext): Promise<Measurement[]>;
}

export interface RowContext {
  quick: boolean;
  progress(message: string): void;
}

export function ratioOf(value: number, baseline: number): number {
  return baseline === 0 ? Number.NaN : value / baseline;
}

export function formatNumber(value: number, unit = ''): string {
  if (!Number.isFinite(value)) return 'n/a';
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return `${value.toFixed(digits)}${unit ? ` ${unit}` : ''}`;
}

export function verdict(m: Measurement): string {
  return m.target ? (m.target.met ? 'MET' : 'MISSED') : '—';
}

const HEADER = ['row', 'metric', 'median', 'min / max', 'over', 'baseline (same run)', 'ratio', 'target', 'result'];

export function tableLines(measurements: readonly Measurement[]): string[] {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const lines = [`| ${HEADER.join(' | ')} |`, `|${HEADER.map(() => '---').join('|')}|`];
  for (const m of measurements) {
    lines.push(
      `| ${[
        m.row,
        m.metric,
        formatNumber(m.value.median, m.unit),
        `${formatNumber(m.value.min)} / ${formatNumber(m.value.max)}`,
        m.over,
        m.baseline ? `${m.baseline.label}: ${formatNumber(m.baseline.value, m.unit)}` : '—',
        m.ratio === undefined ? '—' : `${formatNumber(m.ratio)}×`,
        m.target?.text ?? '—',
        verdict(m),
      ]
        .map(cell)
        .join(' | ')} |`,
    );
  }
  return lines;
}

export function missedLines(measurements: readonly Measurement[]): string[] {
  return measurements
    .filter((m) => m.target && !m.target.met)
    .map((m) => `MISSED: ${m.row} — ${m.metric}: ${formatNumber(m.value.median, m.unit)} against ${m.target!.text}`);
}

/** The speed ratchet's figures: each held measurement's ratio against its in-run baseline, or its value. */
export function speedFigures(measurements: readonly Measurement[]): Figure[] {
  return measurements.flatMap((m) => {
    const held = m.ratchet?.of === 'value' ? m.value.median : m.ratio;
    return m.ratchet && held !== undefined && Number.isFinite(held)
      ? [
          {
            id: m.ratchet.id,
            value: held,
            better: m.ratchet.better,
            tolerance: m.ratchet.tolerance,
            detail: `${m.metric}: ${formatNumber(m.value.median, m.unit)} against ${
              m.baseline?.label ?? 'its' + ' baseline'
            }`,
          },
        ]
      : [];
  });
}
