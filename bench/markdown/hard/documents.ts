/**
 * The hard-layout corpus from other producers: each document is a small model (paragraphs, headings, tables with
 * spans, footnotes) that `render.ts` writes as the source a producer reads (LaTeX for pdfTeX, ODF XML for
 * LibreOffice, HTML for a browser). The truth is the model's tables, the same values the source holds.
 *
 * Five hard layouts a producer: two columns, merged cells, a table continued across pages, footnotes, and a scan
 * (the producer's page rasterised into an image-only PDF). Two documents of each (seeds `a` and `b`); which of the
 * two is tuning and which held out is decided by sha256 of the name (`halfOf`), fixed before any result.
 */
import { createHash } from 'node:crypto';
import { Random } from '../../../test/testing/random.js';
import type { CellSpan } from '../corpus/model.js';

export type Producer = 'latex' | 'office' | 'browser';
export type Layout = 'two-column' | 'merged' | 'continued' | 'footnotes' | 'scan';
/**
 * How a table is drawn: every cell ruled; rules above, below and under the header only; stripes; a rule under the
 * header only (`plain`); no rule at all (`bare`).
 */
export type TableStyle = 'grid' | 'booktabs' | 'zebra' | 'plain' | 'bare';

export interface HardTable {
  kind: 'table';
  rows: string[][];
  spans: CellSpan[];
  headerRows: number;
  style: TableStyle;
  /** Columns whose text wraps (LaTeX p-columns, a width in HTML and ODF). */
  wrapColumns: number[];
  caption?: string;
  /** A note set right under the table ("Source: ..."): text, not a row. */
  note?: string;
  /** Across both columns of a two-column page. */
  wide?: boolean;
}

export type HardBlock =
  | { kind: 'heading'; text: string }
  | { kind: 'paragraph'; text: string; footnote?: string }
  | HardTable;

export interface HardDocument {
  name: string;
  producer: Producer;
  layout: Layout;
  title: string;
  twoColumn: boolean;
  /** A running head and a page foot on every page (LaTeX and LibreOffice; a browser prints its own). */
  running: boolean;
  blocks: HardBlock[];
}

export const PRODUCERS: readonly Producer[] = ['latex', 'office', 'browser'];
export const LAYOUTS: readonly Layout[] = ['two-column', 'merged', 'continued', 'footnotes', 'scan'];
const VARIANTS = ['a', 'b'] as const;

/**
 * Of the two documents `a` and `b` of a producer and layout, the one whose name hashes lower is the tuning one.
 * Documents added after the held-out half was first measured (`EXTRA`, variants `c` on) are all tuning: the
 * held-out half stays the 15 it was, and what it lacks in the tuning half is made up there, never by moving it.
 */
export function halfOf(name: string): 'tune' | 'heldout' {
  if (!/-[ab]$/.test(name)) return 'tune';
  const base = name.replace(/-[ab]$/, '');
  const [first, second] = VARIANTS.map((v) => createHash('sha256').update(`${base}-${v}`).digest('hex'));
  const mine = createHash('sha256').update(name).digest('hex');
  return mine === ([first!, second!].sort()[0] ?? '') ? 'tune' : 'heldout';
}

const WORDS = (
  'the survey measured water quality at each station over two seasons and compared the readings with the ' +
  'limits set by the regional authority while field teams recorded flow depth temperature and turbidity ' +
  'samples were stored cold and analysed within two days results below the detection limit are reported as ' +
  'half of that limit a second laboratory repeated one sample in ten to check the method the budget covers ' +
  'staff travel equipment and the analysis of every sample most costs fell in the first year when the ' +
  'instruments were bought later years paid mainly for visits and reports the committee reviewed the plan ' +
  'and asked for monthly updates on progress delays and any change to the schedule'
).split(' ');

