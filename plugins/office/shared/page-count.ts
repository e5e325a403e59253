/**
 * How many pages LibreOffice will lay a DOCX, PPTX or XLSX out to, read without laying it out:
 * - the count its authoring program saved in docProps/app.xml (`<Pages>`, `<Slides>`), read from the ZIP's central
 *   directory and that one small member (savedPageCount);
 * - an estimate from the content, because a saved count can be missing (XLSX has none; pandoc writes none) or
 *   stale (a Word file of 240,000 characters saved as 1 page lays out to 180): a document's text characters at
 *   3,000 a page plus its explicit page and section breaks; a presentation's slide parts; a sheet's pages of 10
 *   columns by 50 rows (A4 or Letter at the default column width and row height) that hold a cell (an empty page is
 *   not printed), a print scale and a fit-to-page setting honoured.
 * officePageCount is the larger of the two. Against LibreOffice's pages on Apache POI's test files past 10 pages, the
 * estimate is 0.45-1.0 times on 126 Word files and 0.25-1.45 times on 247 workbooks: an estimate that overshot would
 * refuse at the page limit a file LibreOffice could convert, one far under would leave it short of time.
 * Reading is streamed and stops after MAX_XML_BYTES of inflated XML, the rest extrapolated from the declared sizes.
 */
import { StringDecoder } from 'node:string_decoder';
import yauzl from 'yauzl';
import type { PluginInput } from '../../../core/contract/index.js';

const APP_PROPERTIES = 'docProps/app.xml';
/** app.xml is a few hundred bytes; anything far larger is not one worth reading here. */
const MAX_APP_XML_BYTES = 256 * 1024;
/** Members looked through (a real package has tens to a few thousand). */
const MAX_ENTRIES_SCANNED = 10_000;
/** Inflated XML read per file for the estimate (a 500-page Word file's document.xml is 5-30 MB). */
const MAX_XML_BYTES = 64 * 1024 * 1024;
const COUNT_ELEMENT: Partial<Record<string, RegExp>> = {
  docx: /<(?:\w+:)?Pages>\s*(\d{1,9})\s*</,
  pptx: /<(?:\w+:)?Slides>\s*(\d{1,9})\s*</,
};

/** Text characters (not counting white space) of a dense page of body text: few pages hold more. */
export const CHARACTERS_PER_PAGE = 3_000;
/** Columns and rows on one printed page of a sheet at the default column width and row height. */
export const SHEET_COLUMNS_PER_PAGE = 10;
export const SHEET_ROWS_PER_PAGE = 50;

const WORD_DOCUMENT = 'word/document.xml';
const SLIDE = /^ppt\/slides\/slide\d+\.xml$/;
const WORKSHEET = /^xl\/worksheets\/[^/]+\.xml$/;
const CHARTSHEET = /^xl\/chartsheets\/[^/]+\.xml$/;

/** The page or slide count saved in docProps/app.xml of a DOCX or PPTX; undefined when absent or unreadable. */
export async function savedPageCount(input: PluginInput, signal: AbortSignal): Promise<number | undefined> {
  return (await readPackage(input, signal, false))?.saved;
}

/**
 * The pages LibreOffice will lay a DOCX, PPTX or XLSX out to: the saved count or the content's estimate, whichever
 * is larger; undefined for other formats or a file that is not a readable package.
 */
export async function officePageCount(input: PluginInput, signal: AbortSignal): Promise<number | undefined> {
  const found = await readPackage(input, signal, true);
  if (!found) return undefined;
  const counts = [found.saved, found.estimate].filter((count): count is number => count !== undefined);
  return counts.length ? Math.max(...counts) : undefined;
}

interface PackageCounts {
  saved?: number;
  estimate?: number;
}

const ESTIMATED = new Set(['docx', 'pptx', 'xlsx']);

