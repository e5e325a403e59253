/**
 * The layouts corpus: the pages real documents have and a single-column corpus does not. Two
 * columns (balanced, bands split by wide headings and tables), tables continued across pages,
 * merged cells (hand-laid, and HTML colspan/rowspan through LibreOffice), numbered lists that
 * start at 7 or resume after a paragraph, nested lists, footnotes, and scans (no text layer).
 */
import { heading, list, TextSource } from '../corpus/documents.js';
import type { Block, CellSpan, ListItem } from '../corpus/model.js';
import type { FlowLayout } from './compose.js';

export type LayoutRoute =
  | { kind: 'flow'; layout: FlowLayout }
  /** Laid out like 'flow', then rasterised at `dpi` into an image-only PDF. */
  | { kind: 'scan'; layout: FlowLayout; dpi: number }
  /** Our own HTML (colspan/rowspan kept) through LibreOffice Writer. */
  | { kind: 'html' };

export interface LayoutEntry {
  name: string;
  route: LayoutRoute;
  blocks: Block[];
}

const BASE: FlowLayout = {
  paper: 'a4',
  body: { font: 'Times-Roman', size: 10 },
  boldFont: 'Times-Bold',
  headings: [
    { font: 'Helvetica-Bold', size: 17 },
    { font: 'Helvetica-Bold', size: 12.5 },
    { font: 'Helvetica-Bold', size: 10.5 },
  ],
  columns: 2,
  gutter: 20,
  seed: 1,
};

const wide = <B extends Block>(block: B): B => ({ ...block, wide: true });
const table = (
  rows: string[][],
  rules: 'grid' | 'horizontal' | 'none',
  extra: Partial<Block & { kind: 'table' }> = {},
): Block => ({ kind: 'table', rows, rules, ...extra });

function nested(text: TextSource, shape: readonly number[]): ListItem[] {
  return shape.map((level) => ({ text: text.words(4 + ((level * 3 + text.words(1).length) % 5)), level }));
}

/** One page, title across both columns, two short columns: pinned exactly by a CI test. */
function twoColumnSmall(): LayoutEntry {
  const text = new TextSource(101);
  return {
    name: 'tc-small',
    route: { kind: 'flow', layout: BASE },
    blocks: [
      wide(heading(1, 'Field Notes on Storage')),
      text.paragraph(4),
      heading(2, 'Method'),
      text.paragraph(3),
      text.paragraph(4),
    ],
  };
}

function twoColumnBalanced(): LayoutEntry {
  const text = new TextSource(102);
  return {
    name: 'tc-balanced',
    route: {
      kind: 'flow',
      layout: { ...BASE, header: 'Journal of Examples | Volume 4', footer: 'Page {page} of {pages}' },
    },
    blocks: [
      wide(heading(1, 'Seasonal Variation in Warehouse Temperature Samples')),
      heading(2, 'Introduction'),
      text.paragraph(5),
      text.paragraph(4),
      heading(2, 'Procedure'),
      text.paragraph(6),
      list('•', text.items(3, 8)),
      text.paragraph(5),
      heading(2, 'Results'),
      text.paragraph(7),
      text.paragraph(5),
      heading(3, 'Winter Samples'),
      text.paragraph(6),
      text.paragraph(8),
      heading(2, 'Discussion'),
      text.paragraph(7),
      text.paragraph(6),
    ],
  };
}

function twoColumnBands(): LayoutEntry {
  const text = new TextSource(103);
  return {
    name: 'tc-bands',
    route: {
      kind: 'flow',
      layout: {
        ...BASE,
        paper: 'letter',
        body: { font: 'Helvetica', size: 9.5 },
        boldFont: 'Helvetica-Bold',
        footer: '- {page} -',
      },
    },
    blocks: [
      wide(heading(1, 'Committee Review of the Network Budget')),
      text.paragraph(5),
      text.paragraph(4),
      text.paragraph(5),
      wide(heading(2, 'Part One: Capacity and Storage')),
      text.paragraph(6),
      text.paragraph(5),
      heading(3, 'Shipment Schedule'),
      text.paragraph(4),
      wide(heading(2, 'Part Two: Partners and Contracts')),
      text.paragraph(5),
      list('1.', text.items(3, 9)),
      text.paragraph(6),
      wide(heading(2, 'Part Three: Timeline')),
      text.paragraph(7),
      text.paragraph(6),
      text.paragraph(5),
    ],
  };
}

