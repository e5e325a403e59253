import { describe, expect, it } from 'vitest';
import { teds, treeEditDistance } from './teds.js';

const table = [
  ['a', 'b'],
  ['c', 'd'],
];

describe('teds', () => {
  it('is 1 for the same table', () => {
    expect(teds(table, table)).toBe(1);
  });

  it('counts a lost row as one row and its cells deleted (7 nodes, 3 edits)', () => {
    expect(teds([['a', 'b']], table)).toBeCloseTo(1 - 3 / 7, 10);
  });

  it('counts two rows read as one as both rows deleted and one inserted around their cells', () => {
    expect(teds([['a', 'b', 'c', 'd']], table)).toBeCloseTo(1 - 3 / 7, 10);
  });

  it('renames a cell by the normalised Levenshtein distance of the texts', () => {
    expect(
      teds(
        [
          ['abce', 'b'],
          ['c', 'd'],
        ],
        [
          ['abcd', 'b'],
          ['c', 'd'],
        ],
      ),
    ).toBeCloseTo(1 - 0.25 / 7, 10);
  });

  it('scores cells moved to the wrong column below 1, and an empty table near 0', () => {
    const shifted = [
      ['a', 'b', ''],
      ['', 'c', 'd'],
    ];
    expect(teds(shifted, table)).toBeLessThan(0.8);
    expect(teds([], table)).toBeCloseTo(1 / 7, 10);
  });

  it('is symmetric', () => {
    const other = [['x'], ['a', 'b', 'c'], ['d']];
    const tree = (rows: string[][]) => ({
      kind: 'table' as const,
      text: '',
      children: rows.map((row) => ({
        kind: 'row' as const,
        text: '',
        children: row.map((text) => ({ kind: 'cell' as const, text, children: [] })),
      })),
    });
    expect(treeEditDistance(tree(other), tree(table))).toBeCloseTo(treeEditDistance(tree(table), tree(other)), 10);
  });
});
