/**
 * Tables only where there is a table: what aligned text on real documents of kinds not
 * tuned on is, each on the smallest rows that show it, with a real table beside it that must stay.
 */
import { describe, expect, it } from 'vitest';
import { run } from '../../testing/runs.js';
import type { TextRun } from './types.js';
import { buildLines } from './lines.js';
import { extractBorderlessTables, extractRuledTables, isCellGrid, isDrawing, isFalseTable } from './tables.js';

describe('aligned text that is not a table', () => {
  it('a pattern of one or two marks is a drawing; a grid that names its columns or rows is a table', () => {
    // An instrument drawn in PSTricks (oscilloscope): its knobs labelled "b".
    expect(
      isDrawing([
        ['b', 'b b', 'b'],
        ['b b', 'b b', 'b b'],
        ['b', '', 'b'],
      ]),
    ).toBe(true);
    // A Karnaugh map's cells with no labels: bits, a dash for "don't care".
    expect(
      isDrawing([
        ['0', '1', '1', '0'],
        ['1', '0', '-', '1'],
      ]),
    ).toBe(true);
    // l3pdffield: one radio button's fields set twice, side by side.
    expect(
      isDrawing([
        ['annotation', 'annotation'],
        ['/Yes', '/Yes'],
        ['/Off', '/Off'],
      ]),
    ).toBe(true);
    // matrix-skeleton: two matrices side by side over their panel labels.
    expect(
      isDrawing([
        ['1 2', '1 2'],
        ['3 4', '3 4 5'],
        ['5 6', '5 6'],
        ['(a) Input matrix', '(b) Desired output and result with fit'],
      ]),
    ).toBe(true);
    // A conference paper's authors side by side: names, affiliations, e-mail addresses.
    expect(
      isDrawing([
        ['Ada Lovelace', 'Alan Turing', 'Grace Hopper'],
        ['Analytical Society', 'University of Manchester', 'Yale University'],
        ['ada@example.org', 'alan@cs.example.ac.uk', 'grace@example.edu'],
      ]),
    ).toBe(true);
    // A list of people with their addresses down a column is a table.
    expect(
      isDrawing([
        ['Name', 'Role', 'E-mail'],
        ['Ada Lovelace', 'maintainer', 'ada@example.org'],
        ['Alan Turing', 'reviewer', 'alan@example.org'],
      ]),
    ).toBe(false);
    // A truth table names its columns.
    expect(
      isDrawing([
        ['A', 'B', 'A and B'],
        ['0', '1', '0'],
        ['1', '1', '1'],
      ]),
    ).toBe(false);
  });

  it('an index, and a contents entry whose lines were merged into one cell, are not tables', () => {
    // esk's index: macro names, each with the pages that use it; a letter heading between them.
    expect(
      isFalseTable([
        ['\\eskwritetoken', '85, 204'],
        ['F', ''],
        ['\\filemaintainer', '66, 70'],
      ]),
    ).toBe(true);
    // spath3's contents: a chapter's section lines wrapped into one cell keep their leaders.
    expect(
      isFalseTable([
        ['1', 'Introduction', '1'],
        [
          '2',
          'TikZ Keys 2.1 Path Names . . . . . . . 2 2.2 Saving Soft Paths . . . . . . 3 2.3 Routines . . . . 4',
          '',
        ],
        ['3', 'Examples', '12'],
        ['1', 'Introduction', ''],
      ]),
    ).toBe(true);
    // Keys with a number each are a table: no entry lists pages.
    expect(
      isFalseTable([
        ['Setting', 'Default'],
        ['width', '30'],
        ['height', '12'],
        ['depth', '4'],
      ]),
    ).toBe(false);
  });

  it('narrow columns of running text side by side are not a table; a table of lowercase names is', () => {
    // ragged2e: one quotation set twice, \raggedright beside \RaggedRight.
    expect(
      isFalseTable([
        ['“The LaTeX document', '“The LaTeX document preparation'],
        ['preparation', 'system is a special'],
        ['system is a special', 'version of Donald'],
        ['version of Donald', 'Knuth’s TeX'],
        ['Knuth’s TeX', 'program. TeX is'],
        ['program. TeX is a', 'a sophisticated'],
        ['sophisticated', 'program designed'],
      ]),
    ).toBe(true);
    expect(
      isFalseTable([
        ['Key', 'Type', 'Default'],
        ['pulleyGrid', 'boolean', 'true'],
        ['width', 'dimension', 'none'],
        ['height', 'dimension', 'none'],
        ['style', 'ordinary', 'solid'],
      ]),
    ).toBe(false);
    // oup-authoring-template: a sample table, in lowercase, two words to a cell.
    expect(
      isFalseTable([
        ['column 1', 'column 2', 'column 3', 'column 4'],
        ['row 1', 'data 1', 'data 2', 'data 3'],
        ['row 2', 'data 4', 'data 5', 'data 6'],
        ['row 3', 'data 7', 'data 8', 'data 9'],
      ]),
    ).toBe(false);
    expect(
      isFalseTable([
        ['command', 'function'],
        ['\\citeform', 'reformats each number'],
        ['\\citepunct', 'printed between numbers'],
        ['\\citeleft', 'left delimiter of list'],
        ['\\citeright', 'right delimiter of list'],
      ]),
    ).toBe(false);
  });

  it('line numbers counting the rows, and notes with their page, are no column of values', () => {
    // eledpar: a parallel text's right page, its line numbers in the margin.
    expect(
      isCellGrid([
        ['only the blank spaces at ends of lines, but not the forgotten.', '4R'],
        ['1.1 Right section', '5R'],
        ['1.1.1 Right subsection', '6R'],
        ['Right subsubsection', '7R'],
      ]),
    ).toBe(false);
    // ltxdoc's change history: what changed, and the page it is on.
    expect(
      isCellGrid([
        ['\\psfrag commands.', '10'],
        ['General: delay option removed. Keep it simple, stupid!', '4'],
        ['Removed \\ifdefined to avoid e-TeX.', '8'],
        ['Removed mucking about with image extensions.', '8'],
      ]),
    ).toBe(false);
    // Values in a column are values, and years with values beside them still make a table.
    expect(
      isCellGrid([
        ['Windkraft', '12', '4'],
        ['Biogas', '7', '9'],
        ['Wasserkraft', '3', '2'],
      ]),
    ).toBe(true);
    expect(
      isCellGrid([
        ['2021', 'North', '1,200'],
        ['2022', 'North', '1,350'],
        ['2023', 'North', '1,410'],
      ]),
    ).toBe(true);
  });

  it('labels set over some words of a line, and labels waiting for values, name no columns', () => {
    // tikz-dependency: arcs' labels over a sentence and its part-of-speech tags.
    expect(
      isCellGrid([
        ['poss', '', 'advmod', 'xcomp', 'dobj'],
        ['My', 'dog', 'also likes', 'eating', 'sausage'],
        ['PRP$', 'NN', 'RB VBZ', 'VBG', 'NN'],
      ]),
    ).toBe(false);
    // The same with the arcs' labels over its last words only, and a remark ending in "!" over them.
    expect(
      isCellGrid([
        ['', '', '', 'likes', 'eating'],
        ['My', 'dog', 'also', 'likes', 'eating'],
        ['PRP$', 'NN', 'RB', 'VBZ', 'VBG'],
      ]),
    ).toBe(false);
    expect(
      isCellGrid([
        ['', 'labels!', 'nsubj', 'root', 'edge corners!'],
        ['poss', '', 'advmod', '', 'xcomp dobj'],
        ['PRP$', 'NN', 'RB', 'VBZ', 'VBG NN'],
        ['My', 'dog', 'also', 'likes', 'eating sausage'],
      ]),
    ).toBe(false);
    // An oscilloscope's panel: labels ending in a colon over their settings.
    expect(
      isCellGrid([
        ['timeDiv :', 'Channel A :', 'Channel B : XY'],
        ['5ms/div', '1 V/div', '1 V/div OFF'],
        ['mul:', 'OffsetA', 'OffsetB OffsetC'],
        ['ON', '0', '0 0'],
      ]),
    ).toBe(false);
    // allrunes: a name spanning the last two columns (the command, then the character that also types it).
    expect(
      isCellGrid([
        ['Separator', 'LaTeX', ''],
        ['.', '\\dot', 'or .'],
        [':', '\\doubledot', 'or :'],
        [';', '\\tripledot', ''],
      ]),
    ).toBe(true);
    // nath's guide: a name spanning a command and its glyph, over rows enough to show the columns.
    expect(
      isCellGrid([
        ['Left delimiters', '', 'Right delimiters', ''],
        ['[, \\lbrack', '[', '], \\rbrack', ']'],
        ['\\lfloor', '', '\\rfloor', ''],
        ['\\lceil', '', '\\rceil', ''],
      ]),
    ).toBe(true);
    // A stub column with no name, under a header naming every other column, is a table.
    expect(
      isCellGrid([
        ['', 'Type', 'Default'],
        ['pulleyGrid', 'boolean', 'true'],
        ['N', 'ordinary', '[none]'],
      ]),
    ).toBe(true);
  });

  it('a rule under the running head is no rule of the narrower table below it', () => {
    // toptesi: a head rule across the text, then a booktabs table (top, middle, bottom rules) 180 pt below.
    const rules = [
      { x0: 67, y0: 89, x1: 488, y1: 89 },
      ...[266, 297, 350].map((y) => ({ x0: 211, y0: y, x1: 345, y1: y })),
    ];
    const prose = [run('La densità del mercurio varia con la temperatura come', 67, 200)];
    const cells = [
      [run('Temperatura', 217, 280), run('Densità', 296, 280)],
      [run('0', 254, 306), run('13,8', 308, 306)],
      [run('10', 248, 320), run('13,6', 308, 320)],
      [run('50', 248, 333), run('13,5', 308, 333)],
    ].flat();
    const { tables, rest } = extractRuledTables([...prose, ...cells], rules);
    expect(tables.map((t) => t.rows)).toEqual([
      [
        ['Temperatura', 'Densità'],
        ['0', '13,8'],
        ['10', '13,6'],
        ['50', '13,5'],
      ],
    ]);
    expect(rest).toEqual(prose);
  });
});

