import { describe, expect, it } from 'vitest';
import { decodeTextString, encodeTextString, scrubContentStrings, stringBytes } from './content-strings.js';
import { createMatcher } from './matcher.js';

const matcher = createMatcher({ patterns: ['email'], terms: ['Falcon'] });

describe('strings inside content streams', () => {
  it('decodes literal and hex strings, PDFDocEncoding and UTF-16BE', () => {
    expect(stringBytes('(a\\(b\\) \\101\\\nc)')).toBe('a(b) Ac');
    expect(stringBytes('(nested (parens) kept)')).toBe('nested (parens) kept');
    expect(decodeTextString(stringBytes('<FEFF0046 0061>'))).toBe('Fa');
    expect(decodeTextString(stringBytes(encodeTextString('Größe 東京')))).toBe('Größe 東京');
  });

  it('scrubs /ActualText, /Alt and /E values, and nothing else', () => {
    const stream = [
      '/Span <</ActualText (mail jane@example.com)>> BDC BT (jane@example.com) Tj ET EMC',
      '/Figure <</Alt <FEFF00460061006C0063006F006E> /MCID 3>> BDC EMC',
      '/Span<</E(Project (Falcon))>>BDC EMC',
      '/P <</Lang (en)>> BDC EMC',
    ].join('\n');
    const { data, removed } = scrubContentStrings(stream, matcher);
    expect(removed).toBe(3);
    expect(data).toContain(`/ActualText ${encodeTextString('mail ')}`);
    expect(data).toContain('BT (jane@example.com) Tj ET'); // glyphs are the page pass's business
    expect(data).toContain(`/Alt ${encodeTextString('')}`);
    expect(data).toContain(`/E${encodeTextString('Project ()')}`);
    expect(data).toContain('/Lang (en)');
    expect(scrubContentStrings('/Span <</ActualText (nothing)>> BDC', matcher)).toEqual({
      data: '/Span <</ActualText (nothing)>> BDC',
      removed: 0,
    });
  });
});
