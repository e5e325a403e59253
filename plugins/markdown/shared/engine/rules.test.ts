/** The rules added for real documents, on the smallest inputs that show them. */
import { describe, expect, it } from 'vitest';
import { run } from '../../testing/runs.js';
import { buildLines } from './lines.js';
import { outlineHeadings, titleKey } from './outline.js';
import { findRunningLines } from './running.js';
import { extractBorderlessTables, extractRuledTables, isCellGrid, isFalseTable, isFixedPitch } from './tables.js';
import type { Line, TextRun } from './types.js';

const line = (text: string, baseline: number, size = 10): Line => buildLines([run(text, 72, baseline, size)])[0]!;
/** A 12 pt run from x0 to x1, as an office export's positioned text gives it. */
const at = (text: string, x0: number, x1: number, baseline: number): TextRun => ({
  ...run(text, x0, baseline, 12),
  x1,
});

describe('false tables', () => {
  it('a contents listing, numbered titles and formulas are not tables; a table of values is', () => {
    expect(
      isFalseTable([
        ['1.1 Scope . . . . . . . . .', '3'],
        ['1.2 Terms . . . . . . . . .', '4'],
        ['2 Usage', '5'],
      ]),
    ).toBe(true);
    expect(
      isFalseTable([
        ['1 Introduction', '1'],
        ['2 Features', '2'],
        ['3 Logos', '5'],
      ]),
    ).toBe(true);
    expect(
      isFalseTable([
        ['2.1', 'General Information'],
        ['2.2', 'Scope of the work'],
      ]),
    ).toBe(true);
    expect(
      isFalseTable([
        ['Γ → ∆, A', '¬A, Γ → ∆'],
        ['∀:right', 'A ∨ B'],
      ]),
    ).toBe(true);
    expect(
      isFalseTable([
        ['Region', 'Q1', 'Q2'],
        ['North', '120', '90'],
        ['South', '80', '110'],
      ]),
    ).toBe(false);
  });
});

describe('false tables on real documents', () => {
  it('numbered lines, bulleted items set with a wide space and scattered plot labels are not tables', () => {
    expect(
      isFalseTable([
        ['12', '\\documentclass[draft]{ltxdoc}'],
        ['13', '\\RequirePackage{ltxdocext}%'],
        ['14', '\\makeatletter'],
      ]),
    ).toBe(true);
    expect(
      isFalseTable([
        ['[^4]:', '% \\ProvidesFile{ltxdocext.sty}%'],
        ['[^5]:', '% \\ProvidesFile{acrofont.sty}%'],
        ['[^6]:', '%'],
      ]),
    ).toBe(true);
    expect(
      isFalseTable([
        ['53', '', '{ Nothing~more~to~tell. }'],
        ['54', '}', ''],
      ]),
    ).toBe(true);
    expect(
      isFalseTable([
        ['• never use', '\\def for defining macros, use instead \\newcommand'],
        ['• never use', '$$ for displayed equations'],
      ]),
    ).toBe(true);
    const plot = [
      ['', '', '', 'y', '', ''],
      ['', '10+', '', '', '', ''],
      ['', '', '', '+', '', 'x'],
    ];
    expect(isFalseTable(plot)).toBe(true);
    // A table of values whose first column counts its rows is still a table.
    expect(
      isFalseTable([
        ['1', 'North', '120'],
        ['2', 'South', '80'],
        ['3', 'East', '95'],
      ]),
    ).toBe(false);
  });

  it('text aligned in a fixed-pitch font is a listing, not a table; proportional text is judged as usual', () => {
    const pitch = (text: string, x0: number, baseline: number, advance: number): TextRun => ({
      ...run(text, x0, baseline),
      x1: x0 + [...text].length * 10 * advance,
    });
    const listing = [
      buildLines([pitch('-e', 72, 100, 0.6), pitch('"s|[@]VERSION[@]|$(VERSION)|"', 120, 100, 0.6)])[0]!,
      buildLines([pitch('-e', 72, 112, 0.6), pitch('"s|[@]PERL[@]|$(PERL)|"', 120, 112, 0.6)])[0]!,
      buildLines([pitch('-e', 72, 124, 0.6), pitch('"s|[@]GROFFDIR[@]|$(fontpath)|"', 120, 124, 0.6)])[0]!,
    ];
    expect(isFixedPitch(listing)).toBe(true);
    const prose = [
      buildLines([pitch('Widget', 72, 100, 0.52), pitch('Available', 160, 100, 0.47)])[0]!,
      buildLines([pitch('Gizmo', 72, 112, 0.55), pitch('Withdrawn', 160, 112, 0.5)])[0]!,
      buildLines([pitch('Illuminator', 72, 124, 0.41), pitch('Ordered', 160, 124, 0.49)])[0]!,
    ];
    expect(isFixedPitch(prose)).toBe(false);
  });
});