describe('rows of a table ruled above, under its header and below', () => {
  // Proportional widths (a fixed pitch marks a listing): narrow digits, wide capitals.
  const run = (text: string, x0: number, baseline: number): TextRun => {
    const ems = [...text].reduce((n, ch) => n + (/\d/.test(ch) ? 0.5 : /[A-Z]/.test(ch) ? 0.7 : 0.45), 0);
    return { text, x0, x1: x0 + 10 * ems, baseline, size: 10, bold: false };
  };
  it('a year heading over its halves and a unit over its teams keep their own rows', () => {
    // LibreOffice, booktabs-style borders: "2024" spans H1 and H2, "Operations" spans two teams' rows.
    const rules = [150, 180, 230].map((y) => ({ x0: 56, y0: y, x1: 420, y1: y }));
    const at = [60, 150, 240, 290, 340];
    const line = (cells: string[], baseline: number) =>
      cells.flatMap((text, c) => (text ? [run(text, at[c]!, baseline)] : []));
    const runs = [
      ...line(['Unit', 'Team', '2024', '', 'Total'], 162),
      ...line(['', '', 'H1', 'H2', ''], 175),
      ...line(['Operations', 'Admin', '267', '253', '520'], 193),
      ...line(['', 'Data', '31', '86', '117'], 206),
      ...line(['Support', 'Quality', '125', '298', '423'], 219),
    ];
    const { tables } = extractRuledTables(runs, rules);
    expect(tables.map((t) => t.rows)).toEqual([
      [
        ['Unit', 'Team', '2024', '', 'Total'],
        ['', '', 'H1', 'H2', ''],
        ['Operations', 'Admin', '267', '253', '520'],
        ['', 'Data', '31', '86', '117'],
        ['Support', 'Quality', '125', '298', '423'],
      ],
    ]);
  });

  it('the rest of a wrapped cell still joins its row', () => {
    const rules = [150, 168, 220].map((y) => ({ x0: 56, y0: y, x1: 420, y1: y }));
    const runs = [
      run('Option', 60, 162),
      run('Type', 150, 162),
      run('Description', 240, 162),
      run('timeout', 60, 181),
      run('integer', 150, 181),
      run('Seconds to wait for a reply before', 240, 181),
      run('the request is abandoned', 240, 193),
      run('retries', 60, 206),
      run('integer', 150, 206),
      run('How many times it is tried', 240, 206),
    ];
    const { tables } = extractRuledTables(runs, rules);
    expect(tables.map((t) => t.rows)).toEqual([
      [
        ['Option', 'Type', 'Description'],
        ['timeout', 'integer', 'Seconds to wait for a reply before the request is abandoned'],
        ['retries', 'integer', 'How many times it is tried'],
      ],
    ]);
  });
});

