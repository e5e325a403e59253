import { describe, expect, it } from 'vitest';
import { PluginError } from '../../../core/contract/index.js';
import { MAX_ROWS, decodeText, detectDelimiter, parseCsv, stringifyCsv } from './csv.js';

describe('decodeText', () => {
  it('strips a UTF-8 BOM', () => {
    expect(decodeText(Buffer.from('\uFEFFa,b', 'utf8'))).toEqual({ text: 'a,b', encoding: 'utf-8' });
  });
  it('falls back to Windows-1252 for invalid UTF-8', () => {
    expect(decodeText(Buffer.from('José;Zürich', 'latin1'))).toEqual({ text: 'José;Zürich', encoding: 'windows-1252' });
    expect(decodeText(Buffer.from([0x4a, 0x6f, 0x73, 0xe9, 0x3b, 0x80])).text).toBe('José;€');
  });
  it('reads UTF-16LE with a BOM', () => {
    expect(decodeText(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a\tb', 'utf16le')])).text).toBe('a\tb');
  });
});

describe('detectDelimiter', () => {
  it('finds comma, semicolon and tab', () => {
    expect(detectDelimiter('a,b,c\n1,2,3\n')).toBe(',');
    expect(detectDelimiter('a;b;c\n1,5;2,5;3\n')).toBe(';');
    expect(detectDelimiter('a\tb\n"x,y,z"\t2\n')).toBe('\t');
    expect(detectDelimiter('single\nvalue\n')).toBe(',');
  });
  it('ignores delimiters inside quotes', () => {
    expect(detectDelimiter('"a;b;c;d",x\n"e;f;g;h",y\n')).toBe(',');
  });
});

describe('parseCsv and stringifyCsv', () => {
  it('parses quoted newlines, doubled quotes and ragged rows', () => {
    expect(parseCsv('a,b\n"x\ny","say ""hi"""\nonly\n\n')).toEqual([['a', 'b'], ['x\ny', 'say "hi"'], ['only']]);
  });
  it('writes RFC 4180: CRLF, minimal quoting, round trip', () => {
    const rows = [['a', 'b,c', 'd"e'], ['line\nbreak', '', ' spaced '], ['']];
    const text = stringifyCsv(rows);
    expect(text).toBe('a,"b,c","d""e"\r\n"line\nbreak",, spaced \r\n""\r\n');
    expect(parseCsv(text)).toEqual(rows);
  });
  it('names the problem of an unclosed quote', () => {
    expect(() => parseCsv('a,b\n"open,2\n')).toThrow(PluginError);
    expect(() => parseCsv('a,b\n"open,2\n')).toThrow(/Could not read the CSV: .*quote/i);
  });
  it('refuses more than MAX_ROWS rows', () => {
    expect(() => parseCsv(`h\n${'1\n'.repeat(MAX_ROWS + 1)}`, ',')).toThrow(
      /Too many rows: the limit is 1,000,000 rows/,
    );
  }, 60_000);
});