describe('aligned text that is not a table (real documents)', () => {
  it('a definition list (terms, then sentences) is not a table; a two-column table with short values is', () => {
    // geradwp-fr: class options, each with a sentence or two about it.
    expect(
      isFalseTable([
        ['gdweb', 'La version Web d’un cahier de recherche destinée à être publiée sur le site Web du GERAD.'],
        ['gdpaper', 'La version papier d’un cahier de recherche destinée à être imprimée.'],
        ['gdrevised', 'Lorsqu’un cahier de recherche fait l’objet d’une révision par ses auteurs, cette'],
      ]),
    ).toBe(true);
    // The same descriptions under a header row are a table.
    expect(
      isFalseTable([
        ['Option', 'Description'],
        ['gdweb', 'La version Web d’un cahier de recherche destinée à être publiée sur le site Web du GERAD.'],
        ['gdpaper', 'La version papier d’un cahier de recherche destinée à être imprimée.'],
      ]),
    ).toBe(false);
    // msu-thesis: an option table with short descriptions, and a prose column beside two others.
    expect(
      isFalseTable([
        ['Option name', 'Description'],
        ['[PhD]', 'Doctor of Philosophy (default)'],
        ['[MA]', 'Master of Arts'],
      ]),
    ).toBe(false);
    expect(
      isFalseTable([
        ['Day', 'Min Temp', 'Summary'],
        ['Monday', '11C', 'A clear day with lots of sunshine. However, the strong breeze will bring it down.'],
        ['Tuesday', '9C', 'Cloudy with rain, across many northern regions and most of Scotland.'],
      ]),
    ).toBe(false);
  });

  it('justified lines split at a wide word space are text: the sentence runs on across the cells', () => {
    // ArsClassica: a narrow column whose justified lines left a gap at the same place.
    expect(
      isFalseTable([
        ['I wish first', 'of all to'],
        ['thank the members', 'of the Italian TEX and'],
        ['LATEX User Group, in particu-', 'lar Claudio Beccari, Fabiano'],
      ]),
    ).toBe(true);
    // Lowercase phrases under a header row are a table.
    expect(
      isFalseTable([
        ['Setting', 'Effect'],
        ['use tabs', 'indent with tabs'],
        ['use spaces', 'indent with spaces'],
      ]),
    ).toBe(false);
    expect(
      isFalseTable([
        ['Alkaloid', 'Origin'],
        ['atropine', 'belladonna'],
        ['morphine', 'poppy'],
      ]),
    ).toBe(false);
  });

  it('a displayed formula with its number, and the labels of a tree diagram, are not tables', () => {
    // ArsClassica: integrals with their limits on the line below, and the equation number.
    expect(
      isFalseTable([
        ['∫<sub>a</sub>+T', 'f(x) dx =', '∫<sub>T</sub>', 'f(x) dx', '∮', 'f(z) dz = 2πi', '(2)'],
        ['a', '', '0', '', '', '', ''],
      ]),
    ).toBe(true);
    // guide: a probability tree, its branch weights and outcomes scattered, no key column, no header.
    expect(
      isFalseTable([
        ['', '', '0, 04', 'E'],
        ['0, 05', '', '0, 03', 'E'],
        ['', 'B', '', ''],
        ['0, 95', '', '', ''],
        ['', '', '0, 97', 'E'],
        ['0, 95', 'C', '0, 03', 'E'],
      ]),
    ).toBe(true);
    // A sparse table of marks keeps its key column.
    expect(
      isFalseTable([
        ['Feature', 'Basic', 'Pro', 'Team'],
        ['Export', '', '✓', '✓'],
        ['Sharing', '', '', '✓'],
        ['Backup', '✓', '', ''],
      ]),
    ).toBe(false);
  });

  it('two lines framed by rules (a note set off in a .dtx manual) are not a ruled table', () => {
    const frame = [
      { x0: 72, y0: 90, x1: 400, y1: 90 },
      { x0: 72, y0: 130, x1: 400, y1: 130 },
    ];
    const runs = [
      run('\\GStoreSetReg', 80, 104),
      run('assigns', 300, 104),
      run('ter executing', 80, 120),
      run('\\GStoreGSetReg', 200, 120),
    ].map((r, i) => ({ ...r, x1: r.x0 + r.text.length * 10 * (0.41 + 0.02 * i) }));
    expect(extractRuledTables(runs, frame).tables).toEqual([]);
  });

  it('boxes drawn around words on two neighbouring lines are not a ruled grid; a ruled 2 x 2 table is', () => {
    // fnlineno: \\pagegoal boxed on one line, \\pagetotal boxed on the next, the boxes offset.
    const box = (x0: number, x1: number, y0: number, y1: number) => [
      { x0, y0, x1, y1: y0 },
      { x0, y0: y1, x1, y1 },
      { x0, y0, x1: x0, y1 },
      { x0: x1, y0, x1, y1 },
    ];
    const boxes = [...box(194, 254, 264, 275.4), ...box(198, 245, 275.4, 287.3)];
    const words = [run('\\pagegoal', 196, 273), run('\\pagetotal', 200, 285)];
    expect(extractRuledTables(words, boxes).tables).toEqual([]);
    const grid = [
      ...[100, 200, 300].map((x) => ({ x0: x, y0: 100, x1: x, y1: 140 })),
      ...[100, 120, 140].map((y) => ({ x0: 100, y0: y, x1: 300, y1: y })),
    ];
    const cells = [run('Size', 110, 114), run('Weight', 210, 114), run('12', 110, 134), run('40', 210, 134)];
    expect(extractRuledTables(cells, grid).tables[0]?.rows).toEqual([
      ['Size', 'Weight'],
      ['12', '40'],
    ]);
  });

  it('a note whose lines an office suite boxes one by one is text, not a one-column ruled table', () => {
    // LibreOffice's export of a shaded HTML note: each line in its own box, the boxes as wide as their lines.
    const box = (x0: number, x1: number, y0: number, y1: number) => [
      { x0, y0, x1, y1: y0 },
      { x0, y0: y1, x1, y1 },
      { x0, y0, x1: x0, y1 },
      { x0: x1, y0, x1, y1 },
    ];
    const rules = [...box(156, 534, 75, 101), ...box(156, 525, 101, 126), ...box(156, 219, 126, 151)];
    const lines = [
      run('Deprecated since version 1.4: The insert.values parameter will be', 160, 92),
      run('removed in SQLAlchemy 2.0. Please refer to the Insert.values()', 160, 117),
      run('method.', 160, 142),
    ];
    expect(extractRuledTables(lines, rules).tables).toEqual([]);
  });

  it('a paragraph boxed piece by piece is text even when its boxes make columns', () => {
    // LibreOffice's export of a shaded HTML note (SQLAlchemy's manual), as drawn: each run of a line between its
    // own rules, a vertical rule at the ends of each line; runs at 12 pt as wide as drawn.
    const rules = (
      [
        [64.2, 303.6, 330.4, 303.6],
        [64.2, 328.9, 330.4, 328.9],
        [64.3, 303.5, 64.3, 328.9],
        [330.4, 303.6, 413.5, 303.6],
        [330.4, 328.9, 413.5, 328.9],
        [413.5, 303.6, 551.4, 303.6],
        [551.3, 303.5, 551.3, 328.9],
        [413.5, 328.9, 551.4, 328.9],
        [64.2, 329, 527.8, 329],
        [527.8, 328.9, 527.8, 354.2],
        [64.2, 354.2, 527.8, 354.2],
        [64.3, 328.9, 64.3, 354.2],
        [64.2, 354.3, 129.4, 354.3],
        [64.2, 379.6, 129.4, 379.6],
        [64.3, 354.2, 64.3, 379.6],
        [129.4, 354.3, 214.4, 354.3],
        [129.4, 379.6, 214.4, 379.6],
        [214.4, 354.3, 394.5, 354.3],
        [214.4, 379.6, 394.5, 379.6],
        [64.2, 379.7, 279.9, 379.7],
        [64.2, 404.9, 279.9, 404.9],
        [64.3, 379.6, 64.3, 404.9],
        [279.9, 379.7, 537.8, 379.7],
        [537.8, 379.6, 537.8, 404.9],
        [279.9, 404.9, 537.8, 404.9],
        [64.2, 405, 193.2, 405],
        [193.1, 404.9, 193.1, 430.3],
        [64.2, 430.3, 193.2, 430.3],
        [64.3, 404.9, 64.3, 430.3],
      ] as const
    ).map(([x0, y0, x1, y1]) => ({ x0, y0, x1, y1 }));
    const lines = (
      [
        ['However, when using a composite hybrid like', 71.9, 327.2, 317.8],
        ['Interval.length', 330.5, 413.5, 317.8],
        [', this hybrid represents', 413.6, 543.8, 317.8],
        ['more than one column. We can set up a handler that will accommodate a value', 71.9, 516.9, 343.2],
        ['passed to', 71.9, 126.3, 368.5],
        ['Query.update()', 129.5, 214.4, 368.5],
        ['which can affect this, using the', 217.6, 391.4, 368.5],
        ['hybrid_property.update_expression()', 71.9, 279.8, 393.9],
        ['decorator. A handler that works similarly to', 283.1, 527, 393.9],
        ['our setter would be:', 71.9, 185.6, 419.2],
      ] as const
    ).map(([text, x0, x1, baseline]) => ({ ...run(text, x0, baseline, 12), x1 }));
    expect(extractRuledTables(lines, rules).tables).toEqual([]);
  });

  it('a boxed paragraph whose lines go on with a name in capitals is text too', () => {
    // SQLAlchemy's pooling note as LibreOffice exports it: each run of a line boxed, the boxes parting at the runs.
    const lines = [
      [572, ['The above strategies will accommodate the case of an', 71.9, 375.7], ['Engine', 379.1, 417.8]],
      [572, ['being shared among', 421, 538.2]],
      [597.3, ['processes. The above steps alone are not sufficient for the case of sharing a specific', 71.9, 542.6]],
      [
        622.7,
        ['Connection', 71.9, 136.1],
        ['over a process boundary; prefer to keep the scope of a particular', 139.3, 504.4],
      ],
      [
        648,
        ['Connection', 71.9, 136.1],
        ['local to a single process (and thread). It’s additionally not supported to', 139.3, 535.4],
      ],
      [673.4, ['share any kind of ongoing transactional state directly across a process boundary,', 71.9, 528.1]],
      [
        698.7,
        ['such as an ORM', 71.9, 161.8],
        ['Session', 165, 207.6],
        ['object that’s begun a transaction and references active', 210.8, 518.9],
      ],
      [
        724.1,
        ['Connection', 71.9, 136.1],
        ['instances; again prefer to create new', 139.3, 347.7],
        ['Session', 351.1, 393.7],
      ],
      [724.1, ['objects in new processes.', 396.8, 539.9]],
    ] as const;
    const runs = lines.flatMap(([baseline, ...pieces]) => pieces.map(([text, x0, x1]) => at(text, x0, x1, baseline)));
    // The rules as drawn (x0, y0, x1, y1).
    const rules = (
      [
        [64.2, 557.8, 379, 557.8],
        [64.2, 583, 379, 583],
        [64.2, 557.7, 64.2, 583],
        [379, 557.8, 417.8, 557.8],
        [379, 583, 417.8, 583],
        [417.8, 557.8, 548.9, 557.8],
        [548.8, 557.7, 548.8, 583],
        [417.8, 583, 548.9, 583],
        [64.2, 583.1, 546, 583.1],
        [64.2, 608.4, 546, 608.4],
        [64.2, 583, 64.2, 608.4],
        [64.2, 608.5, 136.1, 608.5],
        [64.2, 633.7, 136.1, 633.7],
        [64.2, 608.4, 64.2, 633.7],
        [136.1, 608.5, 507.8, 608.5],
        [136.1, 633.7, 507.8, 633.7],
        [64.2, 633.8, 136.1, 633.8],
        [64.2, 659.1, 136.1, 659.1],
        [64.2, 633.7, 64.2, 659.1],
        [136.1, 633.8, 546.3, 633.8],
        [546.2, 633.7, 546.2, 659.1],
        [136.1, 659.1, 546.3, 659.1],
        [64.2, 659.2, 539, 659.2],
        [539, 659.1, 539, 684.4],
        [64.2, 684.4, 539, 684.4],
        [64.2, 659.1, 64.2, 684.4],
        [64.2, 684.5, 164.9, 684.5],
        [64.2, 709.8, 164.9, 709.8],
        [64.2, 684.4, 64.2, 709.8],
        [164.9, 684.5, 207.6, 684.5],
        [164.9, 709.8, 207.6, 709.8],
        [207.6, 684.5, 522, 684.5],
        [207.6, 709.8, 522, 709.8],
        [64.2, 709.9, 136.1, 709.9],
        [64.2, 735.1, 136.1, 735.1],
        [64.2, 709.8, 64.2, 735.1],
        [136.1, 709.9, 351, 709.9],
        [136.1, 735.1, 351, 735.1],
        [351, 709.9, 393.5, 709.9],
        [351, 735.1, 393.5, 735.1],
        [393.6, 709.9, 547.5, 709.9],
        [547.5, 709.8, 547.5, 735.1],
        [393.6, 735.1, 547.5, 735.1],
      ] as const
    ).map(([x0, y0, x1, y1]) => ({ x0, y0, x1, y1 }));
    expect(extractRuledTables(runs, rules).tables).toEqual([]);
  });

  it('a plot whose axes are drawn rules is not a ruled table', () => {
    // A plot's frame and grid lines: 4 columns, 3 bands, three labels among twelve cells.
    const axes = [
      ...[100, 150, 200, 250, 300].map((x) => ({ x0: x, y0: 100, x1: x, y1: 200 })),
      ...[100, 140, 170, 200].map((y) => ({ x0: 100, y0: y, x1: 300, y1: y })),
    ];
    const labels = [run('y', 104, 112), run('10+', 160, 160), run('x', 280, 190)];
    expect(extractRuledTables(labels, axes).tables).toEqual([]);
  });

  it('macro names in the margin beside documented code are notes, not a table column', () => {
    // stmaryrd (a .dtx manual): \ds@... names set in the left margin, the code at the text edge.
    // A proportional font (a fixed pitch would make it a listing): each run's advance differs.
    const runs = [
      run('The heavycircles option makes sure all of the heavy circles are defined.', 100, 100),
      run('\\ds@mapsfrom', 10, 112),
      run('need others to be defined, so we declare these explicitly.', 100, 112),
      run('\\ds@Mapsfrom', 10, 124),
      run('50 \\DeclareOption{Mapsto}{%', 100, 124),
      run('\\ds@longarrownot', 2, 136),
      run('51 \\stmry@option{Mapsto}%', 100, 136),
      run('Then the options that take their symbols from the other fonts of the package.', 100, 148),
      run('These are declared one by one, each with the symbols it needs to be defined.', 100, 160),
    ].map((r, i) => ({ ...r, x1: r.x0 + r.text.length * 10 * (0.4 + 0.01 * i) }));
    const lines = buildLines(runs);
    expect(extractBorderlessTables(lines).tables).toEqual([]);
    expect(extractBorderlessTables(lines).tables).toEqual([]);
  });
});

