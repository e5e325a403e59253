/**
 * The tabular model behind data-convert: a header row and rows of cells, read from CSV, JSON or
 * XLSX (first sheet) and written to any of them. CSV cells are strings; JSON and XLSX keep
 * numbers, booleans and empty (null) cells.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import ExcelJS from 'exceljs';
import { PluginError, type PluginInput } from '../../../core/contract/index.js';
import { readGuardedWorkbook } from '../../../core/engines/workbook.js';
import { MB, megabytes } from '../../../schema/index.js';
import { MAX_ROWS, csvLines, parseCsv, readTextInput } from './csv.js';

export type Cell = string | number | boolean | null;

export interface Table {
  header: string[];
  rows: Cell[][];
  /** Cells came from text (CSV): numeric-looking strings may become numbers in XLSX. */
  fromText: boolean;
}

/** Largest XLSX input read, in bytes: the workbook is loaded whole. */
export const MAX_XLSX_BYTES = 30 * MB;
/** What its parts may inflate to together (ExcelJS holds them in memory): above this it is a bomb. */
export const MAX_XLSX_INFLATED_BYTES = 200 * MB;
/** Parts a workbook may have (sheets, styles, media...). */
const MAX_XLSX_PARTS = 10_000;
/** Excel's own column limit (XFD): an XLSX with more cannot be opened. */
export const MAX_XLSX_COLUMNS = 16_384;

const tooManyRows = () => new PluginError(`Too many rows: the limit is ${MAX_ROWS.toLocaleString('en-US')} rows`);

/** Header names made usable as object keys: blanks become column_N, repeats get _2, _3... */
export function uniqueHeader(names: readonly string[], width: number): string[] {
  const seen = new Set<string>();
  // Per base name, the lowest suffix that may still be free: 150,000 equal names stay linear.
  const nextSuffix = new Map<string, number>();
  const header: string[] = [];
  for (let i = 0; i < width; i++) {
    const base = (names[i] ?? '').trim() || `column_${i + 1}`;
    let name = base;
    if (seen.has(name)) {
      let n = nextSuffix.get(base) ?? 2;
      while (seen.has(`${base}_${n}`)) n++;
      name = `${base}_${n}`;
      nextSuffix.set(base, n + 1);
    }
    seen.add(name);
    header.push(name);
  }
  return header;
}

export async function readTable(input: PluginInput, signal: AbortSignal): Promise<Table> {
  switch (input.format) {
    case 'csv':
      return readCsvTable(input, signal);
    case 'json':
      return readJsonTable(input, signal);
    case 'xlsx':
      return readXlsxTable(input, signal);
    default:
      throw new PluginError(`Cannot read ${input.format} as a table`);
  }
}

async function readCsvTable(input: PluginInput, signal: AbortSignal): Promise<Table> {
  const { text } = await readTextInput(input, signal);
  const [first = [], ...rows] = parseCsv(text);
  const width = rows.reduce((max, row) => Math.max(max, row.length), first.length);
  return { header: uniqueHeader(first, width), rows, fromText: true };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

async function readJsonTable(input: PluginInput, signal: AbortSignal): Promise<Table> {
  const { text } = await readTextInput(input, signal);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new PluginError(`Invalid JSON: ${(err as Error).message}`, { cause: err });
  }
  if (!Array.isArray(data))
    throw new PluginError(`JSON must be an array of objects (one per row); got ${describe(data)}`);
  if (data.length > MAX_ROWS) throw tooManyRows();
  const columns = new Map<string, number>();
  for (const [i, item] of data.entries()) {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      throw new PluginError(`JSON must be an array of objects (one per row); item ${i + 1} is ${describe(item)}`);
    }
    for (const key of Object.keys(item)) if (!columns.has(key)) columns.set(key, columns.size);
  }
  const header = [...columns.keys()];
  const rows = (data as Record<string, unknown>[]).map((item) => header.map((key) => jsonCell(item[key])));
  return { header, rows, fromText: false };
}

function jsonCell(value: unknown): Cell {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  try {
    return JSON.stringify(value); // nested arrays and objects stay readable as JSON text
  } catch (err) {
    // JSON.parse takes any depth; JSON.stringify recurses and runs out of stack.
    throw new PluginError('A value in the JSON is nested too deeply to convert', { cause: err });
  }
}

