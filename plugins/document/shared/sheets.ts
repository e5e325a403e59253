/**
 * Spreadsheets -> document model: one section per sheet holding one table of its used range
 * (merged cells as spans), XLSX through ExcelJS behind the ZIP guard, ODS from its content.xml,
 * CSV as one sheet. A sheet's first row counts as its header row when the sheet has more rows.
 */
import { readFile, stat } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import type ExcelJS from 'exceljs';
import { cleanText, finishDocument, type DraftBlock } from '../../../core/contract/document/index.js';
import { PluginError } from '../../../core/contract/index.js';
import { decodeUnicode } from '../../../core/contract/text.js';
import { readGuardedWorkbook } from '../../../core/engines/workbook.js';
import type { TableCell } from '../../../schema/index.js';
import { MAX_CELLS, MAX_INFLATED_BYTES, MAX_PARTS, MAX_SHEETS, MAX_TEXT_BYTES } from './family.js';
import { openPackage } from './package.js';
import { child, descendants, elements, type XmlElement } from './xml.js';

interface Sheet {
  name: string;
  /** Rows of cells as HTML lists them (a cell covered by a span left out). */
  rows: TableCell[][];
}

function sheetSections(sheets: Sheet[]): DraftBlock[] {
  if (sheets.length > MAX_SHEETS)
    throw new PluginError(`The workbook has ${sheets.length} sheets (limit ${MAX_SHEETS})`);
  return sheets.map(
    (sheet, index) =>
      ({
        type: 'section',
        kind: 'sheet',
        number: index + 1,
        title: sheet.name,
        children: sheet.rows.length
          ? [{ type: 'table', rows: sheet.rows, headerRows: sheet.rows.length > 1 ? 1 : 0, name: sheet.name }]
          : [],
      }) as DraftBlock,
  );
}

let cellBudget = 0;
const countCells = (n: number) => {
  cellBudget += n;
  if (cellBudget > MAX_CELLS)
    throw new PluginError(`The workbook holds more than ${MAX_CELLS.toLocaleString('en-US')} cells`);
};

function excelText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) {
    const iso = value.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
  }
  if ('richText' in value) return value.richText.map((part) => part.text).join('');
  if ('formula' in value || 'sharedFormula' in value)
    return excelText((value as ExcelJS.CellFormulaValue).result as ExcelJS.CellValue);
  if ('hyperlink' in value)
    return typeof value.text === 'string' ? value.text : excelText(value.text as ExcelJS.CellValue);
  if ('error' in value) return String(value.error);
  return '';
}

/** "B2:C4" -> 0-based rows and columns. */
function rangeOf(ref: string): { top: number; left: number; bottom: number; right: number } | undefined {
  const match = /^\$?([A-Z]+)\$?(\d+):\$?([A-Z]+)\$?(\d+)$/.exec(ref);
  if (!match) return undefined;
  const col = (letters: string) => [...letters].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0) - 1;
  return { left: col(match[1]!), top: Number(match[2]) - 1, right: col(match[3]!), bottom: Number(match[4]) - 1 };
}

/** A grid of texts with merged ranges -> rows of cells with spans, trimmed to the used range. */
function withSpans(
  grid: string[][],
  merges: { top: number; left: number; bottom: number; right: number }[],
): TableCell[][] {
  const used = (r: number) => grid[r]?.some((text) => text !== '') ?? false;
  let last = grid.length - 1;
  while (last >= 0 && !used(last) && !merges.some((m) => m.top <= last && m.bottom >= last)) last--;
  let first = 0;
  while (first <= last && !used(first) && !merges.some((m) => m.top <= first && m.bottom >= first)) first++;
  const width = Math.max(
    0,
    ...grid.slice(first, last + 1).map((row) => {
      let w = row.length;
      while (w > 0 && row[w - 1] === '') w--;
      return w;
    }),
    ...merges.map((m) => m.right + 1),
  );
  // Columns left of everything the sheet uses are no part of its table (a table set at C3).
  let left = 0;
  const usedAt = (c: number) =>
    grid.slice(first, last + 1).some((row) => (row[c] ?? '') !== '') || merges.some((m) => m.left <= c && m.right >= c);
  while (left < width && !usedAt(left)) left++;
  const covered = new Set<string>();
  const spans = new Map<string, { rowSpan: number; colSpan: number }>();
  for (const m of merges) {
    spans.set(`${m.top},${m.left}`, { rowSpan: m.bottom - m.top + 1, colSpan: m.right - m.left + 1 });
    for (let r = m.top; r <= m.bottom; r++)
      for (let c = m.left; c <= m.right; c++) if (r !== m.top || c !== m.left) covered.add(`${r},${c}`);
  }
  const rows: TableCell[][] = [];
  for (let r = first; r <= last; r++) {
    const cells: TableCell[] = [];
    for (let c = left; c < width; c++) {
      if (covered.has(`${r},${c}`)) continue;
      const span = spans.get(`${r},${c}`);
      const rowSpan = span ? Math.min(span.rowSpan, last - r + 1) : 1;
      cells.push({
        text: cleanText(grid[r]?.[c] ?? ''),
        ...(rowSpan > 1 ? { rowSpan } : {}),
        ...(span && span.colSpan > 1 ? { colSpan: span.colSpan } : {}),
      });
    }
    rows.push(cells);
  }
  countCells(rows.reduce((n, row) => n + row.length, 0));
  return rows;
}