describe('a borderless table needs rows and cells', () => {
  it('needs a header row or a column of numbers, over three rows at least', () => {
    // A journal's masthead (ejpecp): aligned, but no header and no values.
    expect(
      isCellGrid([
        ['Electron. Commun. Probab. 0 (2020), article no. 0, 1–5.', 'ELECTRONIC'],
        ['https://doi.org/10.1214/YY-TN', 'COMMUNICATIONS'],
        ['ISSN: 1083-589X', 'in PROBABILITY'],
      ]),
    ).toBe(false);
    // Two lines of a listing split at the same place (automake): too few rows to show columns.
    expect(
      isCellGrid([
        ['-e', '"s|[@]PERL[@]|$(PERL)|" \\'],
        ['-e', '"s|[@]GROFF_FONT_DIR[@]|$(fontpath)|" \\'],
      ]),
    ).toBe(false);
    // A tree diagram's labels (guide): two rows.
    expect(
      isCellGrid([
        ['0, 04', 'B'],
        ['0, 03', 'B'],
      ]),
    ).toBe(false);
    // A bibliography split after its labels: no header, no values.
    expect(
      isCellGrid([
        ['[1]', 'D. E. Knuth, The TeXbook, Addison-Wesley, 1984.'],
        ['[2]', 'L. Lamport, LaTeX: A Document Preparation System, 1994.'],
        ['[3]', 'F. Mittelbach, The LaTeX Companion, 2004.'],
      ]),
    ).toBe(false);
    // What a displayed formula split across a column leaves (elsarticle): ",2" names nothing.
    expect(
      isCellGrid([
        [',2', ',2'],
        ['Here we utilized the fact that B1', 'A1 . While the resonant enhancement'],
        [',39', ',39'],
      ]),
    ).toBe(false);
    // A formula over the symbols it explains (eqexpl) names no columns.
    expect(
      isCellGrid([
        ['', 'E = mc<sup>2</sup>', '(1)'],
        ['E', 'equivalent energy', ''],
        ['m', 'mass', ''],
        ['c', 'speed of light', ''],
      ]),
    ).toBe(false);
    // A header row over text cells, and values with no header, are tables.
    expect(
      isCellGrid([
        ['Phase', 'Description', 'Owner'],
        ['Design', 'Collect requirements from partners', 'Planning team'],
        ['Build', 'Implement the storage migration', 'Platform'],
      ]),
    ).toBe(true);
    expect(
      isCellGrid([
        ['North', '1,200', '12 %'],
        ['South', '980', '9 %'],
        ['East', '760', '7 %'],
      ]),
    ).toBe(true);
  });

  it('a first row of quoted values is a row, not a header: a piece of a table whose header is pages before', () => {
    // Django's date format table as LibreOffice exports it (builtins.html): its header is four pages up, and a row
    // group's label ("Timezone") cuts the page's rows; the piece's first row names no column, "'AM'" is an example.
    const rows = [
      ['f', 'Time, in 12-hour hours and minutes, with minutes left off if they’re zero.', "'1', '1:30'"],
      ['P', 'Time, in 12-hour hours, minutes and ‘a.m.’/’p.m.’.', "'1 a.m.', '1:30 p.m.', 'midnight'"],
    ];
    expect(isCellGrid([['A', "'AM' or 'PM'.", "'AM'"], ...rows])).toBe(false);
    expect(isCellGrid([['A', '“AM” or “PM”.', '“AM”'], ...rows])).toBe(false);
    expect(isCellGrid([['Format character', 'Description', 'Example output'], ...rows])).toBe(true);
  });

  it('a listing numbered in the cell of its code, a form of labelled values, numbered headings are not tables', () => {
    // l3pdftools / philosophersimprint (.dtx manuals): a macro name in the margin, the numbered code beside it.
    expect(
      isFalseTable([
        ['\\footnotesize', '75 \\renewcommand\\small{\\@setfontsize\\small{9pt}{13.5pt}}'],
        ['\\scriptsize', '76 \\renewcommand\\footnotesize{%'],
        ['\\tiny', '77 \\@setfontsize\\footnotesize{8.5pt}{9.5pt}}'],
        ['\\large', '78 \\renewcommand\\scriptsize{\\@setfontsize\\scriptsize{8pt}{9pt}}'],
      ]),
    ).toBe(true);
    // fnlineno (.dtx): numbered code cut at its indentation into more pieces, numbered from the first row.
    expect(
      isFalseTable([
        ['99', '', '\\TheLineNoLaTeXOutput', '%% "the real \\LineNoLaTeXOuput"'],
        ['100', '', '\\fi', ''],
        ['101', '', '\\fi', ''],
        ['102', '}', '', ''],
      ]),
    ).toBe(true);
    // A font chart numbers its rows too, but under a header, with a cell per code point.
    const chartRow = (n: number) => [String(n), ...'ABCDEFGH'.split('').map((c) => c + n), String(n)];
    expect(isFalseTable([['', ...'01234567'.split(''), ''], chartRow(0), chartRow(1), chartRow(2)])).toBe(false);
    // An option list: its first row is led like the others ("[opt]"), so it names no columns.
    expect(
      isCellGrid([
        ['[nobreak]', 'eliminate all line-breaks'],
        ['[nosort]', 'prevents sorting of the numbers'],
        ['[nomove]', 'prevents moving the superscript'],
      ]),
    ).toBe(false);
    expect(
      isCellGrid([
        ['command', 'function'],
        ['\\citeform', 'reformats each number'],
        ['\\citepunct', 'printed between numbers'],
      ]),
    ).toBe(true);
    // A thesis template's title page: each label, then its value.
    expect(
      isFalseTable([
        ['Studienkennzahl lt. Studienblatt:', 'A 792 327'],
        ['Studienrichtung lt. Studienblatt:', 'Sprachwissenschaft'],
        ['Betreut von:', 'Univ.-Prof. Dr. Vorname Name'],
      ]),
    ).toBe(true);
    // Numbered headings under a line set apart above them (textcase).
    expect(
      isFalseTable([
        ['', 'TABLE STUFF TEXT MORE TEXT GOES HERE'],
        ['2', 'Features and Foibles'],
        ['2.1', 'Nested text'],
      ]),
    ).toBe(true);
    // Numbered rows of a real table stand in their own cell, with more columns beside them.
    expect(
      isFalseTable([
        ['Week', 'Task', 'Team'],
        ['1', 'Survey', 'Network'],
        ['2', 'Pilot', 'Storage'],
        ['3', 'Rollout', 'Operations'],
      ]),
    ).toBe(false);
    // Section numbers before text are not a column of values; amounts beside a name are.
    expect(
      isCellGrid([
        ['70', '*****}%'],
        ['71', '\\PHIM@hyperreffalse}}'],
        ['3.3', '%%%%%'],
        ['3.3.1', '%%%%%'],
      ]),
    ).toBe(false);
    expect(
      isCellGrid([
        ['sehr gut', '14'],
        ['gut', '11'],
        ['befriedigend', '9'],
      ]),
    ).toBe(true);
  });

  it('keeps two aligned lines as text, and short cells under a header as a table', () => {
    const cells = (rows: string[][], top: number) =>
      rows.flatMap((cellsOfRow, r) =>
        cellsOfRow.map((cell, c) => {
          const x0 = 72 + 160 * c;
          return { ...run(cell, x0, top + 12 * r), x1: x0 + cell.length * 10 * (0.42 + 0.01 * (r + c)) };
        }),
      );
    const masthead = buildLines(
      cells(
        [
          ['Electron. Commun. Probab.', 'ELECTRONIC'],
          ['https://doi.org/10.1214/YY', 'COMMUNICATIONS'],
        ],
        100,
      ),
    );
    expect(extractBorderlessTables(masthead).tables).toEqual([]);
    const table = buildLines(
      cells(
        [
          ['Item', 'Location'],
          ['Widget', 'Warehouse'],
          ['Gadget', 'Supplier'],
        ],
        100,
      ),
    );
    expect(extractBorderlessTables(table).tables[0]?.rows).toEqual([
      ['Item', 'Location'],
      ['Widget', 'Warehouse'],
      ['Gadget', 'Supplier'],
    ]);
  });
});

