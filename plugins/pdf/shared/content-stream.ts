/**
 * A PDF content-stream tokenizer: the stream as operations (operands + operator) with their byte
 * ranges, so an edit can cut whole operations (or a marked-content section from its BDC to its
 * EMC) and keep every other byte as it was. Strings (nested parentheses, escapes), hex strings,
 * dictionaries, arrays, comments and inline images (binary data between ID and EI) are skipped
 * correctly, so a ")" or "EMC" inside them is never taken for syntax.
 */

/** Operand values: names keep their slash ("/Artifact"), dictionaries are plain objects. */
export type ContentValue = string | number | boolean | null | ContentValue[] | ContentDict | { string: Uint8Array };
export interface ContentDict {
  [key: string]: ContentValue;
}

export interface ContentOperation {
  operator: string;
  operands: ContentValue[];
  /** Byte offset of the first operand (or of the operator when it has none). */
  start: number;
  /** Byte offset just past the operator. */
  end: number;
}

const WHITESPACE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIMITERS = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);

type Token =
  | { kind: 'value'; value: ContentValue; start: number; end: number }
  | { kind: 'open'; what: '[' | '<<'; start: number; end: number }
  | { kind: 'close'; what: ']' | '>>'; start: number; end: number }
  | { kind: 'word'; word: string; start: number; end: number };

class Lexer {
  pos = 0;
  constructor(readonly bytes: Uint8Array) {}

  private skipSpace(): void {
    const b = this.bytes;
    while (this.pos < b.length) {
      const c = b[this.pos]!;
      if (WHITESPACE.has(c)) this.pos++;
      else if (c === 0x25) {
        while (this.pos < b.length && b[this.pos] !== 0x0a && b[this.pos] !== 0x0d) this.pos++;
      } else break;
    }
  }

  next(): Token | undefined {
    this.skipSpace();
    const b = this.bytes;
    if (this.pos >= b.length) return undefined;
    const start = this.pos;
    const c = b[start]!;
    if (c === 0x28) return { kind: 'value', value: { string: this.literalString() }, start, end: this.pos };
    if (c === 0x3c) {
      if (b[start + 1] === 0x3c) {
        this.pos += 2;
        return { kind: 'open', what: '<<', start, end: this.pos };
      }
      return { kind: 'value', value: { string: this.hexString() }, start, end: this.pos };
    }
    if (c === 0x3e) {
      this.pos += b[start + 1] === 0x3e ? 2 : 1;
      return { kind: 'close', what: '>>', start, end: this.pos };
    }
    if (c === 0x5b) {
      this.pos++;
      return { kind: 'open', what: '[', start, end: this.pos };
    }
    if (c === 0x5d) {
      this.pos++;
      return { kind: 'close', what: ']', start, end: this.pos };
    }
    if (c === 0x7b || c === 0x7d || c === 0x29) {
      // Braces belong to PostScript calculator functions, never to page content; a stray ")" is junk.
      this.pos++;
      return { kind: 'word', word: String.fromCharCode(c), start, end: this.pos };
    }
    if (c === 0x2f) {
      this.pos++;
      const word = this.regular();
      return { kind: 'value', value: `/${decodeName(word)}`, start, end: this.pos };
    }
    const word = this.regular() || String.fromCharCode(b[this.pos++]!);
    const end = this.pos;
    if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word)) return { kind: 'value', value: Number(word), start, end };
    if (word === 'true' || word === 'false') return { kind: 'value', value: word === 'true', start, end };
    if (word === 'null') return { kind: 'value', value: null, start, end };
    return { kind: 'word', word, start, end };
  }

  private regular(): string {
    const b = this.bytes;
    const from = this.pos;
    while (this.pos < b.length && !WHITESPACE.has(b[this.pos]!) && !DELIMITERS.has(b[this.pos]!)) this.pos++;
    return latin1(b.subarray(from, this.pos));
  }

  private literalString(): Uint8Array {
    const b = this.bytes;
    const out: number[] = [];
    let depth = 0;
    this.pos++; // (
    while (this.pos < b.length) {
      const c = b[this.pos++]!;
      if (c === 0x5c) {
        const e = b[this.pos++];
        if (e === undefined) break;
        const simple: Record<number, number> = { 110: 0x0a, 114: 0x0d, 116: 0x09, 98: 0x08, 102: 0x0c };
        if (e in simple) out.push(simple[e]!);
        else if (e >= 0x30 && e <= 0x37) {
          let octal = e - 0x30;
          for (let i = 0; i < 2 && b[this.pos]! >= 0x30 && b[this.pos]! <= 0x37; i++)
            octal = octal * 8 + (b[this.pos++]! - 0x30);
          out.push(octal & 0xff);
        } else if (e === 0x0d) {
          if (b[this.pos] === 0x0a) this.pos++;
        } else if (e !== 0x0a) out.push(e);
      } else if (c === 0x28) {
        depth++;
        out.push(c);
      } else if (c === 0x29) {
        if (depth === 0) break;
        depth--;
        out.push(c);
      } else out.push(c);
    }
    return Uint8Array.from(out);
  }

  private hexString(): Uint8Array {
    const b = this.bytes;
    this.pos++; // <
    let digits = '';
    while (this.pos < b.length && b[this.pos] !== 0x3e) {
      const ch = String.fromCharCode(b[this.pos++]!);
      if (/[0-9a-f]/i.test(ch)) digits += ch;
    }
    this.pos++; // >
    if (digits.length % 2) digits += '0';
    return Uint8Array.from(digits.match(/../g) ?? [], (pair) => parseInt(pair, 16));
  }

  /** After the ID operator: skip the image's binary data up to the EI that ends it. */
  skipInlineImageData(): number {
    const b = this.bytes;
    this.pos++; // the one whitespace byte after ID
    for (let i = this.pos; i + 1 < b.length; i++) {
      if (
        b[i] === 0x45 &&
        b[i + 1] === 0x49 &&
        WHITESPACE.has(b[i - 1]!) &&
        (i + 2 >= b.length || WHITESPACE.has(b[i + 2]!) || DELIMITERS.has(b[i + 2]!))
      ) {
        this.pos = i + 2;
        return this.pos;
      }
    }
    this.pos = b.length;
    return this.pos;
  }
}

