/** The running-line leak measure (issue 25): what counts as a running line reaching its page's output. */
import { describe, expect, it } from 'vitest';
import { leakedLines } from './score.js';
import type { RealTruth } from './truth.js';

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