describe('multi-line cells', () => {
  it('keeps a row whose cells all wrap together when a word is hyphenated across its lines', () => {
    const rows: [string, string, string][] = [
      ['VIN', 'ROBE', 'NEZ'],
      ['Carau Pujol', 'Rubis foncé, vio-', 'Frais, fruité, ci-'],
      ['Tannat', 'lacée, presque', 'tronné, arômes'],
      ['Peelee Island', 'Jaune pâle.', 'Fleurs blanches.'],
    ];
    // A proportional font: each run's advance per character differs.
    const lines = buildLines(
      rows.flatMap((cells, r) =>
        cells.map((cell, c) => {
          const x0 = 72 + 150 * c;
          return { ...run(cell, x0, 100 + 12 * r), x1: x0 + cell.length * 10 * (0.4 + 0.04 * (r + c)) };
        }),
      ),
    );
    const { tables } = extractBorderlessTables(lines);
    expect(tables[0]?.rows).toEqual([
      ['VIN', 'ROBE', 'NEZ'],
      ['Carau Pujol Tannat', 'Rubis foncé, violacée, presque', 'Frais, fruité, citronné, arômes'],
      ['Peelee Island', 'Jaune pâle.', 'Fleurs blanches.'],
    ]);
  });
});

describe('multi-line cells by row spacing', () => {
  // groff mom's wine list (typesetting.pdf): rows 19 pt apart, the lines of a cell 11 pt apart.
  const cell = (text: string, x0: number, baseline: number, i: number): TextRun => ({
    ...run(text, x0, baseline),
    x1: x0 + text.length * 10 * (0.4 + 0.03 * (i % 5)),
  });
  const layout = (rows: [number, string[]][]) =>
    buildLines(
      rows.flatMap(([baseline, cells], r) =>
        cells.flatMap((text, c) => (text ? [cell(text, 72 + 130 * c, baseline, r + c)] : [])),
      ),
    );

  it('keeps wrapped cell text in its row when rows are set further apart than the lines of a cell', () => {
    const lines = layout([
      [114.5, ['VIN', 'ROBE', 'COMMENTAIRES']],
      [131.5, ['Peelee Island', 'Jaune pâle.', 'Bon apéro. Servir']],
      [142.5, ['Gewürztraminer', '', 'avec des plats']],
      [153.5, ['2000', '', 'indiens ou chinois.']],
      [172.5, ['Carau Pujol', 'Rubis foncé,', 'Superbe ! Une']],
      [183.5, ['Tannat', 'presque opaque.', 'aubaine à ne pas']],
      [194.5, ['', '', 'manquer.']],
    ]);
    expect(extractBorderlessTables(lines).tables[0]?.rows).toEqual([
      ['VIN', 'ROBE', 'COMMENTAIRES'],
      ['Peelee Island Gewürztraminer 2000', 'Jaune pâle.', 'Bon apéro. Servir avec des plats indiens ou chinois.'],
      ['Carau Pujol Tannat', 'Rubis foncé, presque opaque.', 'Superbe ! Une aubaine à ne pas manquer.'],
    ]);
  });

  it('keeps one row per line under a header set apart', () => {
    const lines = layout([
      [100, ['Region', 'Q1', 'Q2']],
      [119, ['North', '120', '90']],
      [130, ['South', '80', '']],
      [141, ['East', '95', '70']],
    ]);
    expect(extractBorderlessTables(lines).tables[0]?.rows).toEqual([
      ['Region', 'Q1', 'Q2'],
      ['North', '120', '90'],
      ['South', '80', ''],
      ['East', '95', '70'],
    ]);
  });
});

describe('scripts', () => {
  it('keeps a superscript inline and makes a footnote reference only when its note exists', () => {
    const [formula] = buildLines([run('E = mc', 72, 100), { ...run('2', 102, 96, 7) }]);
    expect(formula!.text).toBe('E = mc<sup>2</sup>');
    const page = buildLines([
      run('A claim', 72, 100),
      { ...run('1', 107, 96, 7) },
      { ...run('1', 72, 700, 6) },
      run('The note.', 76, 703, 8),
    ]);
    expect(page.map((l) => l.text)).toEqual(['A claim[^1]', '[^1]: The note.']);
  });

  it('reads a lowered small run as a subscript', () => {
    expect(buildLines([run('H', 72, 100), { ...run('2', 77, 102.5, 7) }, run('O', 81, 100)])[0]!.text).toBe(
      'H<sub>2</sub>O',
    );
  });
});

describe('running lines', () => {
  it('strips page numbers that follow the page index and headers whose title changes', () => {
    const pages = [3, 4, 5, 6].map((folio, i) => ({
      height: 800,
      lines: [
        buildLines([run(`${i + 1}.0 Section ${'ABCD'[i]}`, 72, 50, 9), run(String(folio + 10), 500, 50, 9)])[0]!,
        line(`Body text that is different on every page number ${i}`, 200),
        line(String(folio), 650),
      ],
    }));
    const running = findRunningLines(pages);
    running.forEach((set, i) => {
      expect(set.has(pages[i]!.lines[0]!)).toBe(true);
      expect(set.has(pages[i]!.lines[2]!)).toBe(true);
      expect(set.has(pages[i]!.lines[1]!)).toBe(false);
    });
  });

  it('strips a folio set a word space from a title that changes (recto/verso), not a bold numbered heading', () => {
    // The title is the chapter's or section's, so it does not repeat: the folio alone tells.
    const titles = ['Getting started', 'Installing', 'Configuration files', 'Running the tests'];
    const headings = ['Methods', 'Results', 'Discussion', 'Limits'];
    const pages = titles.map((title, i) => ({
      height: 800,
      lines: [
        line(i % 2 ? `${title} ${i + 11}` : `${i + 11} ${title}`, 50, 9),
        { ...line(`${i + 1} ${headings[i]}`, 80), bold: true },
        line(`Body text that is different on every page number ${i}`, 200),
      ],
    }));
    const running = findRunningLines(pages);
    running.forEach((set, i) => {
      expect(set.has(pages[i]!.lines[0]!)).toBe(true);
      expect(set.has(pages[i]!.lines[1]!)).toBe(false);
      expect(set.has(pages[i]!.lines[2]!)).toBe(false);
    });
  });
  it('strips a head whose parts facing pages mirror (section left and chapter right, then the other way)', () => {
    // Four pages of ten carry it, set close above the text (no band) and without folios: it repeats
    // often enough only once its parts are taken in any order.
    const words = ['First', 'Second', 'Third', 'Fourth', 'Fifth', 'Sixth', 'Seventh', 'Eighth', 'Ninth', 'Tenth'];
    const pages = words.map((word, i) => ({
      height: 800,
      lines: [
        buildLines(
          i >= 4
            ? [run(`${word} head`, 72, 30, 11)]
            : i % 2
              ? [run('2 The structure', 72, 30, 11), run('lessons', 480, 30, 11)]
              : [run('lessons', 72, 30, 11), run('2 The structure', 400, 30, 11)],
        )[0]!,
        line(`${word} page: body text that differs from page to page`, 44, 11),
        line(`${word} line goes on below it`, 58, 11),
        line(`${word} line closes the page`, 400, 11),
      ],
    }));
    const running = findRunningLines(pages);
    running.slice(0, 4).forEach((set, i) => {
      expect(set.has(pages[i]!.lines[0]!)).toBe(true);
      expect(set.has(pages[i]!.lines[1]!)).toBe(false);
    });
  });
});

