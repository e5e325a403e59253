/**
 * Unicode text as uploads carry it: UTF-8 with or without a byte-order mark, or UTF-16 (little or
 * big endian) with its mark. One place for the BOM rules, shared by the upload check and by every
 * plugin that reads text, so a file accepted at the door is also read correctly.
 */

export type UnicodeEncoding = 'utf-8' | 'utf-16le' | 'utf-16be';

/** The encoding a byte-order mark at the start announces, and the mark's length; undefined without one. */
export function byteOrderMark(bytes: Uint8Array): { encoding: UnicodeEncoding; length: number } | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: 'utf-8', length: 3 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  return undefined;
}

/** Text by its BOM (removed), else UTF-8; invalid sequences become U+FFFD. */
export function decodeUnicode(bytes: Uint8Array): string {
  const bom = byteOrderMark(bytes);
  return new TextDecoder(bom?.encoding ?? 'utf-8', { ignoreBOM: true }).decode(bytes.subarray(bom?.length ?? 0));
}

/**
 * Text as UTF-8 bytes: UTF-16 with a BOM is transcoded, a UTF-8 BOM is dropped, anything else is
 * returned as it is. For engines that read UTF-8 only (librsvg, for one).
 */
export function toUtf8(bytes: Uint8Array): Buffer {
  const bom = byteOrderMark(bytes);
  const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!bom) return body;
  if (bom.encoding === 'utf-8') return body.subarray(bom.length);
  return Buffer.from(decodeUnicode(bytes), 'utf8');
}

/**
 * A stream of bytes as a stream of text: the encoding is taken from a BOM at the start (dropped),
 * else UTF-8 (invalid bytes as U+FFFD); a character split across chunks stays whole.
 */
export async function* decodeTextChunks(chunks: AsyncIterable<Uint8Array | string>): AsyncGenerator<string> {
  let decoder: TextDecoder | undefined;
  let pending = Buffer.alloc(0);
  for await (const chunk of chunks) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (!decoder) {
      // Three bytes decide (a UTF-8 BOM is three long); a shorter file is decided at its end.
      pending = Buffer.concat([pending, bytes]);
      if (pending.length < 3) continue;
      decoder = decoderFor(pending);
      const text = decoder.decode(pending.subarray(byteOrderMark(pending)?.length ?? 0), { stream: true });
      if (text) yield text;
      continue;
    }
    const text = decoder.decode(bytes, { stream: true });
    if (text) yield text;
  }
  if (!decoder) {
    if (pending.length === 0) return;
    decoder = decoderFor(pending);
    const text = decoder.decode(pending.subarray(byteOrderMark(pending)?.length ?? 0));
    if (text) yield text;
    return;
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}

function decoderFor(head: Uint8Array): TextDecoder {
  return new TextDecoder(byteOrderMark(head)?.encoding ?? 'utf-8', { ignoreBOM: true });
}
