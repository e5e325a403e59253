/** Reading order of two-column pages (issue 25), on runs laid out as LaTeX's two-column classes set them. */
import { describe, expect, it } from 'vitest';
import { readingOrder } from './columns.js';
import { buildLines } from './lines.js';
import type { TextRun } from './types.js';

const run = (text: string, x0: number, x1: number, baseline: number, size = 10): TextRun => ({
  text,
  x0,
  x1,
  baseline,
  size,
  bold: false,
});

/** Two columns of `rows` lines each, `gap` points apart, the right column's baselines offset by `shift`. */
function twoColumnPage(gap: number, rows: number, shift = 0): TextRun[] {
  const [left, width] = [56.7, 236];
  const runs: TextRun[] = [];
  for (let i = 0; i < rows; i++) {
    runs.push(run(`left line ${i} of prose set across the whole column width here`, left, left + width, 80 + 12 * i));
    const x0 = left + width + gap;
    runs.push(run(`right line ${i} of prose set across the whole column width`, x0, x0 + width, 80 + 12 * i + shift));
  }
  return runs;
}

const order = (runs: TextRun[]) =>
  readingOrder(buildLines(runs), []).flatMap((flow) => flow.lines.map((line) => line.text.split(' ').slice(0, 3)));

describe('two-column reading order', () => {
  it('reads the left column, then the right, when the columns are only an em apart (LaTeX columnsep 10 pt)', () => {
    for (const shift of [0, 5]) {
      const lines = order(twoColumnPage(9.9, 30, shift)).map((words) => words.join(' '));
      expect(lines.slice(0, 30)).toEqual(Array.from({ length: 30 }, (_, i) => `left line ${i}`));
      expect(lines.slice(30)).toEqual(Array.from({ length: 30 }, (_, i) => `right line ${i}`));
    }
  });

  it('keeps a page of one column whose runs leave a wide word gap here and there in one column', () => {
    // Runs of one line split at a stretched space, at the same place on a few lines.
    const runs: TextRun[] = [];
    for (let i = 0; i < 30; i++) {
      const baseline = 80 + 12 * i;
      if (i % 6 === 0) {
        runs.push(run(`line ${i} first half of a justified line`, 56.7, 290, baseline));
        runs.push(run('and its second half', 297, 538.6, baseline));
      } else runs.push(run(`line ${i} set in one run across the page`, 56.7, 538.6, baseline));
    }
    const lines = order(runs).map((words) => words.slice(0, 2).join(' '));
    expect(lines).toEqual(Array.from({ length: 30 }, (_, i) => `line ${i}`));
  });
});