describe('outline headings', () => {
  it('matches titles with or without their numbers, wrapped over lines, and run-in', () => {
    expect(titleKey('2.1 General Information')).toBe(titleKey('General information'));
    expect(titleKey('IV. RESULTS')).toBe('results');
    const lines = [
      line('1 Introduction', 100, 14),
      line('Some text', 120),
      line('2 A title that wraps onto', 160, 14),
      line('a second line', 176, 14),
      line('2.1. Trees. We define trees as', 200),
    ];
    const headings = outlineHeadings(
      [{ page: 1, lines }],
      [
        { title: 'Introduction', depth: 0, page: 1 },
        { title: '2 A title that wraps onto a second line', depth: 0, page: 1 },
        { title: '2.1 Trees', depth: 1, page: 1 },
      ],
    );
    expect(headings?.get(lines[0]!)).toEqual({ level: 1, lines: 1 });
    expect(headings?.get(lines[2]!)).toEqual({ level: 1, lines: 2 });
    expect(headings?.get(lines[4]!)).toMatchObject({ level: 2, lines: 1, runIn: '2.1. Trees.'.length });
  });

  it('compares titles without their chapter labels and accents, as a reader does', () => {
    // A TeX text layer spells "Capítulo" with a spacing accent and a dotless i.
    expect(titleKey('Introduc´ıon')).toBe(titleKey('Introducíon'));
    expect(titleKey('Re\u0301sume\u0301')).toBe(titleKey('Résumé'));
    expect(titleKey('Chapter 1: Using this template')).toBe(titleKey('Using this template'));
    expect(titleKey('Appendix A: Appendix')).toBe('appendix');
    expect(titleKey('Appendix 3.B Second appendix')).toBe(titleKey('Second appendix'));
    expect(titleKey('Appendix B Linguistic Examples')).toBe(titleKey('Linguistic examples'));
    // A letter-spaced title is one word: its "C" is no roman number.
    expect(titleKey('C O N T E N T S')).toBe('contents');
    expect(titleKey('1 F U N D A M E N T A L S')).toBe('fundamentals');
    // A lone letter is a number only after a chapter word or before a full stop.
    expect(titleKey('A. Proofs')).toBe('proofs');
    expect(titleKey('A Title')).toBe('atitle');
  });

  it('is trusted when the titles it does not find as lines are named in running lines (a slide deck)', () => {
    const sectionPage = [line('Examples', 200, 20)];
    const slide = [line('A slide title', 100, 14), line('Body', 140)];
    const navigation = new Map([
      [2, [line('Examples Lists Other things', 20, 7)]],
      [3, [line('Examples Lists Other things', 20, 7)]],
    ]);
    const outline = [
      { title: 'Examples', depth: 0, page: 1 },
      { title: 'Lists', depth: 0, page: 2 },
      { title: 'Other things', depth: 0, page: 3 },
    ];
    const pages = [
      { page: 1, lines: sectionPage },
      { page: 2, lines: slide },
      { page: 3, lines: slide },
    ];
    const headings = outlineHeadings(pages, outline, navigation);
    expect([...(headings?.keys() ?? [])]).toEqual([sectionPage[0]]);
    // Without the running lines, one title found of three is too little to trust.
    expect(outlineHeadings(pages, outline)).toBeUndefined();
  });

  it('finds a title whose destination is off between the titles found before and after it', () => {
    const contents = [line('Contents', 100, 14), line('2 Methods 5', 120), line('3 Results 6', 140)];
    const page2 = [line('1 Introduction', 100, 14), line('Text', 120)];
    const page5 = [line('Text about methods', 100), line('2 Methods', 140, 14)];
    const page6 = [line('3 Results', 100, 14), line('Methods were described before', 120)];
    const pages = [
      { page: 1, lines: contents },
      { page: 2, lines: page2 },
      { page: 5, lines: page5 },
      { page: 6, lines: page6 },
    ];
    const headings = outlineHeadings(pages, [
      { title: 'Introduction', depth: 0, page: 2 },
      { title: 'Methods', depth: 0, page: 2 }, // a destination three pages off
      { title: 'Results', depth: 0, page: 6 },
    ]);
    expect(headings?.get(page5[1]!)).toEqual({ level: 1, lines: 1 });
    // A line of the text that names the title is no heading: only whole lines are titles.
    expect(headings?.has(page6[1]!)).toBe(false);
    expect(headings?.size).toBe(3);
  });

  it('is no outline when too few entries are found in the text', () => {
    expect(
      outlineHeadings(
        [{ page: 1, lines: [line('Body', 100)] }],
        [
          { title: 'Titlepage', depth: 0, page: 1 },
          { title: 'A', depth: 0, page: 1 },
          { title: 'B', depth: 0, page: 1 },
        ],
      ),
    ).toBeUndefined();
  });
});