const PLACES = [
  'Alder Creek',
  'Birch Hollow',
  'Cedar Falls',
  'Dunmore',
  'Elm Ridge',
  'Fairview',
  'Glen Arden',
  'Harbour Point',
  'Ivy Bridge',
  'Juniper Flats',
  'Kingsmere',
  'Larch Bay',
  'Millbrook',
  'Northgate',
  'Oakham',
  'Pinecrest',
  'Queensferry',
  'Redwater',
  'Stonebridge',
  'Thornbury',
  'Upton Marsh',
  'Valemount',
  'Westfield',
  'Yarrow Point',
];
const REGIONS = ['North', 'South', 'East', 'West', 'Central', 'Coastal'];
const STATUS = ['Compliant', 'Review', 'Exceeded', 'Pending'];
const TEAMS = ['Field', 'Laboratory', 'Data', 'Outreach', 'Logistics', 'Quality', 'Training', 'Admin'];
const UNITS = ['Operations', 'Research', 'Services', 'Support'];
const OPTIONS = [
  'timeout',
  'retries',
  'buffer-size',
  'log-level',
  'cache-dir',
  'max-workers',
  'bind-address',
  'compression',
  'tls-verify',
  'idle-limit',
  'batch-size',
  'locale',
  'proxy',
  'watch',
  'checksum',
  'spool-path',
];
const TYPES = ['integer', 'string', 'boolean', 'path', 'duration', 'list'];
const DESCRIPTIONS = [
  'Seconds to wait for a reply before the request is abandoned',
  'How many times a failed transfer is attempted again',
  'Size of the read buffer in kilobytes for each open file',
  'Lowest severity written to the log',
  'Directory where downloaded pieces are kept between runs',
  'Number of jobs that may run at the same time',
  'Address the service listens on for new connections',
  'Whether data is packed before it is sent over the network',
  'Reject servers whose certificate cannot be checked',
  'Minutes without activity after which a session is closed',
  'Records sent together in one write',
  'Language used for messages and dates',
  'Server that outgoing requests are sent through',
  'Reload the settings when the file changes',
  'Algorithm used to verify each stored object',
  'Folder for jobs waiting to be printed',
];

