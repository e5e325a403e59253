import { describe, expect, it } from 'vitest';
import { byteOrderMark, decodeTextChunks, decodeUnicode, toUtf8 } from './text.js';

const TEXT = 'Zürich, 東京 😀\nline two\n';
const ENCODINGS = {
  'utf-8': Buffer.from(TEXT),
  'utf-8 bom': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(TEXT)]),
  'utf-16le': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(TEXT, 'utf16le')]),
  'utf-16be': Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(TEXT, 'utf16le').swap16()]),
};

async function collect(chunks: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const chunk of chunks) text += chunk;
  return text;
}

/** The bytes in chunks of `size`, so characters and the BOM itself are split across chunks. */
async function* inChunks(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

describe('text decoding', () => {
  it('reads the BOM', () => {
    expect(byteOrderMark(ENCODINGS['utf-8'])).toBeUndefined();
    expect(byteOrderMark(ENCODINGS['utf-8 bom'])).toEqual({ encoding: 'utf-8', length: 3 });
    expect(byteOrderMark(ENCODINGS['utf-16le'])).toEqual({ encoding: 'utf-16le', length: 2 });
    expect(byteOrderMark(ENCODINGS['utf-16be'])).toEqual({ encoding: 'utf-16be', length: 2 });
  });

  it('decodes whole buffers and streams in every encoding, chunk boundaries anywhere', async () => {
    for (const [name, bytes] of Object.entries(ENCODINGS)) {
      expect(decodeUnicode(bytes), name).toBe(TEXT);
      expect(toUtf8(bytes).toString('utf8'), name).toBe(TEXT);
      for (const size of [1, 2, 3, 5, 1024])
        expect(await collect(decodeTextChunks(inChunks(bytes, size))), `${name} / ${size}`).toBe(TEXT);
    }
  });

  it('handles files shorter than a BOM, and empty ones', async () => {
    expect(await collect(decodeTextChunks(inChunks(Buffer.from('a'), 1)))).toBe('a');
    expect(await collect(decodeTextChunks(inChunks(Buffer.from([0xff, 0xfe]), 1)))).toBe('');
    expect(await collect(decodeTextChunks(inChunks(Buffer.alloc(0), 1)))).toBe('');
  });

  it('keeps a BOM-less non-UTF-8 file readable (U+FFFD for invalid bytes)', () => {
    expect(decodeUnicode(Buffer.from('Jos\xe9', 'latin1'))).toBe('Jos\uFFFD');
    expect(toUtf8(Buffer.from('plain'))).toEqual(Buffer.from('plain'));
  });
});
