/**
 * The lists corpus: documents full of lists, described once as a model
 * and written out by real producers (producers.ts) -- LaTeX, groff -ms, HTML printed by Chromium,
 * and pandoc -> DOCX/ODT -> LibreOffice -- so nothing here shares bench/markdown/layouts' layout
 * assumptions. The truth Markdown comes from the same model (`truthMarkdown`).
 */

import { Random as SeededRandom } from '../../../test/testing/random.js';

export type Producer = 'latex' | 'groff' | 'chromium' | 'docx' | 'odt';

export type BulletStyle = 'bullet' | 'dash' | 'emdash' | 'star' | 'arrow' | 'triangle' | 'circle' | 'check' | 'square';
export type OrderedStyle =
  | 'decimal' // 1.
  | 'decimal-paren' // 1)
  | 'paren-decimal' // (1)
  | 'lower-alpha' // a.
  | 'lower-alpha-paren' // a)
  | 'paren-lower-alpha' // (a)
  | 'upper-alpha' // A.
  | 'lower-roman' // i.
  | 'upper-roman'; // I.

export interface ListModel {
  ordered: boolean;
  style: BulletStyle | OrderedStyle;
  /** Value of the first item (ordered lists): a list that resumes after a paragraph starts past 1. */
  start: number;
  items: ItemModel[];
}

export interface ItemModel {
  text: string;
  /** A second paragraph of the same item. */
  second?: string;
  children?: ListModel;
}

export type DocBlock =
  | { kind: 'title'; text: string }
  | { kind: 'section'; number: number; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'list'; list: ListModel };

export interface ListDocument {
  name: string;
  producer: Producer;
  columns: 1 | 2;
  blocks: DocBlock[];
}

/** What each producer can draw as text (a marker drawn as a shape has no text to read). */
export const PRODUCER_STYLES: Record<Producer, { bullets: BulletStyle[]; ordered: OrderedStyle[]; second: boolean }> = {
  latex: {
    bullets: ['bullet', 'dash', 'emdash', 'star', 'triangle', 'circle', 'check'],
    ordered: [
      'decimal',
      'lower-alpha-paren',
      'paren-lower-alpha',
      'paren-decimal',
      'lower-roman',
      'upper-roman',
      'upper-alpha',
    ],
    second: true,
  },
  groff: {
    bullets: ['bullet', 'dash', 'emdash', 'star', 'arrow'],
    ordered: ['decimal', 'decimal-paren', 'paren-decimal', 'lower-alpha-paren', 'paren-lower-alpha', 'lower-roman'],
    second: true,
  },
  chromium: {
    bullets: ['bullet', 'dash', 'triangle', 'circle', 'star', 'check', 'arrow', 'square'],
    ordered: ['decimal', 'lower-alpha', 'upper-alpha', 'lower-roman', 'upper-roman', 'paren-decimal'],
    second: true,
  },
  // pandoc picks the bullets of each level itself.
  docx: {
    bullets: ['bullet'],
    ordered: ['decimal', 'lower-alpha-paren', 'paren-decimal', 'lower-roman', 'upper-alpha', 'upper-roman'],
    second: true,
  },
  odt: {
    bullets: ['bullet'],
    ordered: ['decimal', 'lower-alpha-paren', 'paren-decimal', 'lower-roman', 'upper-alpha'],
    second: true,
  },
};

export const BULLET_GLYPH: Record<BulletStyle, string> = {
  bullet: '•',
  dash: '–',
  emdash: '—',
  star: '*',
  arrow: '→',
  triangle: '‣',
  circle: '◦',
  check: '✓',
  square: '▪',
};

const ROMAN: [number, string][] = [
  [10, 'x'],
  [9, 'ix'],
  [5, 'v'],
  [4, 'iv'],
  [1, 'i'],
];

export function roman(n: number): string {
  let out = '';
  for (const [value, digits] of ROMAN)
    while (n >= value) {
      out += digits;
      n -= value;
    }
  return out;
}

