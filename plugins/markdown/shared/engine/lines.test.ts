/**
 * Lines built from runs as pdfjs reads them from real PDFs: positions pinned from
 * texlive-publishers-doc's ejpecp sample.pdf (page 4, LPPL) and cap03.pdf (page 1, LPPL), and
 * pxfontsdoc.pdf (texlive-fonts-recommended-doc, page 10, a font chart).
 */
import { describe, expect, it } from 'vitest';
import { buildLines } from './lines.js';
import type { TextRun } from './types.js';

const run = (text: string, x0: number, x1: number, baseline: number, size = 8.97, bold = false): TextRun => ({
  text,
  x0,
  x1,
  baseline,
  size,
  bold,
});
const texts = (runs: TextRun[]) => buildLines(runs).map((line) => line.text);

describe('logos kerned into their letters', () => {
  it('keeps the LaTeX logo on its line: a raised A set a third of an em into the L, a lowered E', () => {
    const runs = [
      run('Papers using the L', 114.2, 211.6, 314.71, 8.97, true),
      run('A', 208.9, 213.8, 312.7, 6.28, true),
      run('T', 213.3, 218.5, 314.71, 8.97, true),
      run('E', 218.5, 224.6, 317.04, 8.97, true),
      run('X class', 224.6, 260.7, 314.71, 8.97, true),
      run('month. Some authors prefer T', 99.2, 235.4, 327.26),
      run('E', 233.9, 240.5, 329.59),
      run('X instead of L', 239.8, 301.7, 327.26),
      run('A', 299.0, 303.6, 325.25, 6.28),
      run('T', 303.1, 309.0, 327.26),
      run('E', 307.5, 314.0, 329.59),
      run('X.', 313.3, 322.0, 327.26),
    ];
    expect(texts(runs)).toEqual(['Papers using the LATEX class', 'month. Some authors prefer TEX instead of LATEX.']);
  });
});

describe('accents drawn over their letters', () => {
  it('composes an accent ending the run before its letter, a dotless i taking the accent for its dot', () => {
    const runs = [run('Cap´', 110.9, 170.9, 217.46, 24.79), run('ıtulo 1', 160.0, 239.0, 217.46, 24.79)];
    expect(texts(runs)).toEqual(['Capítulo 1']);
  });

  it('composes an accent drawn after its letter, over it, and leaves a grave quote beside a letter alone', () => {
    const runs = [
      run('8', 132.7, 137.9, 228.8, 9.96),
      run('A', 148.6, 156.0, 228.8, 9.96),
      run('˘', 150.6, 154.0, 228.8, 9.96),
      run('ř', 170.0, 174.0, 228.8, 9.96),
      run('`quoted', 190.0, 220.0, 228.8, 9.96),
    ];
    expect(texts(runs)).toEqual(['8 Ă ř `quoted']);
  });
});

describe('a line measured from its largest run', () => {
  it('keeps a lowered E on the line when a smaller raised A sorts first (sample-lualatex.pdf, page 1)', () => {
    const runs = [
      run('A', 167.7, 172.8, 490.38, 7.27),
      run('A clear and well-documented L', 53.5, 170.9, 491.45),
      run('T', 171.4, 176.9, 491.45),
      run('X document is presented as an', 179.3, 294.0, 491.45),
      run('E', 175.4, 180.4, 493.37),
    ];
    expect(texts(runs)).toEqual(['A clear and well-documented LATEX document is presented as an']);
  });
});