function twoColumnWideTable(): LayoutEntry {
  const text = new TextSource(104);
  return {
    name: 'tc-wide-table',
    route: { kind: 'flow', layout: { ...BASE, header: 'Laboratory Bulletin', footer: 'Page {page} of {pages}' } },
    blocks: [
      wide(heading(1, 'Calibration of Field Instruments')),
      text.paragraph(5),
      text.paragraph(6),
      wide(
        table(
          [
            ['Instrument', 'Range', 'Error before', 'Error after', 'Status'],
            ['Thermometer T1', '-20 to 60', '0.8', '0.1', 'Calibrated'],
            ['Thermometer T2', '-20 to 60', '1.2', '0.2', 'Calibrated'],
            ['Hygrometer H1', '10 to 95', '4.0', '1.5', 'Replaced'],
            ['Scale S4', '0 to 500', '0.5', '0.5', 'Unchanged'],
          ],
          'grid',
        ),
      ),
      text.paragraph(6),
      heading(2, 'Observations'),
      text.paragraph(7),
      table(
        [
          ['Site', 'Samples', 'Mean'],
          ['North', '14', '21.5'],
          ['South', '11', '19.0'],
          ['East', '9', '24.8'],
        ],
        'horizontal',
      ),
      text.paragraph(5),
      text.paragraph(6),
    ],
  };
}

function twoColumnLong(): LayoutEntry {
  const text = new TextSource(105);
  return {
    name: 'tc-long',
    route: {
      kind: 'flow',
      layout: { ...BASE, gutter: 24, header: 'Operations | Yearly Summary', footer: 'Page {page} of {pages}' },
    },
    blocks: [
      wide(heading(1, 'Annual Operations Review')),
      wide(text.paragraph(3)),
      heading(2, 'Network'),
      text.paragraph(8),
      text.paragraph(6),
      text.paragraph(7),
      heading(2, 'Storage'),
      text.paragraph(9),
      list('–', text.items(4, 10)),
      text.paragraph(7),
      heading(2, 'Migration'),
      text.paragraph(8),
      text.paragraph(9),
      text.paragraph(6),
      heading(2, 'Monitoring'),
      text.paragraph(8),
      text.paragraph(7),
      heading(3, 'Alerts'),
      text.paragraph(6),
      text.paragraph(8),
      heading(2, 'Outlook'),
      text.paragraph(9),
      text.paragraph(8),
      text.paragraph(7),
    ],
  };
}

const LEDGER_HEADER = ['Date', 'Reference', 'Account', 'Amount'];

function ledgerRows(count: number, seed: number): string[][] {
  const text = new TextSource(seed);
  return Array.from({ length: count }, (_, i) => [
    `2024-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + ((i * 7) % 28)).padStart(2, '0')}`,
    `INV-${1000 + i * 13}`,
    text.title(2),
    `${(120 + ((i * 379) % 9000)).toLocaleString('en-US')}.00`,
  ]);
}

/** A ruled table too long for one page, its header repeated on the next. */
function continuedTable(): LayoutEntry {
  const text = new TextSource(106);
  return {
    name: 'table-continued',
    route: {
      kind: 'flow',
      layout: { ...BASE, columns: 1, footer: 'Page {page} of {pages}', header: 'Finance Office | Internal' },
    },
    blocks: [
      heading(1, 'Ledger Extract'),
      text.paragraph(5),
      text.paragraph(6),
      table([LEDGER_HEADER, ...ledgerRows(38, 1)], 'grid', { repeatHeader: true }),
      text.paragraph(4),
    ],
  };
}

/** A borderless table continuing on the next page with the same column grid and no header. */
function continuedPlainTable(): LayoutEntry {
  const text = new TextSource(107);
  return {
    name: 'table-continued-plain',
    route: {
      kind: 'flow',
      layout: {
        ...BASE,
        columns: 1,
        paper: 'letter',
        body: { font: 'Helvetica', size: 10 },
        boldFont: 'Helvetica-Bold',
        footer: '{page}',
      },
    },
    blocks: [
      heading(1, 'Shipment Register'),
      text.paragraph(8),
      text.paragraph(7),
      text.paragraph(6),
      table(
        [
          ['Shipment', 'Warehouse', 'Units', 'Carrier'],
          ...ledgerRows(34, 2).map((row, i) => [
            `SH-${2000 + i}`,
            `Warehouse ${1 + (i % 5)}`,
            String(10 + ((i * 37) % 400)),
            row[2]!,
          ]),
        ],
        'none',
      ),
      text.paragraph(3),
    ],
  };
}

