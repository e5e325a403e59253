/**
 * The corpus: each entry is a document model plus the route that renders it to PDF.
 * Text comes from a seeded generator so the corpus is reproducible and free of copyright.
 */
import type { Block, BulletGlyph, ListItem, NumberStyle } from './model.js';
import type { PostScriptLayout } from './postscript.js';

export type Route =
  | { kind: 'postscript'; layout: PostScriptLayout }
  | { kind: 'docx' }
  | { kind: 'html'; tableBorders: boolean };

export interface CorpusEntry {
  name: string;
  route: Route;
  blocks: Block[];
}

const WORDS = (
  'the system report quarterly revenue increased across regions while operating costs remained stable ' +
  'customers adopted services faster than expected and the team delivered improvements to reliability ' +
  'performance security documentation infrastructure deployment monitoring analysis management ' +
  'a of to in for with on by from that this was were has have will can should may each every ' +
  'network storage capacity migration schedule partners contracts shipment warehouse inventory ' +
  'measurement calibration instrument laboratory experiment procedure observation temperature ' +
  'results indicate significant variation between samples collected during summer and winter ' +
  'committee approved budget proposal following review members discussed priorities timeline'
).split(' ');

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

export class TextSource {
  private readonly random: () => number;
  constructor(seed: number) {
    this.random = seeded(seed);
  }
  private word(): string {
    return WORDS[Math.floor(this.random() * WORDS.length)]!;
  }
  words(count: number): string {
    return Array.from({ length: count }, () => this.word()).join(' ');
  }
  sentence(): string {
    const text = this.words(8 + Math.floor(this.random() * 10));
    return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
  }
  paragraph(sentences: number): Block {
    return { kind: 'paragraph', text: Array.from({ length: sentences }, () => this.sentence()).join(' ') };
  }
  title(words: number): string {
    return this.words(words)
      .split(' ')
      .map((w) => `${w[0]!.toUpperCase()}${w.slice(1)}`)
      .join(' ');
  }
  items(count: number, wordsPerItem: number): ListItem[] {
    return Array.from({ length: count }, () => ({ text: this.words(wordsPerItem), level: 0 }));
  }
}

export const heading = (level: 1 | 2 | 3, text: string): Block => ({ kind: 'heading', level, text });
export const list = (marker: BulletGlyph | NumberStyle, items: ListItem[]): Block => ({ kind: 'list', marker, items });

const BASE_LAYOUT: PostScriptLayout = {
  paper: 'a4',
  body: { font: 'Helvetica', size: 10 },
  boldFont: 'Helvetica-Bold',
  headings: [
    { font: 'Helvetica', size: 20 },
    { font: 'Helvetica', size: 15 },
    { font: 'Helvetica', size: 12.5 },
  ],
  drawOrder: 'natural',
  showPerWord: false,
  hyphenate: false,
  ruleDrawing: 'stroke',
  seed: 1,
};

const INVENTORY_TABLE = [
  ['Item', 'Quantity', 'Location', 'Status'],
  ['Widget A', '120', 'Warehouse 3', 'In stock'],
  ['Widget B', '45', 'Warehouse 1', 'Low'],
  ['Gadget C', '0', 'Supplier', 'Back order'],
  ['Sensor D', '310', 'Warehouse 2', 'In stock'],
];

const WRAPPING_TABLE = [
  ['Phase', 'Description', 'Owner'],
  [
    'Design',
    'Collect requirements from partners and agree the schedule with the steering committee before work starts',
    'Planning team',
  ],
  ['Build', 'Implement the storage migration in small steps with monitoring at every stage', 'Platform'],
  ['Review', 'Committee approval', 'Finance and legal office'],
];