/** The label a producer shows for item number `n` of an ordered style. */
export function orderedLabel(style: OrderedStyle, n: number): string {
  const letter = String.fromCharCode(96 + n);
  switch (style) {
    case 'decimal':
      return `${n}.`;
    case 'decimal-paren':
      return `${n})`;
    case 'paren-decimal':
      return `(${n})`;
    case 'lower-alpha':
      return `${letter}.`;
    case 'lower-alpha-paren':
      return `${letter})`;
    case 'paren-lower-alpha':
      return `(${letter})`;
    case 'upper-alpha':
      return `${letter.toUpperCase()}.`;
    case 'lower-roman':
      return `${roman(n)}.`;
    case 'upper-roman':
      return `${roman(n).toUpperCase()}.`;
  }
}

/**
 * Words with no fi/fl/ff (a ligature glyph would make the text differ from the source for a reason that is not lists).
 */
const WORDS = (
  'the a of and to in for with on by from was were has have can will should may report team budget ' +
  'storage network review samples committee partners winter summer laboratory instrument variation ' +
  'measurement observation procedure schedule timeline migration security customers warehouse revenue ' +
  'calibration increased approved delivered collected remained stable regions quarterly monitoring ' +
  'analysis operating services proposal members capacity temperature deployment experiment inventory ' +
  'priorities results documentation reliability management improvements contracts expected during ' +
  'between across every each while than that this system shipment costs indicate following adopted ' +
  'river harbour orchard bridge engine ledger window valve copper garden signal transit'
).split(' ');

/** The seeded generator (mulberry32) with the corpus' words: the corpus is the same on every machine. */
export class Random extends SeededRandom {
  words(count: number): string {
    return Array.from({ length: count }, () => this.pick(WORDS)).join(' ');
  }
  sentence(count: number): string {
    const text = this.words(count);
    return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
  }
}

/** Body text that opens with a number and is no list item: "2024 was ...", "30 samples ...". */
const NUMBER_OPENINGS = ['2024 was a year when', '30 samples', '1.5 percent of the', '12 of the partners', '2019 saw'];

function paragraph(random: Random, numberOpening: boolean): DocBlock {
  const sentences = Array.from({ length: random.int(2, 4) }, () => random.sentence(random.int(6, 16)));
  if (numberOpening) sentences[0] = `${random.pick(NUMBER_OPENINGS)} ${sentences[0]!.toLowerCase()}`;
  return { kind: 'paragraph', text: sentences.join(' ') };
}

function itemText(random: Random): string {
  // Short items, items of a line, and items that wrap over several lines (hanging indent).
  const length = random.pick([3, 4, 6, 8, 12, 16, 24, 32]);
  const text = random.words(length);
  const capital = random.chance(0.6);
  const start = capital ? `${text[0]!.toUpperCase()}${text.slice(1)}` : text;
  return random.chance(0.5) ? `${start}.` : start;
}

function makeList(random: Random, producer: Producer, depth: number, start = 1, ordered?: boolean): ListModel {
  const styles = PRODUCER_STYLES[producer];
  const isOrdered = ordered ?? random.chance(0.55);
  const list: ListModel = {
    ordered: isOrdered,
    style: isOrdered ? random.pick(styles.ordered) : random.pick(styles.bullets),
    start,
    items: [],
  };
  const count = depth === 0 ? random.int(3, 7) : random.int(2, 3);
  for (let i = 0; i < count; i++) {
    const item: ItemModel = { text: itemText(random) };
    if (styles.second && depth === 0 && random.chance(0.12)) item.second = random.sentence(random.int(8, 20));
    if (depth < 2 && random.chance(depth === 0 ? 0.15 : 0.1)) item.children = makeList(random, producer, depth + 1);
    list.items.push(item);
  }
  return list;
}