describe('tables an office suite exports from HTML (unruled, cells centred in their rows)', () => {
  // Runs placed as LibreOffice Writer/Web set a Sphinx API summary table (12 pt, a cell's lines 13.8 pt apart,
  // rows about 30 pt apart, each cell centred on its row's height), in a proportional font (each run's advance
  // differs: a fixed pitch would make it a listing).
  const page = (cells: [string, number, number, boolean?][]): Line[] =>
    buildLines(
      cells.map(([text, x0, baseline, bold], i) => ({
        ...run(text, x0, baseline, 12),
        x1: x0 + text.length * 12 * (0.4 + 0.01 * i),
        bold: bold ?? false,
      })),
    );
  const before: [string, number, number][] = [['SQLAlchemy ORM exceptions, as the module documents them.', 72, 619.8]];
  const after: [string, number, number][] = [['attribute sqlalchemy.orm.exc.ConcurrentModificationError', 64, 786.6]];

  it('a row whose cells have different line counts is one row, read from its top; so is one that wraps alike', () => {
    const lines = page([
      ...before,
      ['Object Name', 117, 657.6, true],
      ['Description', 369, 657.6, true],
      ['ConcurrentModificatio', 94, 688.3],
      ['alias of StaleDataError', 268, 695.2],
      ['nError', 94, 702.1],
      ['Exception types that may be raised by', 268, 732.9],
      ['NO_STATE', 94, 739.8],
      ['instrumentation implementations.', 268, 746.7],
      // Cells that wrap alike share their baselines: a row all the same, beside centred rows.
      ['register(identifier,', 94, 777.4],
      ['Associate a callable with a particular func.', 268, 777.4],
      ['fn[, package])', 94, 791.2],
      ['name.', 268, 791.2],
      ...after.map(([text, x]): [string, number, number] => [text, x, 831]),
    ]);
    const { tables, rest } = extractBorderlessTables(lines);
    expect(tables.map((t) => t.rows)).toEqual([
      [
        ['Object Name', 'Description'],
        ['ConcurrentModificatio nError', 'alias of StaleDataError'],
        ['NO_STATE', 'Exception types that may be raised by instrumentation implementations.'],
        ['register(identifier, fn[, package])', 'Associate a callable with a particular func. name.'],
      ],
    ]);
    expect(rest.map((l) => l.text)).toEqual([before[0]![0], after[0]![0]]);
  });

  it('a bold header over plain rows shows a table in two rows, a header cell of two lines included', () => {
    const lines = page([
      ...before,
      ['Object', 103, 536.8, true],
      ['Description', 321, 543.7, true],
      ['Name', 105, 550.6, true],
      ['Appender', 94, 581.4],
      ['A dynamic query that supports basic collection storage', 206, 581.4],
      ['Query', 94, 595.2],
      ['operations.', 206, 595.2],
      ...after.map(([text, x]): [string, number, number] => [text, x, 635.1]),
    ]);
    expect(extractBorderlessTables(lines).tables.map((t) => t.rows)).toEqual([
      [
        ['Object Name', 'Description'],
        ['Appender Query', 'A dynamic query that supports basic collection storage operations.'],
      ],
    ]);
  });

  it('a row with its first cell only stays in the table', () => {
    const lines = page([
      ...before.map(([text, x]): [string, number, number] => [text, x, 400]),
      ['Object Name', 106, 445.5, true],
      ['Description', 342, 445.5, true],
      ['array_agg', 94, 476.2],
      ['Support for the ARRAY_AGG function.', 214, 476.2],
      ['char_length', 94, 507.0],
      ['The CHAR_LENGTH() SQL function.', 214, 507.0],
      ['coalesce', 94, 537.7],
      ['concat', 94, 568.5],
      ['The SQL CONCAT() function, which concatenates strings.', 214, 568.5],
      ...after.map(([text, x]): [string, number, number] => [text, x, 620]),
    ]);
    expect(extractBorderlessTables(lines).tables.map((t) => t.rows)).toEqual([
      [
        ['Object Name', 'Description'],
        ['array_agg', 'Support for the ARRAY_AGG function.'],
        ['char_length', 'The CHAR_LENGTH() SQL function.'],
        ['coalesce', ''],
        ['concat', 'The SQL CONCAT() function, which concatenates strings.'],
      ],
    ]);
  });

  it('a centred row that is no table goes back to text as it was set', () => {
    // A label centred beside a two-line note, with no header and no second row: not a table.
    const lines = page([
      ...before,
      ['Warning', 94, 688.3],
      ['the session must be closed before', 268, 681.4],
      ['the connection is returned to the pool', 268, 695.2],
      ...after.map(([text, x]): [string, number, number] => [text, x, 740]),
    ]);
    const { tables, rest } = extractBorderlessTables(lines);
    expect(tables).toEqual([]);
    expect(rest).toEqual(lines);
  });

  it('a column edge narrower than a word space shows where wrapped cells of rows below start again', () => {
    // Django's template reference as LibreOffice exports it: three narrow columns, the value's cell ends less
    // than an em before the template's cell, and the template wraps to two more lines starting at its cell.
    const at = (text: string, x0: number, x1: number, baseline: number, bold = false): TextRun => ({
      ...run(text, x0, baseline, 12),
      x1,
      bold,
    });
    const rows = [171.5, 229.3, 287].flatMap((y, r) => [
      at(['34.23234', '34.00000', '34.26000'][r]!, 58.2, 114.5, y),
      at('{{ value|', 124.3, 189.1, y),
      at(['34.2', '34', '34.3'][r]!, 212.1, [240.9, 226.5, 240.9][r]!, y),
      at('floatformat', 124.3, 203.5, y + 13.6),
      at('}}', 124.3, 138.7, y + 27.2),
    ]);
    const lines = buildLines([
      at('there’s a decimal part to be displayed. For example:', 56.8, 305.5, 112.6),
      at('value', 71.9, 107.9, 141, true),
      at('Template', 142.5, 191.1, 141, true),
      at('Output', 214.2, 251.5, 141, true),
      ...rows,
      at('If used with a numeric integer argument, floatformat rounds it to that many places.', 56.8, 558.1, 344.6),
    ]);
    expect(extractBorderlessTables(lines).tables.map((t) => t.rows)).toEqual([
      [
        ['value', 'Template', 'Output'],
        ['34.23234', '{{ value| floatformat }}', '34.2'],
        ['34.00000', '{{ value| floatformat }}', '34'],
        ['34.26000', '{{ value| floatformat }}', '34.3'],
      ],
    ]);
  });

  it('rows whose cells are centred on one another show a table of terms and descriptions without a header', () => {
    // pyqtgraph's argument tables as LibreOffice exports them: a name beside its description, no header row;
    // a one-line name sits midway between the lines of a two- or three-line description. A definition list
    // (the same words, each term level with its description's first line) stays text.
    const terms: TextRun[] = [
      at('Arguments:', 114.9, 176.2, 41),
      at('x, y', 114.9, 132.9, 71.7),
      at('(numpy arrays) Data to display', 206.5, 355.7, 71.7),
      at('Pen to use when drawing. Any single argument accepted by mkPen is', 206.5, 543.7, 102.5),
      at('pen', 114.9, 132.2, 109.9),
      at('allowed.', 206.5, 247.5, 117.3),
      at('Pen for drawing behind the primary pen. Usually this is used to emphasize', 206.5, 563.9, 148),
      at('shadowPen', 114.9, 169.5, 161.8),
      at('the curve by providing a high-contrast border. Any single argument', 206.5, 530.9, 161.8),
      at('accepted by mkPen is allowed.', 206.5, 357.4, 175.6),
      at('fillLevel', 114.9, 156.2, 207.4),
      at('(float or None) Fill the area under the curve to the specified value.', 206.5, 524.6, 207.4),
      at('fillOutline', 114.9, 164.8, 238.1),
      at('(bool) If True, an outline surrounding the fillLevel area is drawn.', 206.5, 517, 238.1),
      at('Brush to use when filling. Any single argument accepted by mkBrush is', 206.5, 558.8, 268.9),
      at('brush', 114.9, 141.5, 276.3),
      at('allowed.', 206.5, 247.5, 283.7),
      at('setBrush(*args, **kargs)[source]', 85.2, 255.8, 314.4),
    ];
    expect(extractBorderlessTables(buildLines(terms)).tables.map((t) => t.rows)).toEqual([
      [
        ['x, y', '(numpy arrays) Data to display'],
        ['pen', 'Pen to use when drawing. Any single argument accepted by mkPen is allowed.'],
        [
          'shadowPen',
          'Pen for drawing behind the primary pen. Usually this is used to emphasize the curve by providing a ' +
            'high-contrast border. Any single argument accepted by mkPen is allowed.',
        ],
        ['fillLevel', '(float or None) Fill the area under the curve to the specified value.'],
        ['fillOutline', '(bool) If True, an outline surrounding the fillLevel area is drawn.'],
        ['brush', 'Brush to use when filling. Any single argument accepted by mkBrush is allowed.'],
      ],
    ]);
    // The same terms level with the first line of their descriptions: a definition list.
    const level = terms.map((r) =>
      ['pen', 'shadowPen', 'brush'].includes(r.text) ? { ...r, baseline: r.baseline - 7.4 } : r,
    );
    level.find((r) => r.text === 'shadowPen')!.baseline = 148;
    expect(extractBorderlessTables(buildLines(level)).tables).toEqual([]);
  });

  it('a bold header row set on its foot keeps a two-line header cell in one cell', () => {
    // Django's manual (docutils' HTML4 writer: `<thead valign="bottom">`) as LibreOffice exports it: "Keyword
    // Argument" wraps, "Description" stands on its second line; the cells under it wrap in narrow columns, "precision"
    // less than an em before its description.
    const at = (text: string, x0: number, x1: number, baseline: number, bold = false): TextRun => ({
      ...run(text, x0, baseline, 12),
      x1,
      bold,
    });
    const lines = buildLines([
      at('-147.78711,70.245363</gml:OuterBoundaryIs></gml:Polygon>', 56.8, 392.8, 527),
      at('Keyword', 69.9, 117.2, 559.5, true),
      at('Argument', 67.3, 119.9, 573.3, true),
      at('Description', 137.5, 196.7, 573.3, true),
      at('precision', 58.2, 121, 602.9),
      at('Specifies the', 131.8, 193.4, 602.9),
      ...['number of', 'significant', 'digits for the', 'coordinates.'].map((text, i) =>
        at(text, 131.8, 131.8 + text.length * 5.4, 617.9 + 13.8 * i),
      ),
      at('version', 58.2, 96.6, 689.1),
      at('Specifies the', 131.8, 193.4, 689.1),
      at('GML version', 131.8, 196.8, 704.1),
      at('to use: 2 or 3.', 131.8, 199.4, 717.9),
      at('Changed in Django 3.1: Oracle support was added to this function.', 56.8, 420.5, 757.4),
    ]);
    expect(extractBorderlessTables(lines).tables.map((t) => t.rows)).toEqual([
      [
        ['Keyword Argument', 'Description'],
        ['precision', 'Specifies the number of significant digits for the coordinates.'],
        ['version', 'Specifies the GML version to use: 2 or 3.'],
      ],
    ]);
  });

  it('a word broken inside a narrow cell is one word again; prose wrapped at a space keeps its space', () => {
    // SQLAlchemy's defaults table as LibreOffice exports it: the names are too wide for their column and broken
    // where the line ran out, each piece at the column's edge within a glyph, the rest on the cell's next line.
    const names = extractBorderlessTables(
      buildLines([
        at('Object', 105.5, 140.1, 255),
        at('Description', 340.8, 400, 261.9),
        at('Name', 107.9, 137.8, 268.8),
        at('ColumnDef', 94.2, 150.8, 299.5),
        at('A plain default value on a column.', 211.3, 377.5, 306.4),
        at('ault', 94.2, 112.1, 313.3),
        at('Defines a generated column, i.e. “GENERATED ALWAYS AS”', 211.3, 524.4, 344.1),
        at('Computed', 94.2, 144.2, 351),
        at('syntax.', 211.3, 245.6, 357.9),
        at('DefaultCla', 94.2, 146.8, 388.6),
        at('A DDL-specified DEFAULT column value.', 211.3, 423.5, 395.5),
        at('use', 94.2, 110.1, 402.4),
        at('DefaultGen', 94.2, 150.2, 433.2),
        at('Base class for column', 211.3, 316.9, 440.1),
        at('default', 319.9, 353.2, 440.1),
        at('values.', 356.3, 389.9, 440.1),
        at('erator', 94.2, 122.2, 447),
        at('FetchedVal', 94.2, 149.5, 477.7),
        at('A marker for a transparent database-side default.', 211.3, 445.4, 484.6),
        at('ue', 94.2, 105.5, 491.5),
        at('Defines an identity column, i.e. “GENERATED { ALWAYS |', 211.3, 510.9, 522.3),
        at('Identity', 94.2, 131.5, 529.2),
        at('BY DEFAULT } AS IDENTITY” syntax.', 211.3, 414.2, 536.1),
      ]),
    );
    expect(names.tables.map((t) => t.rows)).toEqual([
      [
        ['Object Name', 'Description'],
        ['ColumnDefault', 'A plain default value on a column.'],
        ['Computed', 'Defines a generated column, i.e. “GENERATED ALWAYS AS” syntax.'],
        ['DefaultClause', 'A DDL-specified DEFAULT column value.'],
        ['DefaultGenerator', 'Base class for column default values.'],
        ['FetchedValue', 'A marker for a transparent database-side default.'],
        ['Identity', 'Defines an identity column, i.e. “GENERATED { ALWAYS | BY DEFAULT } AS IDENTITY” syntax.'],
      ],
    ]);
    // Django's loop variables as LibreOffice exports them (the last row, from the next page, set under the others):
    // "surrounding" ends within a glyph of its column's edge too, but the line below goes on with more words, a
    // sentence wrapped at a space. (A header's "Keyword" over "Argument", at its column's edge, starts in a capital:
    // see the bold header row set on its foot, above.)
    const cell = (lines: string[], ends: number[], baseline: number) =>
      lines.map((text, i) => at(text, 206.8, ends[i]!, baseline + 13.8 * i));
    const loop = extractBorderlessTables(
      buildLines([
        at('The for loop sets a number of variables available within the loop:', 56.8, 370.2, 38.2),
        { ...at('Variable', 108.8, 153.4, 67.6), bold: true },
        { ...at('Description', 208.7, 267.9, 67.6), bold: true },
        at('forloop.counter', 58.2, 166.2, 97.1),
        ...cell(['The current', 'iteration of', 'the loop (1-', 'indexed)'], [262.4, 259.8, 262.8, 248.8], 98.3),
        at('forloop.counter0', 58.2, 173.4, 169.3),
        ...cell(['The current', 'iteration of', 'the loop (0-', 'indexed)'], [262.4, 259.8, 262.8, 248.8], 170.5),
        at('forloop.revcounter', 58.2, 187.8, 241.4),
        ...cell(
          ['The number', 'of iterations', 'from the end', 'of the loop', '(1-indexed)'],
          [265.1, 264.4, 268.1, 258.8, 262.8],
          242.6,
        ),
        at('forloop.revcounter0', 58.2, 195, 327.4),
        ...cell(
          ['The number', 'of iterations', 'from the end', 'of the loop', '(0-indexed)'],
          [265.1, 264.4, 268.1, 258.8, 262.8],
          328.6,
        ),
        at('forloop.first', 58.2, 151.8, 413.3),
        ...cell(['True if this', 'is the first', 'time through', 'the loop'], [260, 254.7, 268.4, 245.8], 414.5),
        at('forloop.parentloop', 58.2, 187.8, 485.5),
        ...cell(
          ['For nested', 'loops, this is', 'the loop', 'surrounding', 'the current', 'one'],
          [257.1, 267.1, 245.8, 264.8, 258.4, 224.1],
          486.7,
        ),
      ]),
    );
    expect(loop.tables.map((t) => t.rows)).toEqual([
      [
        ['Variable', 'Description'],
        ['forloop.counter', 'The current iteration of the loop (1- indexed)'],
        ['forloop.counter0', 'The current iteration of the loop (0- indexed)'],
        ['forloop.revcounter', 'The number of iterations from the end of the loop (1-indexed)'],
        ['forloop.revcounter0', 'The number of iterations from the end of the loop (0-indexed)'],
        ['forloop.first', 'True if this is the first time through the loop'],
        ['forloop.parentloop', 'For nested loops, this is the loop surrounding the current one'],
      ],
    ]);
  });

  it('a row on the same grid as the row above stays in the table across the gap a tall cell left', () => {
    // A browser's print (hard corpus, browser-two-column-b): the table's wrapped description column stands in
    // the page's other text column, so some rows are set half as far apart again as the others.
    const rows: [number, string[]][] = [
      [601.5, ['Option', 'Type', 'Default']],
      [621.7, ['timeout', 'string', 'none']],
      [654.7, ['compression', 'duration', 'none']],
      [687.7, ['locale', 'path', 'none']],
      [707.2, ['max-workers', 'list', 'none']],
    ];
    const lines = buildLines([
      { ...run('Instrument settings', 57, 581.2), x1: 133 },
      ...rows.flatMap(([baseline, cells], r) =>
        cells.map((text, c) => {
          const x0 = [63, 174.5, 252.6][c]!;
          return { ...run(text, x0, baseline), x1: x0 + text.length * 10 * (0.4 + 0.02 * (r + c)), bold: r === 0 };
        }),
      ),
      { ...run('Readings with the limits set by the regional', 57, 743.2, 11), x1: 248 },
    ]);
    expect(extractBorderlessTables(lines).tables.map((t) => t.rows)).toEqual([rows.map(([, cells]) => cells)]);
  });

  it('a row whose cells both fill their columns stays in the table of the rows around it', () => {
    // pydicom's method table (DSdecimal) as LibreOffice exports it: a long name broken anywhere beside a description
    // that fills its column reaches the text's right edge; its name's second run opens where the rows around it start
    // their description. Read as a line of text, it cut the rows above and below into pieces too short to judge.
    const { tables, rest } = extractBorderlessTables(
      buildLines([
        at('compare', 86.6, 137, 179.8),
        at('(other[,', 137, 172.6, 179.8),
        at('context])', 175.6, 218.9, 179.8),
        at('Compare self to other.', 237.6, 344.8, 180.3),
        at('compare_signal', 86.6, 187.4, 211.5),
        at('(other[,', 187.4, 223, 211.5),
        at('c', 226, 231.3, 211.5),
        at('Identical to compare, except that all NaNs signal.', 237.6, 474.4, 218.9),
        at('ontext])', 86.6, 124.6, 226.3),
        at('compare_total', 86.6, 180.2, 257.1),
        at('(other[,', 180.2, 215.8, 257.1),
        at('co', 218.8, 230.1, 257.1),
        at('Compare two operands using their abstract representation rather', 237.6, 545, 257.6),
        at('ntext])', 86.6, 118.6, 271.9),
        at('than their numerical value.', 237.6, 366.2, 271.4),
        at('Compare two operands using their abstract representation rather', 237.6, 545, 302.6),
        at('compare_total_mag', 86.6, 209, 309),
        at('(othe', 209, 233.6, 309),
        at('than their value as in compare_total(), but ignoring the sign of each', 237.6, 560.7, 316.4),
        at('r[,', 86.6, 97.6, 323.8),
        at('context])', 100.6, 143.9, 323.8),
        at('operand.', 237.6, 279.2, 330.2),
        at('conjugate', 86.6, 151.4, 361),
        at('()', 151.4, 159.4, 361),
        at('Return self.', 237.6, 293.6, 361.5),
        at('copy_abs', 86.6, 144.2, 392.7),
        at('()', 144.2, 152.2, 392.7),
        at('Return the absolute value of the argument.', 237.6, 441.7, 393.2),
        at('copy_negate', 86.6, 165.8, 424.5),
        at('()', 165.8, 173.8, 424.5),
        at('Return the negation of the argument.', 237.6, 414.1, 425),
      ]),
    );
    expect(rest).toEqual([]);
    expect(tables).toHaveLength(1);
    const rows = tables[0]!.rows;
    expect(rows[0]).toEqual(['compare(other[, context])', 'Compare self to other.']);
    expect(rows).toContainEqual([
      'compare_signal(other[, c ontext])',
      'Identical to compare, except that all NaNs signal.',
    ]);
    // The name broken after "(othe", its piece one word at the column's edge: one word again.
    expect(rows).toContainEqual([
      'compare_total_mag(other[, context])',
      'Compare two operands using their abstract representation rather than their value as in compare_total(), but ' +
        'ignoring the sign of each operand.',
    ]);
    expect(rows.slice(-3)).toEqual([
      ['conjugate()', 'Return self.'],
      ['copy_abs()', 'Return the absolute value of the argument.'],
      ['copy_negate()', 'Return the negation of the argument.'],
    ]);
  });

  it('wrapped lines of centred description cells show no text edge: the names beside them are no margin notes', () => {
    // The same table further down: most descriptions wrap to two lines and the one-line name sits midway between them.
    // The descriptions' second lines all start at the second column, as a page's text would; taken for the text edge,
    // they made the first column read as notes in the margin, and the table as text.
    const { tables, rest } = extractBorderlessTables(
      buildLines([
        at('fma', 86.6, 108.2, 545.3),
        at('(other,', 108.2, 139.8, 545.3),
        at('third[,', 142.8, 172.4, 545.3),
        at('context])', 175.5, 218.8, 545.3),
        at('Fused multiply-add.', 237.6, 334.2, 545.8),
        at('from_float', 86.6, 158.6, 577.1),
        at('()', 158.6, 166.6, 577.1),
        at('Class method that converts a float to a decimal number, exactly.', 237.6, 545.4, 577.6),
        at('is_canonical', 86.6, 173, 608.8),
        at('()', 173, 181, 608.8),
        at('Return True if the argument is canonical and False otherwise.', 237.6, 533.4, 609.3),
        at('Return True if the argument is a finite number, and False if the', 237.6, 539, 640.6),
        at('is_finite', 86.6, 151.4, 647),
        at('()', 151.4, 159.4, 647),
        at('argument is infinite or a NaN.', 237.6, 381.4, 654.4),
        at('Return True if the argument is either positive or negative infinity', 237.6, 549.4, 685.1),
        at('is_infinite', 86.6, 165.8, 691.5),
        at('()', 165.8, 173.8, 691.5),
        at('and False otherwise.', 237.6, 335.9, 698.9),
        at('Return True if the argument is a (quiet or signaling) NaN and False', 237.6, 560.7, 729.7),
        at('is_nan', 86.6, 129.8, 736.1),
        at('()', 129.8, 137.8, 736.1),
        at('otherwise.', 237.6, 287.2, 743.5),
        at('Return True if the argument is a normal finite non-zero number', 237.6, 542.1, 774.2),
        at('is_normal', 86.6, 151.4, 780.6),
        at('([context])', 151.4, 202.7, 780.6),
        at('with an adjusted exponent greater than or equal to Emin.', 237.6, 509.4, 788),
      ]),
    );
    expect(rest).toEqual([]);
    expect(tables.map((t) => t.rows)).toEqual([
      [
        ['fma(other, third[, context])', 'Fused multiply-add.'],
        ['from_float()', 'Class method that converts a float to a decimal number, exactly.'],
        ['is_canonical()', 'Return True if the argument is canonical and False otherwise.'],
        [
          'is_finite()',
          'Return True if the argument is a finite number, and False if the argument is infinite or a NaN.',
        ],
        ['is_infinite()', 'Return True if the argument is either positive or negative infinity and False otherwise.'],
        ['is_nan()', 'Return True if the argument is a (quiet or signaling) NaN and False otherwise.'],
        [
          'is_normal([context])',
          'Return True if the argument is a normal finite non-zero number with an adjusted exponent greater than or ' +
            'equal to Emin.',
        ],
      ],
    ]);
  });
});