async function readXlsxTable(input: PluginInput, signal: AbortSignal): Promise<Table> {
  signal.throwIfAborted();
  const { size } = await stat(input.path);
  if (size > MAX_XLSX_BYTES)
    throw new PluginError(`Spreadsheet is too large: ${megabytes(size)} MB (limit ${megabytes(MAX_XLSX_BYTES)} MB)`);
  const workbook = await readGuardedWorkbook(input.path, {
    maxInflatedBytes: MAX_XLSX_INFLATED_BYTES,
    maxEntries: MAX_XLSX_PARTS,
    label: 'spreadsheet',
    signal,
    unreadable: 'Could not read the spreadsheet: it is damaged or not an XLSX workbook',
  });
  signal.throwIfAborted();
  const sheet = workbook.worksheets[0];
  if (!sheet) throw new PluginError('The workbook has no worksheet');
  if (sheet.actualRowCount > MAX_ROWS + 1) throw tooManyRows();
  const width = sheet.columnCount;
  const records: Cell[][] = [];
  sheet.eachRow((row) => {
    // eachRow skips empty rows; row.values is 1-based.
    const cells: Cell[] = [];
    for (let c = 1; c <= width; c++) cells.push(xlsxCell(row.getCell(c).value));
    records.push(cells);
  });
  const [first = [], ...rows] = records;
  return {
    header: uniqueHeader(
      first.map((v) => (v === null ? '' : String(v))),
      width,
    ),
    rows,
    fromText: false,
  };
}

/** A date as YYYY-MM-DD when it has no time of day, else full ISO 8601 (UTC, as Excel stores wall time). */
export function dateText(date: Date): string {
  const iso = date.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
}

function xlsxCell(value: ExcelJS.CellValue): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (value instanceof Date) return dateText(value);
  if ('richText' in value) return value.richText.map((part) => part.text).join('');
  if ('formula' in value || 'sharedFormula' in value)
    return xlsxCell((value as ExcelJS.CellFormulaValue).result as ExcelJS.CellValue);
  if ('hyperlink' in value)
    return typeof value.text === 'string' ? value.text : xlsxCell(value.text as ExcelJS.CellValue);
  if ('error' in value) return value.error;
  return JSON.stringify(value);
}

/** Text of a cell for CSV. */
function cellText(cell: Cell | undefined): string {
  return cell === null || cell === undefined ? '' : String(cell);
}

async function writeChunks(file: string, chunks: Iterable<string>, signal: AbortSignal): Promise<void> {
  const out = createWriteStream(file);
  try {
    let buffer = '';
    for (const chunk of chunks) {
      buffer += chunk;
      if (buffer.length >= 1 << 20) {
        signal.throwIfAborted();
        if (!out.write(buffer)) await once(out, 'drain');
        buffer = '';
      }
    }
    out.end(buffer);
    await once(out, 'finish');
  } finally {
    out.destroy();
  }
}

/** An array of objects keyed by the header, cells in header order; missing cells are null. */
export async function writeJson(table: Table, file: string, signal: AbortSignal): Promise<void> {
  // Written by hand, not through an object: a column named __proto__ is data, not a prototype.
  const keys = table.header.map((key) => `${JSON.stringify(key)}:`);
  function* chunks(): Generator<string> {
    yield '[';
    for (const [i, row] of table.rows.entries()) {
      yield `${i ? ',' : ''}\n  {${keys.map((key, c) => key + JSON.stringify(row[c] ?? null)).join(',')}}`;
    }
    yield table.rows.length ? '\n]\n' : ']\n';
  }
  await writeChunks(file, chunks(), signal);
}

export async function writeCsv(table: Table, file: string, signal: AbortSignal): Promise<void> {
  const width = table.header.length;
  function* rows(): Generator<string[]> {
    yield table.header;
    for (const row of table.rows) yield Array.from({ length: Math.max(width, row.length) }, (_, c) => cellText(row[c]));
  }
  await writeChunks(file, csvLines(rows()), signal);
}

/** Canonical decimal numbers only ("12", "-3.5"), so "007" or "1e5" stay text. */
const NUMBER = /^-?(?:0|[1-9]\d{0,14})(?:\.\d{1,15})?$/;

/** XLSX with one sheet, "Sheet1", header row in bold; written as a stream. */
export async function writeXlsx(table: Table, file: string, signal: AbortSignal): Promise<void> {
  const width = table.rows.reduce((max, row) => Math.max(max, row.length), table.header.length);
  if (width > MAX_XLSX_COLUMNS) {
    throw new PluginError(
      `Too many columns for XLSX: ${width.toLocaleString('en-US')} (Excel's limit is ` +
        `${MAX_XLSX_COLUMNS.toLocaleString('en-US')})`,
    );
  }
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useStyles: true, useSharedStrings: false });
  const sheet = workbook.addWorksheet('Sheet1');
  const header = sheet.addRow(table.header);
  header.font = { bold: true };
  header.commit();
  for (const [i, row] of table.rows.entries()) {
    if (i % 10_000 === 0) signal.throwIfAborted();
    const values = row.map((cell) =>
      table.fromText && typeof cell === 'string' && NUMBER.test(cell) && !/\.\d*0$/.test(cell) ? Number(cell) : cell,
    );
    sheet.addRow(values).commit();
  }
  sheet.commit();
  await workbook.commit();
}