const SALES_HEADER: { rows: string[][]; spans: CellSpan[] } = {
  rows: [
    ['Region', 'Sales', '', 'Returns', ''],
    ['', 'Q1', 'Q2', 'Q1', 'Q2'],
    ['North', '1,200', '1,350', '40', '35'],
    ['South', '980', '1,020', '22', '30'],
    ['East', '760', '800', '15', '12'],
  ],
  spans: [
    { row: 0, col: 0, rows: 2, cols: 1 },
    { row: 0, col: 1, rows: 1, cols: 2 },
    { row: 0, col: 3, rows: 1, cols: 2 },
  ],
};

const SCHEDULE: { rows: string[][]; spans: CellSpan[] } = {
  rows: [
    ['Week', 'Team', 'Task', 'Hours'],
    ['1', 'Network', 'Survey', '12'],
    ['', 'Storage', 'Survey', '8'],
    ['2', 'Network', 'Pilot rollout across both sites', ''],
    ['3', 'Operations', 'Review', '6'],
  ],
  spans: [
    { row: 1, col: 0, rows: 2, cols: 1 },
    { row: 3, col: 2, rows: 1, cols: 2 },
  ],
};

/** Hand-laid ruled grids with merged cells: header spans, a row span in the body, a wide body cell. */
function mergedHand(): LayoutEntry {
  const text = new TextSource(108);
  return {
    name: 'merged-hand',
    route: {
      kind: 'flow',
      layout: { ...BASE, columns: 1, body: { font: 'Helvetica', size: 10 }, boldFont: 'Helvetica-Bold' },
    },
    blocks: [
      heading(1, 'Merged Cells'),
      text.paragraph(3),
      table(SALES_HEADER.rows, 'grid', { spans: SALES_HEADER.spans, headerRows: 2 }),
      text.paragraph(2),
      heading(2, 'Schedule'),
      table(SCHEDULE.rows, 'grid', { spans: SCHEDULE.spans }),
      text.paragraph(3),
    ],
  };
}

/** The same kinds of spans written as HTML colspan/rowspan and laid out by LibreOffice. */
function mergedHtml(): LayoutEntry {
  const text = new TextSource(109);
  return {
    name: 'merged-html',
    route: { kind: 'html' },
    blocks: [
      heading(1, 'Regional Returns'),
      text.paragraph(4),
      table(SALES_HEADER.rows, 'grid', { spans: SALES_HEADER.spans, headerRows: 2 }),
      heading(2, 'Rollout Plan'),
      text.paragraph(3),
      table(SCHEDULE.rows, 'grid', { spans: SCHEDULE.spans }),
      list('1.', text.items(3, 8)),
    ],
  };
}

function numberedLists(): LayoutEntry {
  const text = new TextSource(110);
  return {
    name: 'lists-numbers',
    route: {
      kind: 'flow',
      layout: { ...BASE, columns: 1, body: { font: 'Times-Roman', size: 11 }, footer: 'Page {page} of {pages}' },
    },
    blocks: [
      heading(1, 'Procedure Checklist'),
      text.paragraph(3),
      { kind: 'list', marker: '1.', items: text.items(3, 9), start: 7 },
      text.paragraph(2),
      { kind: 'list', marker: '1.', items: text.items(3, 7), start: 10 },
      heading(2, 'Nested Steps'),
      { kind: 'list', marker: '1.', items: nested(text, [0, 1, 1, 0, 1, 0]) },
      text.paragraph(2),
      list('•', nested(text, [0, 1, 2, 1, 0, 1, 0])),
      heading(2, 'Resumed'),
      { kind: 'list', marker: '1)', items: text.items(2, 8) },
      text.paragraph(2),
      { kind: 'list', marker: '1)', items: text.items(3, 8), start: 3 },
      text.paragraph(3),
    ],
  };
}