function sizeHeadings(): CorpusEntry {
  const text = new TextSource(11);
  return {
    name: 'ps-size-headings',
    route: {
      kind: 'postscript',
      layout: {
        ...BASE_LAYOUT,
        header: 'Acme Corp | Quarterly Report',
        footer: 'Page {page} of {pages}',
        hyphenate: true,
      },
    },
    blocks: [
      heading(1, 'Quarterly Operations Report'),
      text.paragraph(5),
      heading(2, 'Summary of Results'),
      text.paragraph(6),
      text.paragraph(4),
      list('•', text.items(4, 9)),
      heading(3, 'Regional Details'),
      text.paragraph(7),
      { kind: 'table', rows: INVENTORY_TABLE, rules: 'grid' },
      text.paragraph(5),
      heading(2, 'Next Steps'),
      list('1)', text.items(3, 14)),
      text.paragraph(8),
      heading(3, 'Risks and Mitigations'),
      text.paragraph(9),
      text.paragraph(6),
      heading(2, 'Appendix'),
      text.paragraph(10),
      text.paragraph(7),
    ],
  };
}

function boldHeadings(): CorpusEntry {
  const text = new TextSource(22);
  return {
    name: 'ps-bold-headings',
    route: {
      kind: 'postscript',
      layout: {
        ...BASE_LAYOUT,
        paper: 'letter',
        body: { font: 'Times-Roman', size: 11 },
        boldFont: 'Times-Bold',
        headings: [
          { font: 'Times-Bold', size: 16 },
          { font: 'Times-Bold', size: 11 },
          { font: 'Times-Bold', size: 11 },
        ],
        footer: '- {page} -',
      },
    },
    blocks: [
      heading(1, 'Laboratory Procedure Manual'),
      text.paragraph(4),
      heading(2, 'Calibration'),
      text.paragraph(6),
      list('–', text.items(3, 8)),
      heading(2, 'Measurement Steps'),
      list('(1)', text.items(4, 16)),
      text.paragraph(5),
      {
        kind: 'table',
        rows: [
          ['Sample', 'Temperature', 'Result'],
          ['S1', '21.5', 'Pass'],
          ['S2', '19.0', 'Pass'],
          ['S3', '24.8', 'Fail'],
        ],
        rules: 'horizontal',
      },
      heading(2, 'Observations'),
      text.paragraph(8),
      text.paragraph(7),
      text.paragraph(6),
      heading(2, 'Storage'),
      text.paragraph(6),
    ],
  };
}

function shuffled(): CorpusEntry {
  const text = new TextSource(33);
  return {
    name: 'ps-shuffled-words',
    route: {
      kind: 'postscript',
      layout: {
        ...BASE_LAYOUT,
        paper: 'letter',
        header: 'Org | Page {page}',
        footer: 'Confidential',
        drawOrder: 'shuffled',
        showPerWord: true,
        ruleDrawing: 'fill',
        seed: 7,
      },
    },
    blocks: [
      heading(1, 'Network Migration Plan'),
      text.paragraph(5),
      heading(2, 'Inventory'),
      { kind: 'table', rows: INVENTORY_TABLE, rules: 'grid' },
      text.paragraph(4),
      list('▪', text.items(3, 10)),
      heading(2, 'Schedule'),
      {
        kind: 'table',
        rows: [
          ['Week', 'Task', 'Team'],
          ['1', 'Survey', 'Network'],
          ['2', 'Pilot', 'Storage'],
          ['3', 'Rollout', 'Operations'],
        ],
        rules: 'none',
      },
      text.paragraph(6),
      list('a.', text.items(3, 12)),
      heading(3, 'Partners'),
      text.paragraph(9),
      text.paragraph(8),
    ],
  };
}

function tables(): CorpusEntry {
  const text = new TextSource(44);
  return {
    name: 'ps-tables',
    route: {
      kind: 'postscript',
      layout: {
        ...BASE_LAYOUT,
        body: { font: 'Times-Roman', size: 10.5 },
        boldFont: 'Times-Bold',
        headings: [
          { font: 'Times-Bold', size: 18 },
          { font: 'Times-Bold', size: 14 },
          { font: 'Times-Bold', size: 12 },
        ],
        footer: 'Project Atlas | Page {page}',
      },
    },
    blocks: [
      heading(1, 'Table Samples'),
      text.paragraph(3),
      heading(2, 'Fully Ruled'),
      { kind: 'table', rows: WRAPPING_TABLE, rules: 'grid' },
      heading(2, 'Horizontal Rules Only'),
      { kind: 'table', rows: WRAPPING_TABLE, rules: 'horizontal' },
      text.paragraph(3),
      heading(2, 'Borderless'),
      { kind: 'table', rows: WRAPPING_TABLE, rules: 'none' },
      text.paragraph(2),
      {
        kind: 'table',
        rows: [
          ['Region', 'Q1', 'Q2', 'Q3', 'Q4'],
          ['North', '1,200', '1,350', '1,410', '1,500'],
          ['South', '980', '1,020', '1,100', '1,150'],
          ['East', '760', '800', '845', '900'],
          ['West', '1,050', '1,090', '1,120', '1,200'],
        ],
        rules: 'none',
      },
      text.paragraph(4),
    ],
  };
}

