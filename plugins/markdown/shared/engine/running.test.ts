/** Running heads found by their place: changing titles in a header band, and what is no band. */
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

  /** Body text of one page that no other page repeats, even in a short page's last lines. */
  const PAGE_WORDS = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet'.split(' ');
  const own = (i: number, count = 30) =>
    prose(i)
      .slice(0, count)
      .map((text) => `${PAGE_WORDS[i]} ${text}`);

  it('drops a head on two pages only when it repeats a heading of the text (a short report)', () => {
    // Eight pages: a title page, three pages of lists, a section opening with its heading set larger,
    // then two pages headed by that section's title at body size.
    const opening = page(undefined, own(4));
    opening.lines.splice(0, 0, buildLines([run('1.1 Test Section', 80, 17, true)])[0]!);
    const pages = [
      ...[0, 1, 2, 3].map((i) => page(undefined, own(i, 3))),
      opening,
      page(run('1.1 Test Section', 40), own(5)),
      page(run('1.1 Test Section', 40), own(6, 4)),
      page(undefined, own(7)),
    ];
    const found = findRunningLines(pages).map((lines) => [...lines].map((line) => line.text));
    expect(found).toEqual([[], [], [], [], [], ['1.1 Test Section'], ['1.1 Test Section'], []]);

    // The same place with words no heading has: two pages are too few to call it a band.
    const notes = [...pages];
    notes[5] = page(run('Draft for comments', 40), own(5));
    notes[6] = page(run('Draft for comments', 40), own(6, 4));
    expect(findRunningLines(notes).flatMap((lines) => [...lines])).toEqual([]);
  });

  it("drops a front-matter head that carries a roman folio beside its chapter's title", () => {
    // "ii CHAPTER 0. PREFACE" appears once: only its place and its title, the heading "Preface", tell.
    const heads = [undefined, 'ii CHAPTER 0. PREFACE', undefined, '2 CHAPTER 1. RIVERS', '1.2. GAUGES 3'];
    const pages = heads.map((head, i) => page(head ? run(head, 40) : undefined, own(i)));
    pages[0]!.lines.splice(0, 0, buildLines([run('Preface', 80, 25)])[0]!);
    pages[2]!.lines.splice(0, 0, buildLines([run('Rivers', 80, 25)])[0]!);
    pages[3]!.lines.splice(1, 0, buildLines([run('1.2 Gauges', 90, 14, true)])[0]!);
    const found = findRunningLines(pages).map((lines) => [...lines].map((line) => line.text));
    expect(found).toEqual(heads.map((head) => (head ? [head] : [])));
  });

  it("drops a front matter's roman folios beside changing titles, in a document too long for a quarter", () => {
    // Sixteen pages: three front-matter pages headed "Preface vii", "viii Contents", "Figures ix", then
    // thirteen arabic ones. The roman numbering follows the page index on three pages, under a quarter.
    const front = ['Preface vii', 'viii Contents', 'Figures ix'];
    const pages = Array.from({ length: 16 }, (_, i) =>
      page(run(i < 3 ? front[i]! : `${i - 2}`, 40), own(i % PAGE_WORDS.length, 20)),
    );
    // Titles differ and the body starts close below them, so neither repetition nor a band tells.
    for (const p of pages) p.lines[1]!.baseline = 50;
    const found = findRunningLines(pages).map((lines) => [...lines].map((line) => line.text));
    expect(found.slice(0, 4)).toEqual([['Preface vii'], ['viii Contents'], ['Figures ix'], ['1']]);
  });
});