/**
 * A numbered item whose wrapped lines run over the page break (its first lines on page 1, the rest on page 2): pinned
 * exactly by a CI test.
 */
function listAcrossPages(): LayoutEntry {
  const text = new TextSource(114);
  const items = text.items(12, 34);
  return {
    name: 'list-page-break',
    route: {
      kind: 'flow',
      layout: { ...BASE, columns: 1, body: { font: 'Times-Roman', size: 11 }, footer: 'Page {page} of {pages}' },
    },
    blocks: [
      heading(1, 'Site Handover Steps'),
      text.paragraph(4),
      text.paragraph(6),
      { kind: 'list', marker: '1.', items },
      text.paragraph(3),
      heading(2, 'Checks'),
      list('•', text.items(3, 9)),
      text.paragraph(2),
    ],
  };
}

function footnotes(): LayoutEntry {
  const text = new TextSource(111);
  const sentence = (mark: number) => `${text.sentence().replace(/\.$/, '')} report[^${mark}] ${text.words(9)}.`;
  return {
    name: 'footnotes',
    route: {
      kind: 'flow',
      layout: { ...BASE, columns: 1, header: 'Working Paper 12', footer: 'Page {page} of {pages}' },
    },
    blocks: [
      heading(1, 'Notes on Inventory Measurement'),
      { kind: 'paragraph', text: `${text.sentence()} ${sentence(1)} ${text.sentence()}` },
      text.paragraph(5),
      { kind: 'paragraph', text: `${text.sentence()} ${sentence(2)}` },
      text.paragraph(4),
      { kind: 'footnote', mark: 1, text: `${text.sentence()}` },
      { kind: 'footnote', mark: 2, text: `${text.sentence()} ${text.sentence()}` },
      { kind: 'break' },
      heading(2, 'Calibration Remarks'),
      text.paragraph(6),
      { kind: 'paragraph', text: `${sentence(3)} ${text.sentence()}` },
      text.paragraph(3),
      { kind: 'footnote', mark: 3, text: text.sentence() },
    ],
  };
}

const SCAN_LAYOUT: FlowLayout = {
  ...BASE,
  columns: 1,
  body: { font: 'Helvetica', size: 11 },
  boldFont: 'Helvetica-Bold',
  headings: [
    { font: 'Helvetica-Bold', size: 18 },
    { font: 'Helvetica-Bold', size: 14 },
    { font: 'Helvetica-Bold', size: 12 },
  ],
};

/** A one-page scan: pinned exactly by a CI test. */
function scanMemo(): LayoutEntry {
  const text = new TextSource(112);
  return {
    name: 'scan-memo',
    route: { kind: 'scan', layout: SCAN_LAYOUT, dpi: 300 },
    blocks: [
      heading(1, 'Storage Migration Memo'),
      text.paragraph(3),
      heading(2, 'Actions'),
      list('•', text.items(3, 6)),
      text.paragraph(2),
    ],
  };
}

function scanReport(): LayoutEntry {
  const text = new TextSource(113);
  return {
    name: 'scan-report',
    route: { kind: 'scan', layout: SCAN_LAYOUT, dpi: 300 },
    blocks: [
      heading(1, 'Warehouse Inspection Report'),
      text.paragraph(5),
      heading(2, 'Stock Levels'),
      table(
        [
          ['Item', 'Quantity', 'Location'],
          ['Widget A', '120', 'Warehouse 3'],
          ['Widget B', '45', 'Warehouse 1'],
          ['Sensor D', '310', 'Warehouse 2'],
        ],
        'none',
      ),
      text.paragraph(4),
      heading(2, 'Findings'),
      text.paragraph(6),
      list('1.', text.items(3, 8)),
      text.paragraph(5),
      text.paragraph(6),
    ],
  };
}

export const LAYOUTS: readonly LayoutEntry[] = [
  twoColumnSmall(),
  twoColumnBalanced(),
  twoColumnBands(),
  twoColumnWideTable(),
  twoColumnLong(),
  continuedTable(),
  continuedPlainTable(),
  mergedHand(),
  mergedHtml(),
  numberedLists(),
  listAcrossPages(),
  footnotes(),
  scanMemo(),
  scanReport(),
];
