import { describe, expect, it } from 'vitest';
import { normaliseText } from '../score.js';
import { columnWordsByPage, outputWords, pairs, tokens } from './score.js';
import { type BoxWord, columnOrder, type RealTruth, restoreAngleBrackets } from './truth.js';

/** Words of one line at a baseline, each `[text, x0, x1]`, 10 pt high. */
const line = (top: number, ...words: [string, number, number][]): BoxWord[] =>
  words.map(([text, x0, x1]) => ({ text, x0, x1, top, bottom: top + 10 }));

describe('real corpus truth', () => {
  it("reads pdftotext's h...i around cmsy's angle brackets as the brackets pdfjs reads", () => {
    const text = 'point_of_view_obj(hobj i,hlpni,φ): look at hlpni; hi there, set_hclassi_points';
    expect(restoreAngleBrackets(text, ['obj', 'lpn', 'lpn', 'class'])).toBe(
      'point_of_view_obj(⟨obj⟩,⟨lpn⟩,φ): look at ⟨lpn⟩; hi there, set_⟨class⟩_points',
    );
    // Only as many as pdfjs reads: a word that merely starts with h and ends with i stays.
    expect(restoreAngleBrackets('hapi hapi', ['ap'])).toBe('⟨ap⟩ hapi');
  });

  it('reads a two-column page column by column where pdftotext read across a narrow gutter', () => {
    const lines = [
      line(0, ['Title', 70, 104], ['across', 107, 140]),
      line(20, ['left', 10, 40], ['one', 42, 100], ['right', 110, 150], ['one', 152, 200]),
      line(32, ['left', 10, 40], ['two', 42, 100]),
      line(32, ['right', 110, 150], ['two', 152, 200]),
    ];
    expect(columnOrder(lines)).toBe('Title across\nleft one\nleft two\nright one\nright two');
  });

  it("keeps pdftotext's order where it read the columns apart, and a subscript with its letter", () => {
    const lines = [
      line(20, ['left', 10, 40], ['one', 42, 100]),
      line(32, ['c', 10, 15], ['1', 15, 18], ['left', 21, 40], ['two', 42, 100]),
      line(20, ['right', 110, 150], ['one', 152, 200]),
    ];
    expect(columnOrder(lines)).toBe('left one\nc1 left two\nright one');
  });
});

describe('real corpus score', () => {
  it('joins a word hyphenated around a folio that pdftotext set between the columns', () => {
    const truth = {
      twoColumnPages: [1],
      columnTexts: ['many approaches devel-\n2731\noped for'],
      runningTexts: [['2731']],
    };
    expect(columnWordsByPage(truth as unknown as RealTruth).get(1)).toEqual(['many', 'approaches', 'developed', 'for']);
  });

  it('reads Markdown as a reader sees it: ordered numbers shown, a star inside a word, underscores', () => {
    expect(outputWords('### 5.1 Example for list (4*itemize)\n\n2. Second item\n\nbin_PROGRAMS')).toEqual(
      tokens('5.1 Example for list 4 itemize 2 Second item bin PROGRAMS'),
    );
    expect(pairs(['a', 'b', 'c'])).toEqual(['a b', 'b c']);
  });

  it('hides raw HTML tags only: a "<" before a space is text', () => {
    expect(normaliseText('tunnels |πA| < |λ|. For area, A/λ > 0 <span class="x">kept</span> \\<stmt>')).toBe(
      'tunnels |πA| < |λ|. For area, A/λ > 0 kept <stmt>',
    );
    expect(normaliseText('[a link](https://x.org) \\psframe\\[fillstyle=solid](0,2)')).toBe(
      'a link \\psframe[fillstyle=solid](0,2)',
    );
  });
});
