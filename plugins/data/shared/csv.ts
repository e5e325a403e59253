/**
 * CSV reading and writing shared by data-convert and repair-csv: encoding detection (UTF-8 with or
 * without BOM, UTF-16 with BOM, else Windows-1252/Latin-1), delimiter detection (comma, semicolon,
 * tab) and an RFC 4180 writer (comma, CRLF, quotes only where needed).
 */
import { readFile, stat } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import { PluginError, type PluginInput } from '../../../core/contract/index.js';
import { MB, megabytes } from '../../../schema/index.js';

/** Rows a data run reads or writes at most (the header row not counted). */
export const MAX_ROWS = 1_000_000;
/** Largest text input (CSV, JSON) read, in bytes: the whole file is decoded in memory. */
export const MAX_TEXT_BYTES = 100 * MB;

export type Delimiter = ',' | ';' | '\t';
const DELIMITERS: readonly Delimiter[] = [',', ';', '\t'];

/** Read a text input within MAX_TEXT_BYTES and decode it (see decodeText). */
export async function readTextInput(
  input: PluginInput,
  signal: AbortSignal,
): Promise<{ text: string; encoding: string }> {
  signal.throwIfAborted();
  const { size } = await stat(input.path);
  if (size > MAX_TEXT_BYTES)
    throw new PluginError(`File is too large: ${megabytes(size)} MB (limit ${megabytes(MAX_TEXT_BYTES)} MB)`);
  const bytes = await readFile(input.path, { signal });
  return decodeText(bytes);
}

/**
 * UTF-8 (BOM stripped); UTF-16 when it starts with its BOM; otherwise Windows-1252 (a superset of Latin-1's printable
 * range).
 */
export function decodeText(bytes: Uint8Array): { text: string; encoding: string } {
  if (bytes[0] === 0xff && bytes[1] === 0xfe)
    return { text: new TextDecoder('utf-16le').decode(bytes.subarray(2)), encoding: 'utf-16le' };
  if (bytes[0] === 0xfe && bytes[1] === 0xff)
    return { text: new TextDecoder('utf-16be').decode(bytes.subarray(2)), encoding: 'utf-16be' };
  const body = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body), encoding: 'utf-8' };
  } catch {
    return { text: decodeWindows1252(body), encoding: 'windows-1252' };
  }
}

// 0x80-0x9F in Windows-1252 (undefined bytes kept as the C1 control of the same value).
const CP1252_HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';

/** Windows-1252 by hand: Node's TextDecoder treats that label as ISO-8859-1 (no € etc.). */
function decodeWindows1252(bytes: Uint8Array): string {
  const latin1 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  return latin1.replace(/[\u0080-\u009f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]!);
}

/**
 * The delimiter of a CSV text: the candidate whose count per record (outside quotes, over the
 * first 50 records) is most often the same non-zero number, ties going to comma, then semicolon.
 */
export function detectDelimiter(text: string): Delimiter {
  const counts = new Map<Delimiter, number[]>(DELIMITERS.map((d) => [d, [0]]));
  let inQuotes = false;
  let records = 0;
  const end = Math.min(text.length, 256 * 1024);
  for (let i = 0; i < end && records < 50; i++) {
    const ch = text[i]!;
    if (ch === '"')
      inQuotes = !inQuotes; // a doubled quote toggles twice: no change
    else if (!inQuotes && (ch === '\n' || ch === '\r')) {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      records++;
      for (const list of counts.values()) list.push(0);
    } else if (!inQuotes && (ch === ',' || ch === ';' || ch === '\t')) {
      const list = counts.get(ch)!;
      list[list.length - 1]!++;
    }
  }
  let best: Delimiter = ',';
  let bestScore = 0;
  for (const delimiter of DELIMITERS) {
    const list = counts.get(delimiter)!;
    // A trailing newline leaves an empty last record: ignore it.
    const perRecord = list.length > 1 && list[list.length - 1] === 0 ? list.slice(0, -1) : list;
    const frequency = new Map<number, number>();
    for (const n of perRecord) if (n > 0) frequency.set(n, (frequency.get(n) ?? 0) + 1);
    let score = 0;
    for (const [n, times] of frequency) score = Math.max(score, times * 1_000_000 + n);
    if (score > bestScore) [best, bestScore] = [delimiter, score];
  }
  return best;
}

/**
 * Every record of a CSV text as arrays of strings: quotes honoured (fields may hold newlines),
 * stray quotes inside unquoted fields kept as text, ragged rows kept, blank lines skipped.
 * PluginError past MAX_ROWS + 1 records (header included) or on an unclosed quote.
 */
export function parseCsv(text: string, delimiter: Delimiter = detectDelimiter(text)): string[][] {
  let records: string[][];
  try {
    records = parse(text, {
      delimiter,
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: true,
      to: MAX_ROWS + 2,
    }) as string[][];
  } catch (err) {
    throw new PluginError(`Could not read the CSV: ${(err as Error).message}`, { cause: err });
  }
  if (records.length > MAX_ROWS + 1)
    throw new PluginError(`Too many rows: the limit is ${MAX_ROWS.toLocaleString('en-US')} rows`);
  return records;
}

/** One field, quoted only when it must be (RFC 4180: delimiter, quote, CR or LF inside). */
function field(value: string, alone: boolean): string {
  // A lone empty field would read back as a blank line, which is skipped: quote it.
  if (/[",\r\n]/.test(value) || (alone && value === '')) return `"${value.replaceAll('"', '""')}"`;
  return value;
}

/** RFC 4180 text: comma-separated, CRLF after every record, minimal quoting. */
export function* csvLines(rows: Iterable<readonly string[]>): Generator<string> {
  for (const row of rows) yield `${row.map((v) => field(v, row.length === 1)).join(',')}\r\n`;
}

export function stringifyCsv(rows: Iterable<readonly string[]>): string {
  let out = '';
  for (const line of csvLines(rows)) out += line;
  return out;
}