function latin1(bytes: Uint8Array): string {
  let s = '';
  for (const byte of bytes) s += String.fromCharCode(byte);
  return s;
}

function decodeName(raw: string): string {
  return raw.replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The operations of a content stream, in order. */
export function parseContent(bytes: Uint8Array): ContentOperation[] {
  const lexer = new Lexer(bytes);
  const operations: ContentOperation[] = [];
  // Operand stack: values, and open arrays/dictionaries being filled.
  type Frame = { what: '[' | '<<'; items: ContentValue[]; start: number };
  let operands: ContentValue[] = [];
  let operandsStart: number | undefined;
  const frames: Frame[] = [];
  const push = (value: ContentValue, start: number) => {
    const frame = frames.at(-1);
    if (frame) frame.items.push(value);
    else {
      if (operandsStart === undefined) operandsStart = start;
      operands.push(value);
    }
  };
  for (let token = lexer.next(); token; token = lexer.next()) {
    if (token.kind === 'value') push(token.value, token.start);
    else if (token.kind === 'open') frames.push({ what: token.what, items: [], start: token.start });
    else if (token.kind === 'close') {
      const frame = frames.pop();
      if (!frame) continue;
      if (frame.what === '[') push(frame.items, frame.start);
      else {
        const dict: ContentDict = {};
        for (let i = 0; i + 1 < frame.items.length; i += 2) {
          const key = frame.items[i];
          if (typeof key === 'string' && key.startsWith('/')) dict[key] = frame.items[i + 1]!;
        }
        push(dict, frame.start);
      }
    } else {
      if (frames.length) {
        // An operator inside an array or dictionary: malformed; drop the open frames.
        frames.length = 0;
      }
      const start = operandsStart ?? token.start;
      let end = token.end;
      if (token.word === 'ID') end = lexer.skipInlineImageData();
      operations.push({ operator: token.word === 'ID' ? 'EI' : token.word, operands, start, end });
      operands = [];
      operandsStart = undefined;
    }
  }
  return operations;
}

/** `bytes` without the byte ranges given (sorted or not; overlapping ranges are merged). */
export function cutRanges(bytes: Uint8Array, ranges: ReadonlyArray<{ start: number; end: number }>): Uint8Array {
  const sorted = [...ranges].sort((a, b) => a.start - b.start);
  const parts: Uint8Array[] = [];
  let at = 0;
  for (const { start, end } of sorted) {
    if (end <= at) continue;
    if (start > at) parts.push(bytes.subarray(at, start));
    at = Math.max(at, end);
  }
  parts.push(bytes.subarray(at));
  // A line break where a cut was, so the operations either side never run together.
  return joinLines(parts);
}

/** Byte arrays joined with a line break between each two: content streams that follow one another. */
export function joinLines(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(Math.max(0, parts.reduce((n, p) => n + p.length + 1, 0) - 1));
  let offset = 0;
  for (const [i, part] of parts.entries()) {
    if (i) out[offset++] = 0x0a;
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
