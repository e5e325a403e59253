/**
 * Strings that content streams carry as text rather than glyphs: the values of /ActualText, /Alt
 * and /E in marked-content property lists (`/Span <</ActualText (...)>> BDC`). Removing glyphs
 * leaves them in place, so they are scrubbed here, in the stream's own syntax (Latin-1 bytes).
 */
import { scrubText, type Matcher } from './matcher.js';

const KEYED_STRING = /\/(ActualText|Alt|E)(\s*)(\((?:\\[\s\S]|[^\\()]|\((?:\\[\s\S]|[^\\()])*\))*\)|<[0-9A-Fa-f\s]*>)/g;

const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', '(': '(', ')': ')', '\\': '\\' };

/** The bytes of a PDF string token (literal or hex), as Latin-1 characters. */
export function stringBytes(token: string): string {
  if (token.startsWith('<')) {
    const hex = token.slice(1, -1).replace(/\s/g, '');
    return Buffer.from(hex.length % 2 ? `${hex}0` : hex, 'hex').toString('latin1');
  }
  return token.slice(1, -1).replace(/\\(\r\n|\r|\n|[0-7]{1,3}|[\s\S])/g, (_, escaped: string) => {
    if (/^[\r\n]/.test(escaped)) return '';
    if (/^[0-7]+$/.test(escaped)) return String.fromCharCode(parseInt(escaped, 8) & 0xff);
    return ESCAPES[escaped] ?? escaped;
  });
}

/** Text of a PDF text string: UTF-16BE after its byte order mark, else PDFDocEncoding (read as Latin-1). */
export function decodeTextString(bytes: string): string {
  if (bytes.startsWith('\u00fe\u00ff')) return Buffer.from(bytes.slice(2), 'latin1').swap16().toString('utf16le');
  return bytes;
}

/** A text string as a hex token in UTF-16BE with its byte order mark. */
export function encodeTextString(text: string): string {
  const utf16 = Buffer.from(text, 'utf16le');
  utf16.swap16();
  return `<FEFF${utf16.toString('hex').toUpperCase()}>`;
}

/** `data` (a content stream as Latin-1) with matches removed from its /ActualText, /Alt and /E strings. */
export function scrubContentStrings(data: string, matcher: Matcher): { data: string; removed: number } {
  let removed = 0;
  const out = data.replace(KEYED_STRING, (whole, key: string, space: string, token: string) => {
    const scrubbed = scrubText(decodeTextString(stringBytes(token)), matcher);
    if (!scrubbed.removed) return whole;
    removed += scrubbed.removed;
    return `/${key}${space}${encodeTextString(scrubbed.text)}`;
  });
  return { data: out, removed };
}
