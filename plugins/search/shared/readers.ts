/**
 * One reader per file family: each feeds the file's text to the collector segment by segment,
 * with a location a person can find again. A file that cannot be read (damaged, encrypted)
 * throws PluginError, which the plugin turns into the row's `error`; anything else (abort,
 * timeout, a missing engine) propagates and fails the run.
 */
import { createReadStream } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { PluginError, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import { decodeTextChunks } from '../../../core/contract/text.js';
import { pdfTextToFile } from '../../../core/engines/poppler.js';
import { recognizeText } from '../../../core/engines/tesseract.js';
import { readGuardedWorkbook } from '../../../core/engines/workbook.js';
import { MB } from '../../../schema/index.js';
import type { SearchableFormat } from './formats.js';
import type { MatchCollector } from './match.js';
import { spreadsheetCells } from './ods.js';
import { OPEN_DOCUMENT, WORD, paragraphTexts, type BodyDialect } from './xml.js';
import { readZipMember } from './zip.js';

/** What an XLSX's parts may inflate to together before ExcelJS is given it. */
const MAX_XLSX_INFLATED_BYTES = 200 * MB;

export type Reader = (input: PluginInput, collector: MatchCollector, ctx: RunContext) => Promise<void>;

/**
 * Text line by line ("line 4"): UTF-16 LE/BE by its BOM, else UTF-8 (BOM dropped); invalid bytes
 * decode to U+FFFD rather than failing.
 */
export const readTextLines: Reader = async (input, collector, ctx) => {
  const text = Readable.from(decodeTextChunks(createReadStream(input.path, { signal: ctx.signal })));
  const lines = createInterface({ input: text, crlfDelay: Infinity });
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber += 1;
    collector.search(`line ${lineNumber}`, line);
  }
};

/** The text layer page by page ("page 3"): pdftotext ends every page with a form feed. */
export const readPdfPages: Reader = async (input, collector, ctx) => {
  // A fresh directory: the input itself may sit in the work dir, under any name.
  const textFile = path.join(await mkdtemp(path.join(ctx.workDir, 'search-')), 'text.txt');
  // An encrypted, copy-protected or unreadable PDF is a PluginError (the row's error).
  await pdfTextToFile(input.path, textFile, ctx);
  let pageNumber = 0;
  let hasText = false;
  let pending = '';
  const searchPage = (text: string) => {
    pageNumber += 1;
    hasText ||= /\S/.test(text);
    collector.search(`page ${pageNumber}`, text);
  };
  for await (const chunk of createReadStream(textFile, { encoding: 'utf8', signal: ctx.signal })) {
    const pages = (pending + (chunk as string)).split('\f');
    pending = pages.pop() ?? '';
    pages.forEach(searchPage);
  }
  if (/\S/.test(pending)) searchPage(pending);
  if (!hasText)
    throw new PluginError(
      'The PDF has no text layer (it may be scanned): run op ocr on it first, then search the result',
    );
};

/** Let timers, and so the abort signal, run during a long synchronous walk over a document. */
async function* withBreaks<T>(items: Iterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  let seen = 0;
  for (const item of items) {
    seen += 1;
    if (seen % 1000 === 0) {
      await new Promise(setImmediate);
      signal.throwIfAborted();
    }
    yield item;
  }
}

/** A word-processing body paragraph by paragraph ("paragraph 12", counting paragraphs that hold text). */
function documentReader(member: string, dialect: BodyDialect, label: string): Reader {
  return async (input, collector, ctx) => {
    const xml = await readZipMember(input.path, member, ctx.signal, label);
    if (xml === undefined)
      throw new PluginError(`The file could not be read: it is not a valid ${label} (no ${member})`);
    let paragraphNumber = 0;
    for await (const text of withBreaks(paragraphTexts(xml, dialect), ctx.signal)) {
      if (!/\S/.test(text)) continue;
      paragraphNumber += 1;
      collector.search(`paragraph ${paragraphNumber}`, text);
    }
  };
}

export const readDocx = documentReader('word/document.xml', WORD, 'Word document');
export const readOdt = documentReader('content.xml', OPEN_DOCUMENT, 'OpenDocument text');

/** A sheet name as a formula would write it: quoted when it is not a plain identifier. */
function sheetReference(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_.]*$/.test(name) ? name : `'${name.replaceAll("'", "''")}'`;
}

/** What the cell shows, near enough: dates as ISO dates, formulas by their result. */
function cellText(cell: ExcelJS.Cell): string {
  const value = cell.value;
  if (value instanceof Date) {
    const iso = value.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
  }
  return cell.text;
}

/** Every cell of every sheet ("Sheet1!B4"); a merged range is searched once, at its top-left cell. */
export const readXlsx: Reader = async (input, collector, ctx) => {
  const workbook = await readGuardedWorkbook(input.path, {
    maxInflatedBytes: MAX_XLSX_INFLATED_BYTES,
    maxEntries: 10_000,
    label: 'workbook',
    signal: ctx.signal,
    unreadable:
      'The file could not be read: it is not a valid Excel workbook (damaged, password-protected or not XLSX)',
  });
  // exceljs reads any ZIP (a DOCX, say) as a workbook without sheets; a real workbook has one.
  if (workbook.worksheets.length === 0)
    throw new PluginError('The file could not be read: it is not a valid Excel workbook (no worksheets)');
  for (const sheet of workbook.worksheets) {
    ctx.signal.throwIfAborted();
    const sheetName = sheetReference(sheet.name);
    sheet.eachRow((row) => {
      row.eachCell((cell) => {
        if (cell.type !== ExcelJS.ValueType.Merge) collector.search(`${sheetName}!${cell.address}`, cellText(cell));
      });
    });
  }
};

/** Every non-empty cell of every sheet ("Sheet1!B4"). */
export const readOds: Reader = async (input, collector, ctx) => {
  const xml = await readZipMember(input.path, 'content.xml', ctx.signal, 'OpenDocument spreadsheet');
  if (xml === undefined)
    throw new PluginError('The file could not be read: it is not a valid OpenDocument spreadsheet (no content.xml)');
  for await (const cell of withBreaks(spreadsheetCells(xml), ctx.signal)) {
    collector.search(`${sheetReference(cell.sheet)}!${cell.address}`, cell.text);
  }
};

/** OCR with tesseract (English), line by line of the recognised text ("line 3"). */
export const readImage: Reader = async (input, collector, ctx) => {
  // A damaged image is a PluginError (the row's error); missing language data fails the run.
  const text = await recognizeText(input.path, ctx);
  const lines = text.split('\n').filter((line) => /\S/.test(line));
  for (const [index, line] of lines.entries()) collector.search(`line ${index + 1}`, line);
};

/** How each searchable format is read; its row's `kind` is in formats.ts. */
export const READERS = {
  txt: readTextLines,
  md: readTextLines,
  csv: readTextLines,
  json: readTextLines,
  pdf: readPdfPages,
  docx: readDocx,
  odt: readOdt,
  xlsx: readXlsx,
  ods: readOds,
  png: readImage,
  jpg: readImage,
  jpeg: readImage,
  tiff: readImage,
  webp: readImage,
} as const satisfies Record<SearchableFormat, Reader>;