/** The saved count, and with `estimate` the content's estimate, of a DOCX, PPTX or XLSX. */
async function readPackage(
  input: PluginInput,
  signal: AbortSignal,
  estimate: boolean,
): Promise<PackageCounts | undefined> {
  const format = input.format;
  if (!(estimate ? ESTIMATED.has(format) : COUNT_ELEMENT[format])) return undefined;
  let zip: yauzl.ZipFile | undefined;
  try {
    zip = await yauzl.openPromise(input.path, { lazyEntries: true, autoClose: false, validateEntrySizes: true });
    const found: PackageCounts = {};
    const budget = new XmlBudget();
    const sheets = new SheetPages();
    let document: DocumentPages | undefined;
    let slides = 0;
    let scanned = 0;
    for await (const entry of zip.eachEntry()) {
      signal.throwIfAborted();
      if (++scanned > MAX_ENTRIES_SCANNED) return undefined;
      const name = entry.fileName;
      if (name === APP_PROPERTIES && COUNT_ELEMENT[format]) {
        if (entry.uncompressedSize > MAX_APP_XML_BYTES) continue;
        const count = COUNT_ELEMENT[format].exec(await readAll(zip, entry))?.[1];
        if (count !== undefined) found.saved = Number(count);
        if (!estimate) return found;
      } else if (estimate && format === 'docx' && name === WORD_DOCUMENT) {
        document = new DocumentPages();
        await scanXml(zip, entry, budget, document, signal);
      } else if (estimate && format === 'pptx' && SLIDE.test(name)) {
        slides++;
      } else if (estimate && format === 'xlsx' && WORKSHEET.test(name)) {
        await scanXml(zip, entry, budget, sheets.next(), signal);
      } else if (estimate && format === 'xlsx' && CHARTSHEET.test(name)) {
        sheets.chartsheets++;
      }
    }
    if (format === 'docx' && document) found.estimate = budget.extrapolate(document.pages());
    if (format === 'pptx' && slides) found.estimate = slides;
    if (format === 'xlsx' && sheets.count) found.estimate = budget.extrapolate(sheets.pages());
    return found;
  } catch (err) {
    if (signal.aborted) throw err;
    return undefined;
  } finally {
    zip?.close();
  }
}

async function readAll(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The inflated bytes read so far against MAX_XML_BYTES, and the declared bytes of the parts meant to be read. */
class XmlBudget {
  read = 0;
  declared = 0;
  get exhausted(): boolean {
    return this.read >= MAX_XML_BYTES;
  }
  /** `pages` scaled to all declared bytes when reading stopped early. */
  extrapolate(pages: number): number {
    const scaled = this.read > 0 && this.declared > this.read ? (pages * this.declared) / this.read : pages;
    return Math.max(1, Math.ceil(scaled));
  }
}

/** Receives an XML part's text between tags and each tag (without `<` and `>`, at most MAX_TAG characters). */
interface XmlCounter {
  text(segment: string): void;
  tag(tag: string): void;
}
const MAX_TAG = 512;

/** Streams one part through `counter`: text runs and tags, split on `<` and `>`, within the budget. */
async function scanXml(
  zip: yauzl.ZipFile,
  entry: yauzl.Entry,
  budget: XmlBudget,
  counter: XmlCounter,
  signal: AbortSignal,
): Promise<void> {
  budget.declared += entry.uncompressedSize;
  if (budget.exhausted) return;
  const stream = await zip.openReadStreamPromise(entry);
  const decoder = new StringDecoder('utf8');
  let inTag = false;
  let tag = '';
  try {
    for await (const chunk of stream) {
      signal.throwIfAborted();
      budget.read += (chunk as Buffer).length;
      const text = decoder.write(chunk as Buffer);
      let at = 0;
      while (at < text.length) {
        if (inTag) {
          const end = text.indexOf('>', at);
          const stop = end === -1 ? text.length : end;
          if (tag.length < MAX_TAG) tag += text.slice(at, Math.min(stop, at + MAX_TAG - tag.length));
          if (end === -1) break;
          counter.tag(tag);
          tag = '';
          inTag = false;
          at = end + 1;
        } else {
          const start = text.indexOf('<', at);
          counter.text(text.slice(at, start === -1 ? text.length : start));
          if (start === -1) break;
          inTag = true;
          at = start + 1;
        }
      }
      if (budget.exhausted) break;
    }
  } finally {
    stream.destroy();
  }
}

/** Characters of `text` that are not XML white space (space, tab, line feed, carriage return). */
function countNonSpace(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code !== 0x20 && code !== 0x0a && code !== 0x09 && code !== 0x0d) count++;
  }
  return count;
}

/** A Word document: its text characters, explicit page breaks and sections. */
class DocumentPages implements XmlCounter {
  characters = 0;
  breaks = 0;
  sections = 0;
  text(segment: string): void {
    if (segment) this.characters += countNonSpace(segment);
  }
  tag(tag: string): void {
    const name = /^(?:\w+:)?(\w+)/.exec(tag)?.[1];
    if (name === 'br' && /\btype="page"/.test(tag)) this.breaks++;
    else if (name === 'pageBreakBefore' && !/\bval="(?:0|false|off)"/.test(tag)) this.breaks++;
    else if (name === 'sectPr') this.sections++;
  }
  pages(): number {
    return Math.ceil(this.characters / CHARACTERS_PER_PAGE) + this.breaks + Math.max(0, this.sections - 1);
  }
}