function sentence(random: Random, words: number): string {
  const start = random.int(0, WORDS.length - words - 1);
  const text = WORDS.slice(start, start + words).join(' ');
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

function paragraph(random: Random, sentences: number): string {
  return Array.from({ length: sentences }, () => sentence(random, random.int(9, 18))).join(' ');
}

const decimal = (random: Random, min: number, max: number, places: number) =>
  (min + random.next() * (max - min)).toFixed(places);

function pickDistinct<T>(random: Random, items: readonly T[], count: number): T[] {
  const pool = [...items];
  const out: T[] = [];
  while (out.length < count && pool.length) out.push(pool.splice(random.int(0, pool.length - 1), 1)[0]!);
  return out;
}

/** Station readings: a place, a region and figures. */
function stationTable(random: Random, rows: number, columns: 3 | 5): HardTable {
  const header = columns === 3 ? ['Station', 'Samples', 'Mean'] : ['Station', 'Region', 'Samples', 'Mean', 'Status'];
  const names = Array.from({ length: rows }, (_, i) =>
    i < PLACES.length ? PLACES[i]! : `${PLACES[i % PLACES.length]!} ${Math.floor(i / PLACES.length) + 1}`,
  );
  const order = pickDistinct(random, names, rows);
  const body = order.map((place) => {
    const samples = String(random.int(4, 96));
    const mean = decimal(random, 0.2, 48, 2);
    return columns === 3 ? [place, samples, mean] : [place, random.pick(REGIONS), samples, mean, random.pick(STATUS)];
  });
  return { kind: 'table', rows: [header, ...body], spans: [], headerRows: 1, style: 'grid', wrapColumns: [] };
}

/** Options with a description that wraps in its cell. */
function optionTable(random: Random, rows: number): HardTable {
  const picked = pickDistinct(
    random,
    OPTIONS.map((option, i) => ({ option, description: DESCRIPTIONS[i]! })),
    rows,
  );
  const body = picked.map(({ option, description }) => {
    const type = random.pick(TYPES);
    const value =
      type === 'integer' ? String(random.int(1, 500)) : type === 'boolean' ? random.pick(['true', 'false']) : 'none';
    return [option, type, value, description];
  });
  return {
    kind: 'table',
    rows: [['Option', 'Type', 'Default', 'Description'], ...body],
    spans: [],
    headerRows: 1,
    style: 'grid',
    wrapColumns: [3],
  };
}

/**
 * A budget with a two-row header (years spanning their quarters, the first and last columns spanning both header
 * rows) and units spanning the rows of their teams.
 */
function budgetTable(random: Random): HardTable {
  const years = random.chance(0.5) ? ['2024', '2025'] : ['2023', '2024', '2025'];
  const halves = ['H1', 'H2'];
  const header1 = ['Unit', 'Team', ...years.flatMap((y) => [y, '']), 'Total'];
  const header2 = ['', '', ...years.flatMap(() => halves), ''];
  const spans: CellSpan[] = [
    { row: 0, col: 0, rows: 2, cols: 1 },
    { row: 0, col: 1, rows: 2, cols: 1 },
    ...years.map((_, i) => ({ row: 0, col: 2 + 2 * i, rows: 1, cols: 2 })),
    { row: 0, col: 2 + 2 * years.length, rows: 2, cols: 1 },
  ];
  const rows = [header1, header2];
  const units = pickDistinct(random, UNITS, random.int(2, 3));
  const teams = pickDistinct(random, TEAMS, 8);
  for (const unit of units) {
    const count = random.int(2, 3);
    const first = rows.length;
    for (let i = 0; i < count; i++) {
      const values = years.flatMap(() => [random.int(12, 480), random.int(12, 480)]);
      const total = values.reduce((a, b) => a + b, 0);
      rows.push([i === 0 ? unit : '', teams.pop() ?? 'Other', ...values.map(String), String(total)]);
    }
    spans.push({ row: first, col: 0, rows: count, cols: 1 });
  }
  return { kind: 'table', rows, spans, headerRows: 2, style: 'grid', wrapColumns: [] };
}

/** Test results with a header spanning two measure columns. */
function resultsTable(random: Random): HardTable {
  const methods = pickDistinct(random, ['Baseline', 'Filtered', 'Weighted', 'Pooled', 'Adjusted', 'Robust'], 4);
  const rows = [
    ['Method', 'Spring', '', 'Autumn', ''],
    ['', 'Bias', 'Error', 'Bias', 'Error'],
    ...methods.map((m) => [m, ...Array.from({ length: 4 }, () => decimal(random, -2, 6, 2))]),
  ];
  return {
    kind: 'table',
    rows,
    spans: [
      { row: 0, col: 0, rows: 2, cols: 1 },
      { row: 0, col: 1, rows: 1, cols: 2 },
      { row: 0, col: 3, rows: 1, cols: 2 },
    ],
    headerRows: 2,
    style: 'grid',
    wrapColumns: [],
  };
}

/**
 * A field plan: stages spanning the rows of their steps, a header spanning three sampling columns and another two
 * analysis columns over a second header row.
 */
function planTable(random: Random): HardTable {
  const stages = pickDistinct(random, ['Survey', 'Pilot', 'Main round', 'Follow-up', 'Review'], random.int(2, 3));
  const steps = pickDistinct(random, PLACES, 9);
  const rows = [
    ['Stage', 'Site', 'Sampling', '', '', 'Analysis', ''],
    ['', '', 'Visits', 'Samples', 'Days', 'Lab', 'Weeks'],
  ];
  const spans: CellSpan[] = [
    { row: 0, col: 0, rows: 2, cols: 1 },
    { row: 0, col: 1, rows: 2, cols: 1 },
    { row: 0, col: 2, rows: 1, cols: 3 },
    { row: 0, col: 5, rows: 1, cols: 2 },
  ];
  for (const stage of stages) {
    const count = random.int(2, 3);
    const first = rows.length;
    for (let i = 0; i < count; i++) {
      rows.push([
        i === 0 ? stage : '',
        steps.pop() ?? 'Other',
        String(random.int(1, 12)),
        String(random.int(10, 240)),
        String(random.int(1, 30)),
        random.pick(['North', 'Central', 'Coastal']),
        String(random.int(1, 9)),
      ]);
    }
    spans.push({ row: first, col: 0, rows: count, cols: 1 });
  }
  return { kind: 'table', rows, spans, headerRows: 2, style: 'grid', wrapColumns: [] };
}

/**
 * Documents added after the held-out half was first measured, all tuning (`halfOf`): LaTeX merged-cell tables set
 * with booktabs rules and with no rules at all (multirow + multicolumn, two-level headers), the pairing of
 * producer and style the first 15 tuning documents lacked.
 */
const EXTRA: readonly { name: string; tables: ['budget' | 'plan', 'results' | 'plan']; styles: TableStyle[] }[] = [
  { name: 'latex-merged-c', tables: ['budget', 'results'], styles: ['booktabs', 'booktabs'] },
  { name: 'latex-merged-d', tables: ['budget', 'results'], styles: ['bare', 'bare'] },
  { name: 'latex-merged-e', tables: ['plan', 'results'], styles: ['booktabs', 'bare'] },
  { name: 'latex-merged-f', tables: ['budget', 'plan'], styles: ['bare', 'booktabs'] },
];

function buildExtra(extra: (typeof EXTRA)[number]): HardDocument {
  const random = new Random(Number.parseInt(createHash('sha256').update(extra.name).digest('hex').slice(0, 8), 16));
  const title = `${random.pick(['Annual', 'Interim', 'Field', 'Technical'])} Report on ${random.pick(PLACES)}`;
  const blocks: HardBlock[] = [];
  const prose = (n: number) => {
    for (let i = 0; i < n; i++) blocks.push({ kind: 'paragraph', text: paragraph(random, random.int(3, 6)) });
  };
  const make = (kind: 'budget' | 'plan' | 'results') =>
    kind === 'budget' ? budgetTable(random) : kind === 'plan' ? planTable(random) : resultsTable(random);
  blocks.push({ kind: 'heading', text: 'Budget' });
  prose(2);
  blocks.push(styled(make(extra.tables[0]), extra.styles[0]!, 'Spending'));
  prose(2);
  blocks.push({ kind: 'heading', text: 'Method comparison' });
  prose(1);
  blocks.push(styled(make(extra.tables[1]), extra.styles[1]!, 'Comparison'));
  prose(2);
  return { name: extra.name, producer: 'latex', layout: 'merged', title, twoColumn: false, running: true, blocks };
}

const STYLES: Record<Producer, readonly TableStyle[]> = {
  latex: ['booktabs', 'grid', 'plain'],
  office: ['grid', 'booktabs', 'zebra'],
  browser: ['zebra', 'grid', 'plain'],
};

function styled(table: HardTable, style: TableStyle, caption: string | undefined): HardTable {
  return { ...table, style, ...(caption ? { caption } : {}) };
}

function build(producer: Producer, layout: Layout, variant: 'a' | 'b'): HardDocument {
  const name = `${producer}-${layout}-${variant}`;
  const seed = Number.parseInt(createHash('sha256').update(name).digest('hex').slice(0, 8), 16);
  const random = new Random(seed);
  const styles = STYLES[producer];
  const style = (i: number) => styles[(i + (variant === 'a' ? 0 : 1)) % styles.length]!;
  const caption = (text: string) => (producer === 'latex' || random.chance(0.5) ? text : undefined);
  const title = `${random.pick(['Annual', 'Interim', 'Field', 'Technical'])} Report on ${random.pick(PLACES)}`;
  const blocks: HardBlock[] = [];
  const prose = (n: number) => {
    for (let i = 0; i < n; i++) blocks.push({ kind: 'paragraph', text: paragraph(random, random.int(3, 6)) });
  };
  switch (layout) {
    case 'two-column':
      blocks.push({ kind: 'heading', text: 'Introduction' });
      prose(3);
      blocks.push(styled(stationTable(random, random.int(5, 8), 3), style(0), caption('Samples by station')));
      prose(2);
      blocks.push({ kind: 'heading', text: 'Settings' });
      prose(1);
      blocks.push({
        ...styled(optionTable(random, random.int(4, 6)), style(1), caption('Instrument settings')),
        wide: true,
      });
      prose(4);
      break;
    case 'merged':
      blocks.push({ kind: 'heading', text: 'Budget' });
      prose(2);
      blocks.push(styled(budgetTable(random), style(0) === 'plain' ? 'booktabs' : style(0), caption('Spending')));
      prose(2);
      blocks.push({ kind: 'heading', text: 'Method comparison' });
      prose(1);
      blocks.push(styled(resultsTable(random), style(1) === 'plain' ? 'grid' : style(1), caption('Bias')));
      prose(2);
      break;
    case 'continued':
      blocks.push({ kind: 'heading', text: 'Station records' });
      prose(2);
      blocks.push(styled(stationTable(random, random.int(52, 70), 5), style(0), caption('All stations')));
      prose(2);
      break;
    case 'footnotes':
      blocks.push({ kind: 'heading', text: 'Summary' });
      blocks.push({ kind: 'paragraph', text: paragraph(random, 4), footnote: sentence(random, 12) });
      blocks.push({
        ...styled(stationTable(random, random.int(6, 9), 5), style(0), caption('Readings')),
        note: `Source: ${sentence(random, 8)}`,
      });
      blocks.push({ kind: 'paragraph', text: paragraph(random, 5), footnote: sentence(random, 10) });
      blocks.push({ kind: 'paragraph', text: paragraph(random, 3), footnote: sentence(random, 14) });
      blocks.push(styled(optionTable(random, random.int(3, 5)), style(1), caption('Settings')));
      blocks.push({ kind: 'paragraph', text: paragraph(random, 2), footnote: sentence(random, 9) });
      break;
    case 'scan':
      blocks.push({ kind: 'heading', text: 'Results' });
      prose(1);
      blocks.push(
        styled(
          variant === 'a' ? stationTable(random, random.int(6, 9), 5) : resultsTable(random),
          variant === 'a' ? 'grid' : style(0) === 'plain' ? 'booktabs' : style(0),
          caption('Results'),
        ),
      );
      prose(2);
      break;
  }
  return {
    name,
    producer,
    layout,
    title,
    twoColumn: layout === 'two-column',
    running: producer !== 'browser',
    blocks,
  };
}

export const DOCUMENTS: readonly HardDocument[] = PRODUCERS.flatMap((producer) =>
  LAYOUTS.flatMap((layout) => VARIANTS.map((variant) => build(producer, layout, variant))),
).concat(EXTRA.map(buildExtra));

/** The truth: the document's tables as Markdown pipe tables (a span's text in its top-left cell, the rest empty). */
export function truthMarkdown(document: HardDocument): string {
  const tables = document.blocks.filter((block): block is HardTable => block.kind === 'table');
  return `${tables
    .map((table) => {
      const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
      const width = table.rows[0]!.length;
      return [line(table.rows[0]!), `|${' --- |'.repeat(width)}`, ...table.rows.slice(1).map(line)].join('\n');
    })
    .join('\n\n')}\n`;
}