/** Running lines on the fresh check set's kinds (bench/markdown/real/fresh.ts): each rule on a small page model. */
describe('running lines that generalise', () => {
  const PAGE_WORDS = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima'.split(' ');
  const own = (i: number, count = 30) =>
    prose(i)
      .slice(0, count)
      .map((text) => `${PAGE_WORDS[i % PAGE_WORDS.length]} ${text}`);
  const texts = (pages: PageLines[]) => findRunningLines(pages).map((lines) => [...lines].map((line) => line.text));

  it('keeps a bare number at a page end that does not follow the page index (a footnote mark)', () => {
    const pages = Array.from({ length: 6 }, (_, i) => page(undefined, own(i)));
    // Footnote marks "1" at the foot of pages 2 and 4 (a note's mark set on a line of its own).
    for (const i of [1, 3]) pages[i]!.lines.push(buildLines([run('1', 700)])[0]!);
    expect(texts(pages).flat()).toEqual([]);
    // "Page 3" says what it is by its form.
    for (const [i, p] of pages.entries()) p.lines.push(buildLines([run(`Page ${i + 1}`, 770)])[0]!);
    expect(texts(pages).map((found) => found.filter((text) => text.startsWith('Page')))).toEqual(
      pages.map((_, i) => [`Page ${i + 1}`]),
    );
  });

  it("drops a one-page memo's own number, alone at the foot and apart from the text", () => {
    const memo = page(undefined, own(0, 20));
    memo.lines.push(buildLines([run('1', 760)])[0]!);
    expect(texts([memo])).toEqual([['1']]);
  });

  it('drops a foot set apart in a wide bottom margin, far from the paper edge', () => {
    // A4 with the text ending at 460 and the foot at 650 (0.77 of the height: outside a fixed 20% band).
    const pages = Array.from({ length: 6 }, (_, i) => {
      const p = page(undefined, own(i));
      p.height = 842;
      p.lines.push(
        buildLines([run('The skrapport package, v0.12k', 650), { ...run(String(i + 1), 650), x0: 520, x1: 525 }])[0]!,
      );
      return p;
    });
    expect(texts(pages)).toEqual(pages.map((_, i) => [`The skrapport package, v0.12k ${i + 1}`]));
  });

  it('keeps lines repeated only every fifth page (a document printed in several copies)', () => {
    // Four versions of a five-page exam: each version's third page opens with "Part two".
    const pages = Array.from({ length: 20 }, (_, i) =>
      page(i % 5 === 2 ? run('Part two', 60, 12, true) : undefined, own(i)),
    );
    expect(texts(pages).flat()).toEqual([]);
  });

  it('drops a head in two parts whose chapter part repeats or whose cut-short section names a heading', () => {
    // dblatex: "CHAPTER 2. GETTING AND INSTALLING …" left, "2.3. WHERE CAN I GET …" right, each page's
    // section different; the chapter part repeats on the next page, or names the chapter's heading.
    const heads = [
      ['CHAPTER 1. RIVERS AND STREAMS', '1.3. FIELD WORK'],
      ['CHAPTER 1. RIVERS AND STREAMS', '1.6. WINTER RECORDS'],
      undefined,
      ['CHAPTER 2. MEASURING THE SEASONS …', '2.3. WHERE TO FIND THE GAUGES …'],
    ];
    const pages = heads.map((head, i) => {
      const p = page(head ? run(head[0]!, 40) : undefined, own(i));
      if (head) p.lines[0] = buildLines([run(head[0]!, 40), { ...run(head[1]!, 40), x0: 400, x1: 520 }])[0]!;
      return p;
    });
    // The chapter opens on page 3 with its label and its title, set large; page 4 has its section heading.
    pages[2]!.lines.splice(
      0,
      0,
      ...buildLines([run('Chapter 2', 60, 20, true), run('Measuring the seasons', 80, 25, true)]),
    );
    pages[3]!.lines.splice(1, 0, buildLines([run('2.3 Where to find the gauges of the river', 90, 14, true)])[0]!);
    const found = texts(pages);
    expect(found[0]).toEqual(['CHAPTER 1. RIVERS AND STREAMS 1.3. FIELD WORK']);
    expect(found[1]).toEqual(['CHAPTER 1. RIVERS AND STREAMS 1.6. WINTER RECORDS']);
    expect(found[2]).toEqual([]);
    expect(found[3]).toEqual(['CHAPTER 2. MEASURING THE SEASONS … 2.3. WHERE TO FIND THE GAUGES …']);
  });

  it('keeps a subheading that opens several pages under the head, close to the text (Doxygen "Parameters")', () => {
    const pages = Array.from({ length: 8 }, (_, i) => page(run(`Class Reference ${PAGE_WORDS[i]}`, 40), own(i)));
    // Pages 3, 4 and 6 open with "Parameters" one line above the text, far below the head.
    for (const i of [2, 3, 5]) pages[i]!.lines.splice(1, 0, buildLines([run('Parameters', 88, 10, true)])[0]!);
    expect(texts(pages).flat()).not.toContain('Parameters');
    // Set close under the head, far above the text, the same line is the head's second line.
    for (const i of [2, 3, 5]) pages[i]!.lines[1]!.baseline = 50;
    expect(
      texts(pages)
        .flat()
        .filter((text) => text === 'Parameters'),
    ).toHaveLength(3);
  });

  it("keeps a chapter's label over its title, set large, although it repeats with only its number changing", () => {
    const pages = Array.from({ length: 9 }, (_, i) => page(undefined, own(i)));
    for (const i of [0, 3, 4])
      pages[i]!.lines.splice(
        0,
        0,
        ...buildLines([run(`Chapter ${i + 1}:`, 60, 15.5), run(`Title ${PAGE_WORDS[i]}`, 80, 15.5)]),
      );
    expect(texts(pages).flat()).toEqual([]);
    // A form's title over its subtitle, the same on every page, numbers nothing: a head.
    const form = Array.from({ length: 2 }, (_, i) => page(undefined, own(i)));
    for (const p of form)
      p.lines.splice(0, 0, ...buildLines([run('Questionnaire', 38, 22), run('Households', 54, 14)]));
    expect(texts(form).map((found) => found.includes('Questionnaire'))).toEqual([true, true]);
    // A head set larger than the body stands further above a section heading: still a head.
    const heads = Array.from({ length: 6 }, (_, i) => page(run('Calendars and dates', 40, 12), own(i)));
    for (const p of heads) p.lines.splice(1, 0, buildLines([run(`Section ${PAGE_WORDS[0]}`, 76, 13, true)])[0]!);
    expect(texts(heads).flat()).toEqual(Array(6).fill('Calendars and dates'));
  });
});