function lists(): CorpusEntry {
  const text = new TextSource(55);
  const nested: ListItem[] = [
    { text: text.words(6), level: 0 },
    { text: text.words(5), level: 1 },
    { text: text.words(7), level: 1 },
    { text: text.words(6), level: 0 },
  ];
  return {
    name: 'ps-lists',
    route: {
      kind: 'postscript',
      layout: {
        ...BASE_LAYOUT,
        body: { font: 'Times-Roman', size: 11 },
        headings: [
          { font: 'Helvetica-Bold', size: 17 },
          { font: 'Helvetica-Bold', size: 13 },
          { font: 'Helvetica-Bold', size: 11 },
        ],
        boldFont: 'Times-Bold',
        footer: 'Page {page} of {pages}',
      },
    },
    blocks: [
      heading(1, 'List Styles'),
      text.paragraph(2),
      list('•', text.items(3, 7)),
      text.paragraph(2),
      list('·', text.items(3, 20)),
      text.paragraph(2),
      list('–', text.items(2, 6)),
      text.paragraph(1),
      list('-', text.items(3, 18)),
      heading(2, 'Numbered'),
      list('1.', text.items(3, 6)),
      text.paragraph(2),
      list('1)', text.items(2, 22)),
      text.paragraph(1),
      list('(1)', text.items(3, 5)),
      text.paragraph(2),
      list('a.', text.items(3, 9)),
      heading(2, 'Nested'),
      list('•', nested),
      text.paragraph(3),
    ],
  };
}

function singlePage(): CorpusEntry {
  const text = new TextSource(66);
  return {
    name: 'ps-single-page',
    route: {
      kind: 'postscript',
      layout: {
        ...BASE_LAYOUT,
        paper: 'letter',
        body: { font: 'Courier', size: 10 },
        boldFont: 'Courier-Bold',
        headings: [
          { font: 'Courier-Bold', size: 14 },
          { font: 'Courier-Bold', size: 12 },
          { font: 'Courier-Bold', size: 10 },
        ],
        footer: '{page}',
      },
    },
    blocks: [heading(1, 'Memo'), text.paragraph(4), list('-', text.items(3, 6)), text.paragraph(3)],
  };
}

function officeReport(name: string, route: Route, seed: number): CorpusEntry {
  const text = new TextSource(seed);
  return {
    name,
    route,
    blocks: [
      heading(1, text.title(3)),
      text.paragraph(4),
      heading(2, text.title(2)),
      text.paragraph(6),
      list('-', text.items(3, 9)),
      text.paragraph(3),
      heading(3, text.title(3)),
      list('1.', text.items(3, 14)),
      { kind: 'table', rows: INVENTORY_TABLE, rules: route.kind === 'html' && route.tableBorders ? 'grid' : 'none' },
      heading(2, text.title(2)),
      text.paragraph(8),
      text.paragraph(7),
      heading(3, text.title(2)),
      text.paragraph(9),
    ],
  };
}

export const CORPUS: readonly CorpusEntry[] = [
  sizeHeadings(),
  boldHeadings(),
  shuffled(),
  tables(),
  lists(),
  singlePage(),
  officeReport('lo-docx-report', { kind: 'docx' }, 77),
  officeReport('lo-html-ruled', { kind: 'html', tableBorders: true }, 88),
  officeReport('lo-html-plain', { kind: 'html', tableBorders: false }, 99),
];
