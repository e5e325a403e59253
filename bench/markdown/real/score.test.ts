/** The real corpus truth and measures: reading order, words, and running lines reaching their page. */
import { describe, expect, it } from 'vitest';
import { normaliseText } from '../score.js';
import { columnWordsByPage, leakedLines, outputWords, pairs, tokens } from './score.js';
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

/** A truth of `pages` pages, each with its pdftotext text and running lines. */
function truthOf(pages: { text: string; running: string[] }[], outline: RealTruth['outline'] = []): RealTruth {
  return {
    outline,
    tagged: false,
    tables: 'none',
    pageTexts: pages.map((page) => page.text),
    runningKeys: {},
    runningLines: pages.reduce((n, page) => n + page.running.length, 0),
    runningTexts: pages.map((page) => page.running),
    twoColumnPages: [],
    columnTexts: [],
  };
}
const output = (pages: string[][]) =>
  pages.map((lines, i) => [`<!-- page ${i + 1} -->`, ...lines].join('\n\n')).join('\n\n');
const leaked = (markdown: string, truth: RealTruth) => leakedLines(markdown, truth).map((l) => `p${l.page}: ${l.line}`);

describe('running-line leaks', () => {
  it("counts a page's head or folio found in its output, once per running line", () => {
    const truth = truthOf([
      { text: 'Field Manual\nBody one.\n1', running: ['Field Manual', '1'] },
      { text: 'Field Manual\nBody two.\n2', running: ['Field Manual', '2'] },
    ]);
    expect(leaked(output([['Field Manual', 'Body one.', '1'], ['Body two.']]), truth)).toEqual([
      'p1: Field Manual',
      'p1: 1',
    ]);
  });

  it('lets the output keep a line the page carries outside its running lines (a listing line 11 on page 11)', () => {
    const pages = Array.from({ length: 11 }, (_, i) => ({ text: `Body ${i}.\n${i + 1}`, running: [`${i + 1}`] }));
    pages[10] = { text: '10 \\def\\a{}\n11\n12 \\def\\b{}\n11', running: ['11'] };
    const truth = truthOf(pages);
    const markdown = output([...pages.slice(0, 10).map((_, i) => [`Body ${i}.`]), ['10 \\def\\a{}', '11', '12']]);
    expect(leaked(markdown, truth)).toEqual([]);
    // Both the listing's 11 and the folio: one leak.
    const both = output([...pages.slice(0, 10).map((_, i) => [`Body ${i}.`]), ['11', '10 \\def\\a{}', '11']]);
    expect(leaked(both, truth)).toEqual(['p11: 11']);
  });

  it('takes a running line that the outline names as a section on its page for its heading', () => {
    const truth = truthOf(
      [
        { text: 'Intro\nBody.', running: [] },
        { text: '2 Lists\nBody.', running: ['2 Lists'] },
        { text: '2 Lists\nMore.', running: ['2 Lists'] },
      ],
      [{ title: 'Lists', depth: 0, page: 2 }],
    );
    expect(leaked(output([['Intro'], ['# 2 Lists', 'Body.'], ['2 Lists', 'More.']]), truth)).toEqual(['p3: 2 Lists']);
  });

  it('takes a label found only where chapters start for part of their heading, and an empty line for nothing', () => {
    const truth = truthOf(
      [
        { text: 'Preface\nvi', running: ['vi'] },
        { text: 'Kapitel 1\nRivers\n1', running: ['Kapitel 1', '1'] },
        { text: 'Kapitel 2\nLakes\n2', running: ['Kapitel 2', '2'] },
        { text: 'Page <Editors>', running: ['<Editors>'] },
      ],
      [
        { title: 'Rivers', depth: 0, page: 2 },
        { title: 'Lakes', depth: 0, page: 3 },
      ],
    );
    const markdown = output([['Preface'], ['Kapitel 1', '# Rivers'], ['Kapitel 2', '# Lakes', '2'], ['| --- |']]);
    expect(leaked(markdown, truth)).toEqual(['p3: 2']);
  });
});
