/** List items by marker and hanging indent (lists on hard layouts), on the smallest inputs that show them. */
import { describe, expect, it } from 'vitest';
import { run } from '../../testing/runs.js';
import { analyseStyle, documentBlocks, type FlowItem } from './blocks.js';
import { buildLines } from './lines.js';
import { markerNumber, parseListMarker } from './lists.js';
import type { Block } from './types.js';

/** One page of lines, each given as [x of its first run, baseline, ...runs as [x, text]]. */
function page(lines: [number, [number, string][]][], columnBreakAt?: number): FlowItem[] {
  return lines.map(([baseline, runs], i) => ({
    line: buildLines(runs.map(([x, text]) => run(text, x, baseline)))[0]!,
    columnBreak: i === columnBreakAt || undefined,
  }));
}

function listItems(pages: FlowItem[][]): { level: number; number?: number; text: string }[] {
  const flows = pages.map((items, i) => ({ page: i + 1, items }));
  const style = analyseStyle(pages.map((items) => items.flatMap((item) => ('line' in item ? [item.line] : []))));
  return documentBlocks(flows, style)
    .filter((b): b is Block & { kind: 'list' } => b.kind === 'list')
    .flatMap((b) =>
      b.items.map((item) => ({
        level: item.level,
        number: item.number,
        text: item.parts.map((p) => p.text).join(' '),
      })),
    );
}

describe('list markers', () => {
  it('reads i, v and x as numerals in a roman list and as letters in a lettered one', () => {
    const read = (text: string, previous?: Parameters<typeof markerNumber>[1]) =>
      markerNumber(parseListMarker(text)!, previous);
    expect(read('i. first')).toEqual({ kind: 'roman', number: 1 });
    expect(read('v. fifth', { kind: 'roman', number: 4 })).toEqual({ kind: 'roman', number: 5 });
    expect(read('i. ninth', { kind: 'alpha', number: 8 })).toEqual({ kind: 'alpha', number: 9 });
    expect(read('(c) third')).toEqual({ kind: 'alpha', number: 3 });
    expect(read('IV. fourth')).toEqual({ kind: 'roman', number: 4 });
  });

  it(
    'takes stars, triangles, check marks, arrows and unmapped symbol glyphs as bullets, and no number-led ' + 'prose',
    () => {
      for (const glyph of ['∗', '▷', '✓', '→', '\u0088', '\uf0b7'])
        expect(parseListMarker(`${glyph} item text`)?.kind).toBe('bullet');
      expect(parseListMarker('2024 was a year of change')).toBeUndefined();
      expect(parseListMarker('1.5 percent of the samples')).toBeUndefined();
    },
  );
});

describe('list items by hanging indent', () => {
  it('keeps right-aligned "9." and "10." at one level, and their wrapped lines at the text indent', () => {
    const items = listItems([
      page([
        [
          100,
          [
            [77, '9.'],
            [90, 'ninth item that wraps'],
          ],
        ],
        [112, [[90, 'onto a second line']]],
        [
          124,
          [
            [72, '10.'],
            [90, 'tenth item'],
          ],
        ],
      ]),
    ]);
    expect(items).toEqual([
      { level: 0, number: 9, text: 'ninth item that wraps onto a second line' },
      { level: 0, number: 10, text: 'tenth item' },
    ]);
  });

  it('goes on at the top of the next column when the line sits at the item text indent, capital or not', () => {
    const items = listItems([
      page(
        [
          [100, [[72, 'Body text at the margin of the left column.']]],
          [112, [[72, 'More body text at the margin here.']]],
          [
            128,
            [
              [82, '•'],
              [92, 'An item at the foot of the column,'],
            ],
          ],
          [100, [[332, 'Which goes on here at its indent']]],
          [130, [[312, 'Body text at the margin of the right column.']]],
        ],
        3,
      ),
    ]);
    expect(items).toEqual([
      { level: 0, number: undefined, text: 'An item at the foot of the column, Which goes on here at its indent' },
    ]);
  });

  it('reads a marker set alone on its line with the text below it as one item', () => {
    const items = listItems([
      page([
        [100, [[72, '→']]],
        [112, [[82, 'text of the item']]],
        [
          124,
          [
            [72, '→'],
            [82, 'next item'],
          ],
        ],
      ]),
    ]);
    expect(items.map((i) => i.text)).toEqual(['text of the item', 'next item']);
  });

  it('takes a rarer glyph as a bullet only beside an item with the same marker (a symbol table is no list)', () => {
    const symbols = listItems([
      page([
        [
          100,
          [
            [72, '\ue001'],
            [90, '\\boxLeft'],
          ],
        ],
        [
          112,
          [
            [72, '\ue002'],
            [90, '\\boxRight'],
          ],
        ],
        [
          124,
          [
            [72, '\ue003'],
            [90, '\\Diamond'],
          ],
        ],
      ]),
    ]);
    expect(symbols).toEqual([]);
    const stars = listItems([
      page([
        [
          100,
          [
            [72, '∗'],
            [82, 'first starred item'],
          ],
        ],
        [
          112,
          [
            [72, '∗'],
            [82, 'second starred item'],
          ],
        ],
      ]),
    ]);
    expect(stars.map((i) => i.text)).toEqual(['first starred item', 'second starred item']);
  });

  it('keeps an item paragraph at the text indent, and leaves out a body paragraph with a first-line indent', () => {
    const items = listItems([
      page([
        [
          100,
          [
            [72, '•'],
            [82, 'first item text'],
          ],
        ],
        [112, [[82, 'wrapped']]],
        [130, [[82, 'its second paragraph']]],
        [
          142,
          [
            [72, '•'],
            [82, 'second item text'],
          ],
        ],
        [154, [[82, 'wrapped']]],
        [172, [[82, 'A body paragraph indented at first']]],
        [184, [[72, 'that goes back to the margin.']]],
      ]),
    ]);
    expect(items.map((i) => i.text)).toEqual([
      'first item text wrapped its second paragraph',
      'second item text wrapped',
    ]);
  });
});