const TITLES = ['Field Notes', 'Storage Handover', 'Survey Plan', 'Harbour Review', 'Orchard Report', 'Transit Study'];
const SECTIONS = ['Scope', 'Method', 'Results', 'Open Points', 'Schedule', 'Budget', 'Partners', 'Checks'];

export function makeDocument(name: string, producer: Producer, columns: 1 | 2, seed: number): ListDocument {
  const random = new Random(seed);
  const blocks: DocBlock[] = [{ kind: 'title', text: `${random.pick(TITLES)} ${random.int(2, 9)}` }];
  const sections = columns === 2 ? random.int(3, 5) : random.int(2, 3);
  const names = [...SECTIONS];
  for (let s = 1; s <= sections; s++) {
    const title = names.splice(random.int(0, names.length - 1), 1)[0]!;
    blocks.push({ kind: 'section', number: s, text: title });
    blocks.push(paragraph(random, random.chance(0.3)));
    const lists = random.int(1, 2);
    for (let l = 0; l < lists; l++) {
      const list = makeList(random, producer, 0);
      blocks.push({ kind: 'list', list });
      if (list.ordered && random.chance(0.3)) {
        // The list resumes after a paragraph, keeping its numbers.
        blocks.push(paragraph(random, random.chance(0.5)));
        const next = makeList(random, producer, 0, list.start + list.items.length, true);
        next.style = list.style;
        blocks.push({ kind: 'list', list: next });
      }
      if (random.chance(0.6)) blocks.push(paragraph(random, random.chance(0.3)));
    }
  }
  return { name, producer, columns, blocks };
}

/** How a producer prints a section heading's number with its title. */
export function sectionText(producer: Producer, number: number, text: string): string {
  return producer === 'groff' ? `${number}. ${text}` : `${number} ${text}`;
}

/** The truth: headings `#` (title) and `##` (sections), lists as `-` / `N.` with the item's value, nested by indent. */
export function truthMarkdown(document: ListDocument): string {
  const out: string[] = [];
  const writeList = (list: ListModel, indent: string, lines: string[]) => {
    list.items.forEach((item, i) => {
      const marker = list.ordered ? `${list.start + i}.` : '-';
      const inner = `${indent}${' '.repeat(marker.length + 1)}`;
      lines.push(`${indent}${marker} ${item.text}`);
      if (item.second) lines.push('', `${inner}${item.second}`, '');
      if (item.children) writeList(item.children, inner, lines);
    });
  };
  for (const block of document.blocks) {
    if (block.kind === 'title') out.push(`# ${block.text}`);
    else if (block.kind === 'section') out.push(`## ${sectionText(document.producer, block.number, block.text)}`);
    else if (block.kind === 'paragraph') out.push(block.text);
    else {
      const lines: string[] = [];
      writeList(block.list, '', lines);
      out.push(lines.join('\n').replace(/\n{3,}/g, '\n\n'));
    }
  }
  return `${out.join('\n\n')}\n`;
}

/** The corpus: 30 documents, named by producer and layout; seeds fixed. */
export const DOCUMENTS: ListDocument[] = [
  ...series('latex-one', 'latex', 1, 4, 1100),
  ...series('latex-two', 'latex', 2, 5, 1200),
  ...series('groff-one', 'groff', 1, 3, 2100),
  ...series('groff-two', 'groff', 2, 4, 2200),
  ...series('chromium-one', 'chromium', 1, 3, 3100),
  ...series('chromium-two', 'chromium', 2, 4, 3200),
  ...series('docx', 'docx', 1, 4, 4100),
  ...series('odt', 'odt', 1, 3, 5100),
];

function series(prefix: string, producer: Producer, columns: 1 | 2, count: number, seed: number): ListDocument[] {
  return Array.from({ length: count }, (_, i) =>
    makeDocument(`${prefix}-${String(i + 1).padStart(2, '0')}`, producer, columns, seed + i),
  );
}