describe('numbered rows under a header', () => {
  it('values numbered in order under a row naming the columns are a table, not numbered lines', () => {
    expect(
      isFalseTable([
        ['Outdim Value', 'Description'],
        ['2', 'The default, output 2D WKB.'],
        ['3', 'Output 3D WKB.'],
      ]),
    ).toBe(false);
    expect(
      isFalseTable([
        ['2', 'The default, output 2D WKB.'],
        ['3', 'Output 3D WKB.'],
        ['4', 'Output 4D WKB.'],
      ]),
    ).toBe(true);
    // Versions look like section numbers; under a header they are a column of values.
    const versions = [
      ['2.2', '3.5, 3.6, 3.7, 3.8 (added in 2.2.8)'],
      ['3.0', '3.6, 3.7, 3.8, 3.9 (added in 3.0.11)'],
      ['3.1', '3.6, 3.7, 3.8, 3.9 (added in 3.1.3)'],
    ];
    expect(isFalseTable([['Django version', 'Python versions'], ...versions])).toBe(false);
    expect(isFalseTable(versions)).toBe(true);
  });
});

describe('numbers that are not values', () => {
  it('an array printed by a program (items ending in commas) shows no column of values', () => {
    const array = [
      ['array([[ 7.,', '9.,', '11.],'],
      ['[ 19.,', '21.,', '23.],'],
      ['[ 31.,', '33.,', '35.]], dtype=float32)'],
    ];
    expect(isCellGrid(array)).toBe(false);
    expect(isCellGrid([['Band', 'Min', 'Max'], ...array.map(() => ['1', '7.5', '11'])])).toBe(true);
  });
});

