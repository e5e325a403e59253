import { describe, expect, it } from 'vitest';
import { PluginError } from '../../../core/contract/index.js';
import { assertPagesExist, compactRanges, formatRange, pagesIn, parsePageRanges } from './page-ranges.js';

const ranges = (text: string) => {
  const parsed = parsePageRanges(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.ranges;
};
const error = (text: string) => {
  const parsed = parsePageRanges(text);
  return parsed.ok ? undefined : parsed.error;
};

describe('page ranges', () => {
  it('parses pages and ranges with or without spaces, in the order written', () => {
    expect(ranges('1-3, 5, 8-10')).toEqual([
      { first: 1, last: 3 },
      { first: 5, last: 5 },
      { first: 8, last: 10 },
    ]);
    expect(ranges('1-3,4,5-8')).toEqual([
      { first: 1, last: 3 },
      { first: 4, last: 4 },
      { first: 5, last: 8 },
    ]);
    expect(ranges(' 7 - 9 ,2')).toEqual([
      { first: 7, last: 9 },
      { first: 2, last: 2 },
    ]);
    expect(ranges('4-4')).toEqual([{ first: 4, last: 4 }]);
  });

  it('refuses what is not a page list, saying why', () => {
    expect(error('')).toMatch(/^no pages given/);
    expect(error(' , ')).toMatch(/^no pages given/);
    expect(error('1,,2')).toMatch(/^empty entry/);
    expect(error('1,')).toMatch(/^empty entry/);
    expect(error('abc')).toBe("'abc' is not a page or a range; use page numbers and ranges such as 1-3, 5, 8-10");
    expect(error('1-')).toMatch(/'1-' is not a page or a range/);
    expect(error('-3')).toMatch(/'-3' is not a page or a range/);
    expect(error('1.5')).toMatch(/is not a page or a range/);
    expect(error('1-2-3')).toMatch(/is not a page or a range/);
    expect(error('0')).toBe('pages are numbered from 1');
    expect(error('0-2')).toBe('pages are numbered from 1');
    expect(error('5-3')).toBe('range 5-3 runs backwards; write 3-5');
    expect(error('99999999999999999999')).toMatch(/is not a page number/);
  });

  it('checks the pages exist, naming the first missing one', () => {
    expect(() => assertPagesExist(ranges('1-8'), 8)).not.toThrow();
    expect(() => assertPagesExist(ranges('1-3, 9'), 8)).toThrow(
      new PluginError('page 9 does not exist: the PDF has 8 pages'),
    );
    expect(() => assertPagesExist(ranges('2'), 1)).toThrow('page 2 does not exist: the PDF has 1 page');
  });

  it('lists distinct pages in document order and writes them back compactly', () => {
    expect(pagesIn(ranges('8-10, 1-3, 2, 5'))).toEqual([1, 2, 3, 5, 8, 9, 10]);
    expect(compactRanges([1, 2, 3, 5, 8, 9, 10])).toBe('1-3,5,8-10');
    expect(compactRanges([4])).toBe('4');
    expect(formatRange({ first: 2, last: 2 })).toBe('2');
    expect(formatRange({ first: 2, last: 6 })).toBe('2-6');
  });
});
