/** Running heads found by their place (issue 25): changing titles in a header band, and what is no band. */
import { describe, expect, it } from 'vitest';
import { buildLines } from './lines.js';
import { findRunningLines, type PageLines } from './running.js';
import type { TextRun } from './types.js';

const run = (text: string, baseline: number, size = 10, bold = false): TextRun => ({
  text,
  x0: 72,
  x1: 72 + text.length * size * 0.5,
  baseline,
  size,
  bold,
});

/** A page: an optional first line at `top`, then body lines from 100 every 12 points. */
function page(first: TextRun | undefined, body: string[]): PageLines {
  const runs = body.map((text, i) => run(text, 100 + 12 * i));
  return { height: 792, lines: buildLines(first ? [first, ...runs] : runs) };
}

const WORDS = 'river harbour stone winter record village signal measure season archive letter field'.split(' ');
/** Body lines whose words differ from page to page and line to line (digits would be normalised away). */
const prose = (page: number) =>
  Array.from({ length: 30 }, (_, i) =>
    Array.from({ length: 9 }, (_, k) => WORDS[(page * 7 + i * 5 + k * k * 3) % WORDS.length]).join(' '),
  );
const sections = ['Field Work', 'Field Work', 'Instruments Used', 'Instruments Used', 'Error Sources', 'Error Sources'];

describe('running heads by place', () => {
  it('drops a bold head that repeats the current section title, changing every two pages', () => {
    const pages = sections.map((title, i) => {
      const body = prose(i);
      // Each section opens with its numbered heading, set larger.
      const lines = page(run(title, 40, 10, true), body);
      if (i % 2 === 0) lines.lines.splice(1, 0, buildLines([run(`${i / 2 + 1} ${title}`, 90, 14, true)])[0]!);
      return lines;
    });
    const running = findRunningLines(pages);
    expect(running.map((found) => [...found].map((line) => line.text))).toEqual(sections.map((title) => [title]));
  });

  it('keeps page titles set where the text of other pages starts (a thesis front matter)', () => {
    const titles = ['List of Figures', 'List of Tables', 'List of Abbreviations', 'List of Abbreviations'];
    const pages = [
      ...titles.map((title, i) => page(run(title, 100 - 30), prose(i).slice(0, 10))),
      ...[4, 5, 6, 7].map((i) => page(undefined, prose(i))),
    ];
    // The text of pages 5-8 starts at the titles' height: no band.
    for (const p of pages.slice(0, 4)) p.lines[0] = buildLines([{ ...p.lines[0]!.runs[0]!, baseline: 100 }])[0]!;
    for (const p of pages.slice(0, 4)) for (const [i, line] of p.lines.slice(1).entries()) line.baseline = 130 + 12 * i;
    const running = findRunningLines(pages);
    expect(running.flatMap((found) => [...found].map((line) => line.text))).toEqual([]);
  });
});