describe('program text in a table', () => {
  it('rows of code under a bold header naming the columns are a table, not a listing', () => {
    // Django's porting guide: old and new names side by side in a fixed-pitch font, under "Old (0.96)" / "New (1.0)".
    const mono = (text: string, x0: number, baseline: number): TextRun => ({
      ...run(text, x0, baseline, 6.5),
      x1: x0 + [...text].length * 3.9,
    });
    const header = (text: string, x0: number, x1: number): TextRun => ({
      ...run(text, x0, 208.4, 6.5),
      x1,
      bold: true,
    });
    const rows = [
      ["f['content']", 'f.read()'],
      ["f['filename']", 'f.name'],
      ["f['content-type']", 'f.content_type'],
    ];
    const code = rows.flatMap(([old, now], i) => [mono(old!, 53, 224.1 + 15.1 * i), mono(now!, 232, 224.1 + 15.1 * i)]);
    const lines = buildLines([header('Old (0.96)', 53, 84), header('New (1.0)', 232, 261), ...code]);
    expect(extractBorderlessTables(lines).tables.map((t) => t.rows)).toEqual([[['Old (0.96)', 'New (1.0)'], ...rows]]);
    // The same rows without the header are a listing laid out with spaces.
    expect(extractBorderlessTables(buildLines(code)).tables).toEqual([]);
  });
});

describe('tables a browser prints from HTML without its stylesheet (each cell a paragraph)', () => {
  /** A name in code type, as pydicom's summaries set it beside a 12 pt description. */
  const code = (text: string, x0: number, x1: number, baseline: number): TextRun => ({
    ...at(text, x0, x1, baseline),
    size: 8.775,
  });
  // pyqtgraph's argument tables: a paragraph's margins set the rows three lines apart, and the descriptions start
  // a few points after the widest name ("color"), less than a word space from it.
  const argumentRows = (descriptionsAt: number) =>
    buildLines(
      [
        ['pos', 112.7, '(3,) array of floats specifying text location.', 613.5],
        ['color', 120.7, 'QColor or array of ints [R,G,B] or [R,G,B,A]. (Default: Qt.white)', 654],
        ['text', 114, 'String to display.', 694.5],
        ['font', 115.3, 'QFont (Default: QFont(‘Helvetica’, 16))', 735],
      ].flatMap(([name, end, description, baseline]) => [
        at(name as string, 96, end as number, baseline as number),
        at(
          description as string,
          descriptionsAt,
          descriptionsAt + 6 * (description as string).length,
          baseline as number,
        ),
      ]),
    );

  it('rows set apart as paragraphs on columns as wide as their widest cell are a table', () => {
    expect(extractBorderlessTables(argumentRows(123.7)).tables.map((t) => t.rows)).toEqual([
      [
        ['pos', '(3,) array of floats specifying text location.'],
        ['color', 'QColor or array of ints [R,G,B] or [R,G,B,A]. (Default: Qt.white)'],
        ['text', 'String to display.'],
        ['font', 'QFont (Default: QFont(‘Helvetica’, 16))'],
      ],
    ]);
  });

  it('descriptions at a fixed indent well past the widest term are a definition list, whatever the spacing', () => {
    expect(extractBorderlessTables(argumentRows(180)).tables).toEqual([]);
  });

  it('a bold caption of one cell a row above such rows is their header: two rows show the table', () => {
    const { tables } = extractBorderlessTables(
      buildLines([
        { ...at('Arguments:', 96, 157.3, 103.5), bold: true },
        at('x', 96, 102, 144),
        at('Value (position on gradient) of requested color.', 160, 387, 144),
        at('toQColor', 96, 141, 184.5),
        at('If true, returns a QColor object, else returns a (r,g,b,a) tuple.', 160, 449, 184.5),
      ]),
    );
    expect(tables.map((t) => t.rows)).toEqual([
      [
        ['Arguments:', ''],
        ['x', 'Value (position on gradient) of requested color.'],
        ['toQColor', 'If true, returns a QColor object, else returns a (r,g,b,a) tuple.'],
      ],
    ]);
  });

  it('two such rows under a caption part their cells where one of them shows a cell gap', () => {
    // pyqtgraph's signal tables: the longer name ends 3 pt before the description, closer than a word space.
    const { tables } = extractBorderlessTables(
      buildLines([
        at(
          'Colors are chosen by the user from the bar, and its levels set by the two sliders beside it.',
          64,
          560,
          221,
        ),
        { ...at('Signals:', 66, 106.7, 261), bold: true },
        at('sigLevelsChanged(self)', 66, 180, 301.5),
        at('Emitted when the range sliders are moved', 218.3, 420.2, 301.5),
        at('sigLevelsChangeFinished(self)', 66, 215.3, 342),
        at('Emitted when the range sliders are released', 218.3, 426.9, 342),
      ]),
    );
    expect(tables.map((t) => t.rows)).toEqual([
      [
        ['Signals:', ''],
        ['sigLevelsChanged(self)', 'Emitted when the range sliders are moved'],
        ['sigLevelsChangeFinished(self)', 'Emitted when the range sliders are released'],
      ],
    ]);
  });

  it('a first row whose name is set in pieces and sits close to its description is one of such rows', () => {
    const { tables } = extractBorderlessTables(
      buildLines([
        code('__init__', 68.2, 112.7, 180),
        at('(*args, **kwargs)', 114.9, 201.2, 180),
        at('Create a new', 204.2, 266.8, 180),
        { ...at('DA', 269.8, 287.1, 180), bold: true },
        at('element value.', 290.1, 360.1, 180),
        code('ctime', 68.2, 94.6, 220.5),
        at('Return ctime() style string.', 204.2, 333.5, 220.5),
        code('fromisoformat', 68.2, 136.6, 261),
        at('str -> Construct a date from the output of date.isoformat()', 204.2, 482, 261),
        code('fromordinal', 68.2, 126, 301.5),
        at('int -> date corresponding to a proleptic Gregorian ordinal.', 204.2, 483, 301.5),
      ]),
    );
    expect(tables.map((t) => t.rows[0])).toEqual([['__init__ (*args, **kwargs)', 'Create a new DA element value.']]);
  });

  it('rows of marks set as far apart are a drawing, not such a table', () => {
    const karnaugh = [100, 140, 180, 220].flatMap((baseline, row) => [
      at(['00', '01', '11', '10'][row]!, 100, 112, baseline),
      ...[140, 180, 220, 260].map((x, c) => at(String((row + c) % 2), x, x + 6, baseline)),
    ]);
    expect(extractBorderlessTables(buildLines(karnaugh)).tables).toEqual([]);
  });

  it('a name in code type set midway beside a description of two lines is one row of such a table', () => {
    const { tables } = extractBorderlessTables(
      buildLines([
        code('dst', 68.2, 84, 195),
        at('Return self.tzinfo.dst(self).', 204.2, 333.5, 195),
        code('fromisoformat', 68.2, 136.6, 235.5),
        at('string -> time from time.isoformat() output', 204.2, 410.9, 235.5),
        code('isoformat', 68.2, 115.6, 282.7),
        at('Return string in ISO 8601 format, [HH[:MM[:SS[.mmm[uuu]]]]]', 204.2, 517.5, 276),
        at('[+HH:MM].', 204.2, 263.9, 289.5),
        code('replace', 68.2, 105.1, 330),
        at('Return time with new specified fields.', 204.2, 387.5, 330),
        code('strftime', 68.2, 110, 370.5),
        at('format -> strftime() style string.', 204.2, 357, 370.5),
        code('tzname', 68.2, 100, 411),
        at('Return self.tzinfo.tzname(self).', 204.2, 354, 411),
        code('utcoffset', 68.2, 116, 451.5),
        at('Return self.tzinfo.utcoffset(self).', 204.2, 361, 451.5),
      ]),
    );
    expect(tables.map((t) => t.rows)).toEqual([
      [
        ['dst', 'Return self.tzinfo.dst(self).'],
        ['fromisoformat', 'string -> time from time.isoformat() output'],
        ['isoformat', 'Return string in ISO 8601 format, [HH[:MM[:SS[.mmm[uuu]]]]] [+HH:MM].'],
        ['replace', 'Return time with new specified fields.'],
        ['strftime', 'format -> strftime() style string.'],
        ['tzname', 'Return self.tzinfo.tzname(self).'],
        ['utcoffset', 'Return self.tzinfo.utcoffset(self).'],
      ],
    ]);
  });
});