/** The sheets of a workbook, one SheetExtent each, and its chart sheets (a page each). */
class SheetPages {
  private readonly sheets: SheetExtent[] = [];
  chartsheets = 0;
  get count(): number {
    return this.sheets.length + this.chartsheets;
  }
  next(): SheetExtent {
    const sheet = new SheetExtent();
    this.sheets.push(sheet);
    return sheet;
  }
  pages(): number {
    return this.sheets.reduce((sum, sheet) => sum + sheet.pages(), 0) + this.chartsheets;
  }
}

/** Column number of a cell reference's letters: A = 1, XFD = 16384. */
function columnNumber(letters: string): number {
  let column = 0;
  for (const letter of letters) column = column * 26 + (letter.charCodeAt(0) - 64);
  return column;
}

const attribute = (tag: string, name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1];

/** Distinct page blocks remembered per sheet: far past any page limit, so a huge sparse sheet costs little memory. */
const MAX_BLOCKS = 100_000;

/**
 * One worksheet: the cells holding something (not self-closing), the rows and columns they reach, the page blocks
 * (SHEET_COLUMNS_PER_PAGE by SHEET_ROWS_PER_PAGE at its print scale) they fall in, and its page setup.
 */
class SheetExtent implements XmlCounter {
  rows = 0;
  columns = 0;
  private readonly blocks = new Set<number>();
  private row = 0;
  private column = 0;
  private fitToPage = false;
  private fitToWidth = 1;
  private fitToHeight = 1;
  private scale = 100;
  text(): void {}
  tag(tag: string): void {
    const name = /^(?:\w+:)?(\w+)/.exec(tag)?.[1];
    if (name === 'row') {
      const r = Number(attribute(tag, 'r'));
      this.row = Number.isInteger(r) && r > 0 ? r : this.row + 1;
      this.column = 0;
    } else if (name === 'c') {
      const reference = /^([A-Z]{1,3})(\d{1,7})$/.exec(attribute(tag, 'r') ?? '');
      this.column = reference ? columnNumber(reference[1]!) : this.column + 1;
      if (reference) this.row = Number(reference[2]);
      if (tag.endsWith('/')) return;
      this.rows = Math.max(this.rows, this.row);
      this.columns = Math.max(this.columns, this.column);
      // The scale is known only after the cells (pageSetup follows sheetData): blocks at 100%, rescaled in pages().
      if (this.blocks.size < MAX_BLOCKS)
        this.blocks.add(
          Math.floor((this.row - 1) / SHEET_ROWS_PER_PAGE) * 1_000_000 +
            Math.floor((this.column - 1) / SHEET_COLUMNS_PER_PAGE),
        );
    } else if (name === 'pageSetUpPr') {
      this.fitToPage = /^(?:1|true)$/.test(attribute(tag, 'fitToPage') ?? '');
    } else if (name === 'pageSetup') {
      const number = (key: string, fallback: number) => {
        const value = Number(attribute(tag, key) ?? fallback);
        return Number.isFinite(value) && value >= 0 ? value : fallback;
      };
      this.fitToWidth = number('fitToWidth', 1);
      this.fitToHeight = number('fitToHeight', 1);
      this.scale = Math.min(400, Math.max(10, number('scale', 100)));
    }
  }
  /** Pages holding at least one cell (an empty page is not printed), within a fit-to-page setting. */
  pages(): number {
    if (!this.blocks.size) return 0;
    // At a print scale under 100% a page holds more blocks (2 by 2 at 50%); over 100%, part of one.
    const perPage = 100 / this.scale;
    const scaled = new Set<number>();
    for (const block of this.blocks) {
      const down = Math.floor(block / 1_000_000);
      const across = block % 1_000_000;
      scaled.add(Math.floor(down / perPage) * 1_000_000 + Math.floor(across / perPage));
    }
    let pages = perPage >= 1 ? scaled.size : Math.ceil(this.blocks.size * perPage ** -2);
    if (this.fitToPage) {
      const across = this.fitToWidth || Math.ceil(this.columns / SHEET_COLUMNS_PER_PAGE);
      const down = this.fitToHeight || Math.ceil(this.rows / SHEET_ROWS_PER_PAGE);
      pages = Math.min(pages, across * down);
    }
    return pages;
  }
}