describe('merged cells of a LaTeX table (multirow labels set centred, multicolumn headings over their columns)', () => {
  // Each cell as pdfTeX set it (x from, x to, baseline), from the hard-layout corpus' tuning documents.
  const cell = (text: string, x0: number, x1: number, baseline: number): TextRun => ({
    text,
    x0,
    x1,
    baseline,
    size: 10,
    bold: false,
  });

  it('booktabs: headings over sub-columns, a cmidrule under them, stage labels centred on their rows', () => {
    // latex-merged-e: "Sampling" over three columns, "Analysis" over "Lab" and "Weeks" (touching "Weeks"),
    // "Stage" and "Site" centred on both header rows, "Main round" on the middle of its three rows and
    // "Follow-up" between its two.
    const rules = [
      { x0: 125, y0: 256.8, x1: 470, y1: 256.8 },
      { x0: 257, y0: 273.8, x1: 377, y1: 273.8 },
      { x0: 387, y0: 273.8, x1: 465, y1: 273.8 },
      { x0: 125, y0: 290.6, x1: 470, y1: 290.6 },
      { x0: 125, y0: 366, x1: 470, y1: 366 },
    ];
    const body = (site: string, at: number, values: string[], baseline: number) => [
      cell(site, at, 246, baseline),
      ...values.map((value, c) => cell(value, [282, 329, 366, 395, 459][c]!, [287, 339, 376, 421, 464][c]!, baseline)),
    ];
    const runs = [
      cell('Sampling', 294, 340, 268.3),
      cell('Analysis', 405, 447, 268.3),
      cell('Stage', 131, 158, 274.3),
      cell('Site', 227, 246, 274.3),
      cell('Visits', 258, 287, 285.1),
      cell('Samples', 299, 339, 285.1),
      cell('Days', 351, 376, 285.1),
      cell('Lab', 402, 421, 285.1),
      cell('Weeks', 433, 464, 285.1),
      ...body('Valemount', 199, ['7', '19', '10', 'North', '3'], 302),
      cell('Main round', 131, 182, 314),
      ...body('Elm Ridge', 200, ['8', '10', '28', 'North', '4'], 314),
      ...body('Kingsmere', 200, ['6', '53', '19', 'North', '6'], 326),
      ...body('Northgate', 202, ['7', '94', '29', 'North', '1'], 337.9),
      cell('Follow-up', 131, 173, 343.9),
      ...body('Oakham', 209, ['6', '21', '13', 'North', '4'], 349.9),
    ];
    const { tables } = extractRuledTables(runs, rules);
    expect(tables.map((t) => t.rows)).toEqual([
      [
        ['Stage', 'Site', 'Sampling', '', '', 'Analysis', ''],
        ['', '', 'Visits', 'Samples', 'Days', 'Lab', 'Weeks'],
        ['Main round', 'Valemount', '7', '19', '10', 'North', '3'],
        ['', 'Elm Ridge', '8', '10', '28', 'North', '4'],
        ['', 'Kingsmere', '6', '53', '19', 'North', '6'],
        ['Follow-up', 'Northgate', '7', '94', '29', 'North', '1'],
        ['', 'Oakham', '6', '21', '13', 'North', '4'],
      ],
    ]);
  });

  it('no rules at all: a label centred between the header rows and the seasons over their measures', () => {
    // latex-merged-d: "Method" spans both header rows, "Spring" and "Autumn" two columns each.
    const runs = [
      cell('Spring', 271, 304, 588.4),
      cell('Autumn', 340, 381, 588.4),
      cell('Method', 205, 244, 594.4),
      ...[
        ['Bias', 'Error', 'Bias', 'Error'],
        ['Adjusted', '2.82', '0.67', '4.06', '0.68'],
        ['Baseline', '3.22', '1.36', '-1.28', '0.40'],
        ['Filtered', '-0.82', '2.61', '3.33', '5.46'],
      ].flatMap((cells, r) => {
        const baseline = 600.4 + 11.95 * r;
        const values = cells
          .slice(-4)
          .map((text, c) => cell(text, [257, 291, 330, 363][c]!, [279, 318, 351, 391][c]!, baseline));
        return cells.length === 5 ? [cell(cells[0]!, 205, 244, baseline), ...values] : values;
      }),
    ];
    const { tables } = extractBorderlessTables(buildLines(runs));
    expect(tables.map((t) => t.rows)).toEqual([
      [
        ['Method', 'Spring', '', 'Autumn', ''],
        ['', 'Bias', 'Error', 'Bias', 'Error'],
        ['Adjusted', '2.82', '0.67', '4.06', '0.68'],
        ['Baseline', '3.22', '1.36', '-1.28', '0.40'],
        ['Filtered', '-0.82', '2.61', '3.33', '5.46'],
      ],
    ]);
  });

  it('a line between two rows of a chart, in another type, is no label of theirs', () => {
    // karnaugh-map: a code listing at 9 pt runs beside a Karnaugh map set at 4.5 pt, one of its lines falling
    // midway between two of the map's rows.
    const small = (text: string, x0: number, baseline: number): TextRun => ({
      text,
      x0,
      x1: x0 + 2.5 * text.length,
      baseline,
      size: 4.5,
      bold: false,
    });
    const row = (cells: string[], baseline: number) => cells.map((text, c) => small(text, 348 + 15 * c, baseline));
    const runs = [
      ...row(['00', '1', '1', '1', '1'], 244.4),
      { text: '\\indeterminants{15,45,47}', x0: 163, x1: 281, baseline: 250.2, size: 9, bold: false },
      ...row(['01', '0', '0', '0', '0'], 259.2),
    ];
    const lines = buildLines(runs);
    expect(extractBorderlessTables(lines).tables.flatMap((t) => t.rows.flat())).not.toContain(
      '\\indeterminants{15,45,47}',
    );
  });

  it("a rule over the notes further down the page is not one of the table's rules", () => {
    // office-footnotes-a: booktabs borders, then two lines of prose, then the short rule over the footnotes.
    const rules = [439.6, 456.5, 500].map((y) => ({ x0: 57, y0: y, x1: 539, y1: y }));
    rules.push({ x0: 57, y0: 742, x1: 177, y1: 742 });
    // Proportional widths (a fixed pitch marks a listing): small letters narrow, capitals wide.
    const proportional = (text: string) => [...text].reduce((n, ch) => n + (/[A-Z]/.test(ch) ? 7 : 4.5), 0);
    const row = (cells: string[], baseline: number) =>
      cells.map((text, c) =>
        cell(text, [59, 128, 198, 267][c]!, [59, 128, 198, 267][c]! + proportional(text), baseline),
      );
    const prose = [
      cell(
        'First year when the instruments were bought later years paid mainly for visits and two seasons',
        57,
        538,
        553.8,
      ),
      cell('compared the readings with the limits', 57, 229, 566.5),
    ];
    const runs = [
      ...row(['Option', 'Type', 'Default', 'Description'], 451.7),
      ...row(['retries', 'duration', 'none', 'How many times a failed transfer is attempted'], 468.3),
      ...row(['watch', 'path', 'none', 'Reload the settings when the file changes'], 484.3),
      ...prose,
    ];
    const { tables, rest } = extractRuledTables(runs, rules);
    expect(tables.map((t) => t.rows)).toEqual([
      [
        ['Option', 'Type', 'Default', 'Description'],
        ['retries', 'duration', 'none', 'How many times a failed transfer is attempted'],
        ['watch', 'path', 'none', 'Reload the settings when the file changes'],
      ],
    ]);
    expect(rest).toEqual(prose);
  });
});