/** A one-page document: nothing repeats, so only the page's own signs tell a head or foot from the text. */
describe('running lines of a single page', () => {
  const texts = (pages: PageLines[]) => findRunningLines(pages).map((lines) => [...lines].map((line) => line.text));
  /** A report's one page: a bold title at 72, the body from 100, and an optional first line at 34. */
  const report = (first: TextRun | undefined, title = 'Field Report on Yarrow Point') => {
    const p = page(first, prose(0).slice(0, 25));
    p.lines.splice(first ? 1 : 0, 0, buildLines([run(title, 72, 14.5, true)])[0]!);
    return p;
  };
  /** A line set in parts: each text at its own x, with wide gaps between. */
  const parts = (baseline: number, size: number, ...texts: [string, number][]) =>
    buildLines(
      texts.map(([text, x0]) => ({ ...run(text, baseline, size), x0, x1: x0 + text.length * size * 0.5 })),
    )[0]!;

  it("drops a head at body size that names the page's title (pdfTeX, LibreOffice)", () => {
    expect(texts([report(run('Working paper: Field Report on Yarrow Point', 34))])).toEqual([
      ['Working paper: Field Report on Yarrow Point'],
    ]);
    // Smaller than the body, as LibreOffice sets it: the same.
    expect(texts([report(run('Working paper: Field Report on Yarrow Point', 34, 9))]).flat()).toHaveLength(1);
  });

  it('keeps a first line naming no heading of two words, a sentence going on, a caption, one near the text', () => {
    expect(texts([report(run('Working paper: Summary', 34), 'Summary')]).flat()).toEqual([]);
    expect(texts([report(run('as the Field Report on Yarrow Point shows', 34))]).flat()).toEqual([]);
    // A caption opening a page under a section "Bold style" mentions the heading amid its words.
    expect(texts([report(run('Table 6: Effects of the bold-style package option.', 34), 'Bold style')]).flat()).toEqual(
      [],
    );
    expect(texts([report(run('Working paper: Field Report on Yarrow Point', 34, 10, true))]).flat()).toEqual([]);
    const close = report(run('Working paper: Field Report on Yarrow Point', 34));
    for (const line of close.lines.slice(1)) line.baseline -= 28;
    expect(texts([close]).flat()).toEqual([]);
  });

  it("drops a browser's print stamps: date and title over the page, address and page count under it", () => {
    const printed = report(undefined, 'Annual Report on Fairview');
    printed.lines.unshift(parts(23, 8, ['11/28/26, 10:57 PM', 24], ['Working paper: Notes', 280]));
    printed.lines.push(parts(780, 8, ['file:///tmp/report.html', 24], ['1/1', 560]));
    expect(texts([printed])).toEqual([['11/28/26, 10:57 PM Working paper: Notes', 'file:///tmp/report.html 1/1']]);
  });

  it('keeps small lines in parts that carry no stamp, or a bare number: a footnote and its mark', () => {
    const noted = report(undefined);
    noted.lines.push(parts(780, 8, ['1', 72], ['The stations were visited twice.', 84]));
    expect(texts([noted]).flat()).toEqual([]);
    // An address in the last line's parts at the body's size, or alone in a small line, is the text's.
    const cited = report(undefined);
    cited.lines.push(parts(780, 10, ['See the survey at', 72], ['https://example.org/survey', 300]));
    expect(texts([cited]).flat()).toEqual([]);
    const linked = report(undefined);
    linked.lines.push(parts(780, 8, ['https://example.org/survey', 72]));
    expect(texts([linked]).flat()).toEqual([]);
  });
});
