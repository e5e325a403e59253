/** A table that a page break cuts is one table: its rows, or its last row's rest, at the top of the next page. */
import { describe, expect, it } from 'vitest';
import { analyseStyle, documentBlocks, type FlowItem } from './blocks.js';
import { buildLines } from './lines.js';
import { continuesTable, extractBorderlessTables } from './tables.js';
import type { Block, TextRun } from './types.js';

/** An advance per character as a proportional font sets it (the same advance for all would read as code). */
const advance = (c: string) =>
  /[ilt.,:;'() ]/.test(c) ? 0.28 : /[mwMW]/.test(c) ? 0.8 : /\p{Lu}/u.test(c) ? 0.65 : 0.5;

const run = (text: string, x0: number, baseline: number, size: number): TextRun => ({
  text,
  x0,
  x1: x0 + size * [...text].reduce((w, c) => w + advance(c), 0),
  baseline,
  size,
  bold: false,
});

/** A page's lines, each as [baseline, ...runs as [x, text]], in the size given (10 unless told). */
const lines = (rows: [number, ...[number, string][]][], size = 10) =>
  buildLines(rows.flatMap(([baseline, ...runs]) => runs.map(([x, text]) => run(text, x, baseline, size))));

/** Each page's lines read as the engine reads a flow: borderless tables out, the rest as lines, top to bottom. */
function blocks(pages: TextRun[][] | ReturnType<typeof lines>[]): Block[] {
  const flows = pages.map((pageLines, i) => {
    const { tables, rest } = extractBorderlessTables(pageLines as ReturnType<typeof lines>);
    const items: ({ top: number } & FlowItem)[] = [
      ...rest.map((line) => ({ top: line.baseline - line.size, line })),
      ...tables.map((table) => ({ top: table.top, table })),
    ];
    items.sort((a, b) => a.top - b.top);
    return { page: i + 1, items: items.map(({ top: _, ...item }) => item as FlowItem) };
  });
  const style = analyseStyle(flows.map((f) => f.items.flatMap((item) => ('line' in item ? [item.line] : []))));
  return documentBlocks(flows, style);
}

const tables = (all: Block[]) => all.flatMap((b) => (b.kind === 'table' ? [b.rows] : []));
const paragraphs = (all: Block[]) => all.flatMap((b) => (b.kind === 'paragraph' ? [b.parts.map((p) => p.text)] : []));

/** A keyword table ending page 1: name at x 60, description at x 160. */
const pageOne = lines([
  [700, [60, 'Keyword'], [160, 'Description']],
  [714, [60, 'bbox'], [160, 'Include the bounding box']],
  [728, [60, 'crs'], [160, 'Include the reference system']],
  [742, [60, 'version'], [160, 'The GML version to use: 2']],
]);

const PROSE = 'Oracle support was added in this release of the library, and so was support for all of its';

describe('a table continued on the next page by lines in its columns', () => {
  it('reads the table ending page 1 as a table (the fixture)', () => {
    expect(tables(blocks([pageOne]))).toEqual([
      [
        ['Keyword', 'Description'],
        ['bbox', 'Include the bounding box'],
        ['crs', 'Include the reference system'],
        ['version', 'The GML version to use: 2'],
      ],
    ]);
  });

  it('finishes the last row with the rest of a cell the page break cut', () => {
    const pageTwo = lines([
      [60, [160, '(default) or 3.']],
      [90, [60, PROSE]],
      [104, [60, 'spatial backends.']],
    ]);
    const out = blocks([pageOne, pageTwo]);
    expect(tables(out)).toEqual([
      [
        ['Keyword', 'Description'],
        ['bbox', 'Include the bounding box'],
        ['crs', 'Include the reference system'],
        ['version', 'The GML version to use: 2 (default) or 3.'],
      ],
    ]);
    expect(paragraphs(out)).toEqual([[`${PROSE} spatial backends.`]]);
  });

  it('takes a row alone at the top of the next page (too little for a table of its own) as its next row', () => {
    const pageTwo = lines([
      [60, [60, 'precision'], [160, 'Number of significant digits']],
      [74, [160, 'in the coordinates']],
      [110, [60, PROSE]],
    ]);
    const [table] = tables(blocks([pageOne, pageTwo]));
    expect(table).toHaveLength(5);
    expect(table![4]).toEqual(['precision', 'Number of significant digits in the coordinates']);
  });

  it('drops the header row set again on the next page', () => {
    const pageTwo = lines([
      [60, [60, 'Keyword'], [160, 'Description']],
      [74, [60, 'precision'], [160, 'Number of significant digits']],
      [110, [60, PROSE]],
    ]);
    const [table] = tables(blocks([pageOne, pageTwo]));
    expect(table!.slice(3)).toEqual([
      ['version', 'The GML version to use: 2'],
      ['precision', 'Number of significant digits'],
    ]);
  });
  it('reads a row whose first cell is set centred beside its wrapped cell (an office export) as one row', () => {
    const pageTwo = lines([
      [60, [160, 'Number of significant']],
      [72, [60, 'precision'], [160, 'digits in the']],
      [84, [160, 'coordinates']],
      [120, [60, PROSE]],
    ]);
    const [table] = tables(blocks([pageOne, pageTwo]));
    expect(table!.slice(3)).toEqual([
      ['version', 'The GML version to use: 2'],
      ['precision', 'Number of significant digits in the coordinates'],
    ]);
  });

  it('tells the rest of the last row from the next row set at its top (its first cell not centred in them)', () => {
    const pageTwo = lines([
      [60, [160, '(default) or 3,']],
      [72, [160, 'as the server has it']],
      [84, [60, 'precision'], [160, 'Number of significant digits']],
      [120, [60, PROSE]],
    ]);
    const [table] = tables(blocks([pageOne, pageTwo]));
    expect(table!.slice(3)).toEqual([
      ['version', 'The GML version to use: 2 (default) or 3, as the server has it'],
      ['precision', 'Number of significant digits'],
    ]);
  });
});

describe('a table opening the next page', () => {
  const header = ['Code', 'Item', 'Count'];
  const columns = [60, 120, 300];
  const table = { rows: [header, ['A-117', 'springs size 3', '104'], ['A-118', 'packed in crates', '141']], columns };

  it('drops its header row when it is the header set again', () => {
    const next = { rows: [header, ['A-119', 'bolts size 5', '178']], columns: [61, 130, 290] };
    expect(continuesTable(table, next)).toEqual({ rows: [['A-119', 'bolts size 5', '178']] });
  });

  it("finishes the last row with what the header set again holds after its own words (the cut row's rest)", () => {
    const next = {
      rows: [
        ['Code', 'Item due for a recount', 'Count'],
        ['A-119', 'bolts size 5', '178'],
      ],
      columns,
    };
    expect(continuesTable(table, next)).toEqual({
      rows: [['A-119', 'bolts size 5', '178']],
      lastRow: ['', 'due for a recount', ''],
    });
  });

  it('joins a table on the same grid, and keeps one on another grid or with other columns apart', () => {
    const rows = [['A-119', 'bolts size 5', '178']];
    expect(continuesTable(table, { rows, columns: [61, 121, 299] })).toEqual({ rows });
    expect(continuesTable(table, { rows, columns: [60, 150, 300] })).toBeUndefined();
    expect(continuesTable(table, { rows: [['A-119', 'bolts']], columns: [60, 120] })).toBeUndefined();
  });
});

describe('what does not continue a table', () => {
  it('leaves prose opening the next page alone (its lines run across the columns)', () => {
    const pageTwo = lines([
      [60, [60, PROSE]],
      [74, [60, 'spatial backends.']],
    ]);
    const out = blocks([pageOne, pageTwo]);
    expect(tables(out)).toHaveLength(1);
    expect(tables(out)[0]).toHaveLength(4);
    expect(paragraphs(out)).toEqual([[`${PROSE} spatial backends.`]]);
  });

  it('leaves a paragraph whose first line fits in the first column (its next line follows at its spacing)', () => {
    const pageTwo = lines([
      [60, [60, 'Sample usage']],
      [74, [60, PROSE]],
    ]);
    const out = blocks([pageOne, pageTwo]);
    expect(tables(out)[0]).toHaveLength(4);
    expect(paragraphs(out).flat().join(' ')).toContain('Sample usage');
  });

  it('leaves lines in another size alone (a heading, a note)', () => {
    const pageTwo = [...lines([[60, [60, 'Arguments'], [160, 'Returns']]], 14), ...lines([[100, [60, PROSE]]])];
    const out = blocks([pageOne, pageTwo]);
    expect(tables(out)[0]).toHaveLength(4);
    expect(out.flatMap((b) => (b.kind === 'heading' ? [b.text] : []))).toEqual(['Arguments Returns']);
  });
});