async function readXlsx(file: string, signal: AbortSignal): Promise<Sheet[]> {
  const workbook = await readGuardedWorkbook(file, {
    maxInflatedBytes: MAX_INFLATED_BYTES,
    maxEntries: MAX_PARTS,
    label: 'spreadsheet',
    signal,
    unreadable: 'Could not read the spreadsheet: it is damaged or not an XLSX workbook',
  });
  if (!workbook.worksheets.length) throw new PluginError('The workbook has no worksheet');
  return workbook.worksheets.map((sheet) => {
    signal.throwIfAborted();
    if (sheet.rowCount * Math.max(1, sheet.columnCount) > MAX_CELLS * 4)
      throw new PluginError(`A sheet holds more than ${MAX_CELLS.toLocaleString('en-US')} cells`);
    const grid: string[][] = [];
    for (let r = 1; r <= sheet.rowCount; r++) {
      const row = sheet.getRow(r);
      const texts: string[] = [];
      for (let c = 1; c <= sheet.columnCount; c++) {
        const cell = row.getCell(c);
        // A merged range's other places repeat its master's value in ExcelJS: only the master holds it.
        texts.push(cell.isMerged && cell.master !== cell ? '' : excelText(cell.value));
      }
      grid.push(texts);
    }
    const merges = ((sheet.model as { merges?: string[] }).merges ?? []).flatMap((ref) => rangeOf(ref) ?? []);
    return { name: sheet.name, rows: withSpans(grid, merges) };
  });
}

function collectText(node: XmlElement): string {
  return node.children.map((c) => (typeof c === 'string' ? c : c.name === 'text:s' ? ' ' : collectText(c))).join('');
}

/** Repeats ODF writes for empty filler (1,048,576 rows of nothing) are cut to what the sheet uses. */
const MAX_REPEAT = 10_000;

async function readOds(file: string, signal: AbortSignal): Promise<Sheet[]> {
  const pkg = await openPackage(file, 'spreadsheet', signal);
  const content = pkg.xml('content.xml');
  if (!content) throw new PluginError('Could not read the spreadsheet: it has no content.xml');
  const spreadsheet = child(child(content, 'office:body'), 'office:spreadsheet');
  if (!spreadsheet) throw new PluginError('Could not read the spreadsheet: it holds no spreadsheet');
  return elements(spreadsheet, 'table:table').map((table) => {
    signal.throwIfAborted();
    const grid: string[][] = [];
    const merges: { top: number; left: number; bottom: number; right: number }[] = [];
    for (const row of descendants(table, 'table:table-row')) {
      const texts: string[] = [];
      const spansHere: { left: number; rows: number; cols: number }[] = [];
      for (const cell of elements(row)) {
        if (cell.name !== 'table:table-cell' && cell.name !== 'table:covered-table-cell') continue;
        const repeat = Math.min(MAX_REPEAT, Number(cell.attrs['table:number-columns-repeated'] ?? 1) || 1);
        const text = cell.name === 'table:table-cell' ? cleanText(collectText(cell)) : '';
        const rows = Number(cell.attrs['table:number-rows-spanned'] ?? 1);
        const cols = Number(cell.attrs['table:number-columns-spanned'] ?? 1);
        if (rows > 1 || cols > 1) spansHere.push({ left: texts.length, rows, cols });
        // Empty repeated filler at a row's end is where most of a sheet's width comes from: keep one.
        for (let i = 0; i < (text ? repeat : Math.min(repeat, 256)); i++) texts.push(text);
      }
      const repeatRows = Math.min(MAX_REPEAT, Number(row.attrs['table:number-rows-repeated'] ?? 1) || 1);
      const empty = texts.every((t) => t === '');
      for (let i = 0; i < (empty ? Math.min(repeatRows, 1) : repeatRows); i++) {
        const top = grid.length;
        for (const s of spansHere)
          merges.push({ top, left: s.left, bottom: top + s.rows - 1, right: s.left + s.cols - 1 });
        grid.push([...texts]);
        if (grid.length > MAX_CELLS)
          throw new PluginError(`A sheet holds more than ${MAX_CELLS.toLocaleString('en-US')} rows`);
      }
    }
    return { name: table.attrs['table:name'] ?? '', rows: withSpans(grid, merges) };
  });
}

async function readCsv(file: string, filename: string, signal: AbortSignal): Promise<Sheet[]> {
  signal.throwIfAborted();
  const { size } = await stat(file);
  if (size > MAX_TEXT_BYTES) throw new PluginError('The CSV file is too large to read as a table');
  const text = decodeUnicode(await readFile(file, { signal }));
  const firstLine = text.slice(0, text.indexOf('\n') === -1 ? text.length : text.indexOf('\n'));
  const counts = [',', ';', '\t'].map((d) => firstLine.split(d).length);
  const delimiter = [',', ';', '\t'][counts.indexOf(Math.max(...counts))]!;
  let records: string[][];
  try {
    records = parse(text, { delimiter, relax_column_count: true, skip_empty_lines: true, bom: true });
  } catch (err) {
    throw new PluginError('The CSV file could not be read: it is not well-formed CSV', { cause: err });
  }
  const grid = records.map((record) => record.map((value) => String(value)));
  return [{ name: filename.replace(/\.[^.]*$/, ''), rows: withSpans(grid, []) }];
}

export async function readSheets(file: string, format: 'xlsx' | 'ods' | 'csv', filename: string, signal: AbortSignal) {
  cellBudget = 0;
  const sheets =
    format === 'xlsx'
      ? await readXlsx(file, signal)
      : format === 'ods'
        ? await readOds(file, signal)
        : await readCsv(file, filename, signal);
  return finishDocument({ source: { format, filename }, body: sheetSections(sheets) });
}
