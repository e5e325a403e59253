/**
 * Truth that the real PDFs carry themselves (nothing here is written by the team):
 * - headings: the outline (bookmarks), titles with their destination page (pdfjs);
 * - tables: a tagged file's /Table structure elements, or a "Table N" caption (in the languages of
 *   the corpus, "表 N" included): the file has tables; otherwise, when the file's own source beside
 *   it in the package (same name, .tex/.dtx/.mom/.ms) sets a table (tabular and its kin, tabbing,
 *   \halign, tbl's .TS), it is borderline (an uncaptioned table, or a tabular used for layout);
 *   otherwise it has none;
 * - text: pdftotext's words, page by page, for word recall and reading order;
 * - running lines: the first and last lines of each page (pdftotext -layout) that repeat across
 *   pages once digits are normalised, plus lone page numbers;
 * - two-column pages: pdftotext -layout lines with a blank gutter at the same place mid-page.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { basename, dirname, join } from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { RealPdf } from './corpus.js';

export interface OutlineEntry {
  title: string;
  depth: number;
  page?: number;
}

export interface RealTruth {
  outline: OutlineEntry[];
  tagged: boolean;
  /** Whether the file has tables: 'borderline' when only its source shows one (see tableTruth). */
  tables: TableTruth;
  /** pdftotext text of each page (reading order as poppler sees it). */
  pageTexts: string[];
  /** Running-line keys (runningKey) with how many lines carry each. */
  runningKeys: Record<string, number>;
  runningLines: number;
  /** The running lines of each page as pdftotext -layout prints them (their words are not body text). */
  runningTexts: string[][];
  twoColumnPages: number[];
  /**
   * The text of each two-column page (same order as twoColumnPages) in the reference reading order:
   * pdftotext's lines, read column by column (see columnOrder).
   */
  columnTexts: string[];
}

export type TableTruth = 'yes' | 'borderline' | 'none';

const TRUTH_VERSION = 34;
const ROMAN = /^(?=[ivxlc])c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})$/;

export function runningKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/\d+/g, '#')
    .replace(/[\s·•|—–-]+/g, ' ')
    .trim();
}

function pdftotext(file: string, layout: boolean): string[] {
  const out = execFileSync('pdftotext', [...(layout ? ['-layout'] : []), '-enc', 'UTF-8', file, '-'], {
    encoding: 'utf8',
    maxBuffer: 256 << 20,
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: 120_000,
  });
  const pages = out.split('\f');
  if (pages[pages.length - 1]!.trim() === '') pages.pop();
  return pages;
}

/** Angle brackets as pdfjs reads them (TeX's cmsy ⟨ ⟩ come out as U+3008/9, others as U+27E8/9 or U+2329/A). */
const ANGLE_PAIR = /[\u2329\u27e8\u3008]\s*([^\u2329\u232a\u27e8\u27e9\u3008\u3009\n]{1,40}?)\s*[\u232a\u27e9\u3009]/gu;

/**
 * pdftotext prints a glyph whose name its glyph list lacks by its code. TeX's math symbol fonts
 * (cmsy, OMS encoding) set ⟨ and ⟩ at the codes of h and i and name them angbracketleft/right:
 * pdftotext prints ⟨name⟩ as "hnamei" (or "hname i" after an italic correction), where pdfjs reads
 * the names. Each pair pdfjs reads on a page turns that many of pdftotext's h...i around the same
 * text back into ⟨...⟩; nothing else on the page changes, whatever converter is scored.
 */
export function restoreAngleBrackets(text: string, bracketed: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const inner of bracketed) counts.set(inner, (counts.get(inner) ?? 0) + 1);
  let out = text;
  for (const [inner, count] of [...counts].sort((a, b) => b[0].length - a[0].length || (a[0] < b[0] ? -1 : 1))) {
    const body = inner
      .trim()
      .split(/\s+/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('\\s*');
    let left = count;
    out = out.replace(new RegExp(`(?<!\\p{L})h\\s?(${body})\\s?i(?!\\p{L})`, 'gu'), (match, words: string) =>
      left-- > 0 ? `⟨${words}⟩` : match,
    );
  }
  return out;
}

async function outlineOf(
  file: string,
): Promise<{ outline: OutlineEntry[]; tagged: boolean; structTables: boolean; bracketed: string[][] }> {
  const document = await getDocument({
    data: new Uint8Array(readFileSync(file)),
    verbosity: 0,
    isEvalSupported: false,
    stopAtErrors: false,
  }).promise;
  try {
    const outline: OutlineEntry[] = [];
    const visit = async (items: Awaited<ReturnType<typeof document.getOutline>> | null, depth: number) => {
      for (const item of items ?? []) {
        let page: number | undefined;
        try {
          const dest = typeof item.dest === 'string' ? await document.getDestination(item.dest) : item.dest;
          if (Array.isArray(dest) && dest[0]) page = (await document.getPageIndex(dest[0] as never)) + 1;
        } catch {
          page = undefined;
        }
        if (item.title.trim()) outline.push({ title: item.title.trim(), depth, page });
        await visit(item.items, depth + 1);
      }
    };
    await visit(await document.getOutline(), 0);
    let tagged = false;
    let structTables = false;
    const bracketed: string[][] = [];
    const hasTable = (node: unknown): boolean => {
      const n = node as { role?: string; children?: unknown[] } | null;
      return !!n && (n.role === 'Table' || (n.children ?? []).some(hasTable));
    };
    for (let p = 1; p <= document.numPages; p++) {
      const page = await document.getPage(p);
      const content = await page.getTextContent().catch(() => ({ items: [] }));
      const text = content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join('');
      bracketed.push([...text.matchAll(ANGLE_PAIR)].map((match) => match[1]!.trim()).filter((inner) => inner));
      const tree = await page.getStructTree().catch(() => null);
      if (tree) tagged = true;
      if (tree && hasTable(tree)) structTables = true;
    }
    return { outline, tagged, structTables, bracketed };
  } finally {
    await document.destroy();
  }
}

/** "17" or "xii" -> its value. */
function folioValue(text: string): number | undefined {
  if (/^\d{1,4}$/.test(text)) return Number(text);
  if (!ROMAN.test(text)) return undefined;
  const digits = [...text].map((c) => ({ i: 1, v: 5, x: 10, l: 50, c: 100 })[c]!);
  return -digits.reduce((n, v, i) => n + (v < (digits[i + 1] ?? 0) ? -v : v), 0); // roman folios kept apart from arabic
}

/** Key of a lone page number as the scorer looks it up: `folio:17`, `folio:-12` (xii). */
export function folioKey(text: string): string | undefined {
  const value = folioValue(
    text
      .trim()
      .toLowerCase()
      .replace(/^(?:page\s*|[-–—(|]\s*)|\s*[-–—)|]$/g, ''),
  );
  return value === undefined ? undefined : `folio:${value}`;
}

/**
 * Repeated lines at the ends of pages (digits normalised) on a quarter of the pages, and lone
 * page numbers whose difference from the page index holds on a quarter of the pages (line
 * numbers of a code listing at a page top are not folios).
 */
function findRunning(layoutPages: string[]): { keys: Record<string, number>; lines: number; texts: string[][] } {
  const ends = layoutPages.map((page) => {
    const lines = page
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    return [...new Set([lines[0], lines[lines.length - 1]].filter((l): l is string => !!l))];
  });
  const needed = Math.max(2, Math.ceil(0.25 * layoutPages.length));
  const pagesWith = new Map<string, number>();
  for (const lines of ends)
    for (const key of new Set(lines.map(runningKey))) pagesWith.set(key, (pagesWith.get(key) ?? 0) + 1);
  const offsets = new Map<string, number>();
  ends.forEach((lines, index) => {
    for (const line of lines) {
      const folio = folioKey(line);
      if (folio)
        offsets.set(
          `${Number(folio.slice(6)) < 0 ? 'r' : 'a'}${Math.abs(Number(folio.slice(6))) - index}`,
          (offsets.get(`${Number(folio.slice(6)) < 0 ? 'r' : 'a'}${Math.abs(Number(folio.slice(6))) - index}`) ?? 0) +
            1,
        );
    }
  });
  const keys: Record<string, number> = {};
  const texts: string[][] = ends.map(() => []);
  ends.forEach((lines, index) => {
    for (const line of lines) {
      const folio = folioKey(line);
      const value = folio ? Number(folio.slice(6)) : 0;
      const key = folio
        ? (offsets.get(`${value < 0 ? 'r' : 'a'}${Math.abs(value) - index}`) ?? 0) >= needed
          ? folio
          : undefined
        : (pagesWith.get(runningKey(line)) ?? 0) >= needed && /\p{L}/u.test(line)
          ? runningKey(line)
          : undefined;
      if (key) {
        keys[key] = (keys[key] ?? 0) + 1;
        texts[index]!.push(line);
      }
    }
  });
  return { keys, lines: Object.values(keys).reduce((a, b) => a + b, 0), texts };
}

/**
 * A page is two-column when most of its long lines (ten or more) leave the same mid-page strip
 * blank, with prose (not table cells or symbol names) on both sides: four words or more, three different.
 */
function isTwoColumn(layoutPage: string): boolean {
  const lines = layoutPage.split('\n').filter((l) => l.trim().length >= 30);
  if (lines.length < 10) return false;
  const width = Math.max(...lines.map((l) => l.length));
  // Prose on a side: a few words of letters, not one or two repeated (a symbol or font table has
  // names and glyphs; a specimen table repeats its sample, "abcde abcde abcde", across a row).
  const prose = (side: string) => {
    const words = side.toLowerCase().match(/\p{L}{2,}/gu) ?? [];
    return side.trim().length >= 20 && words.length >= 4 && new Set(words).size >= 3;
  };
  let best = 0;
  for (let x = Math.floor(0.35 * width); x <= Math.ceil(0.65 * width); x++) {
    const count = lines.filter(
      (l) => l.slice(x - 1, x + 2).trim() === '' && prose(l.slice(0, x)) && prose(l.slice(x)),
    ).length;
    best = Math.max(best, count);
  }
  return best >= 10 && best >= 0.5 * lines.length;
}

export interface BoxWord {
  x0: number;
  x1: number;
  top: number;
  bottom: number;
  text: string;
}

const WORD_BOX = /<word xMin="([-\d.]+)" yMin="([-\d.]+)" xMax="([-\d.]+)" yMax="([-\d.]+)">([^<]*)<\/word>/g;
const XML_ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** pdftotext's lines of one page, in its reading order, with their words' boxes (-bbox-layout). */
function boxLines(file: string, page: number): BoxWord[][] {
  const xhtml = execFileSync(
    'pdftotext',
    ['-bbox-layout', '-enc', 'UTF-8', '-f', String(page), '-l', String(page), file, '-'],
    { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'], timeout: 120_000 },
  );
  return [...xhtml.matchAll(/<line [^>]*>([\s\S]*?)<\/line>/g)].map((line) =>
    [...line[1]!.matchAll(WORD_BOX)].map((word) => ({
      x0: Number(word[1]),
      top: Number(word[2]),
      x1: Number(word[3]),
      bottom: Number(word[4]),
      text: word[5]!.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => XML_ENTITIES[name]!),
    })),
  );
}

/**
 * The reference reading order of a two-column page: pdftotext's own lines, read column by column.
 * pdftotext finds columns by its own rules and, where the gutter is narrow, reads across it: one
 * of its lines takes the end of a left-column line and the start of the right-column line beside
 * it, or it reads a few lines of one column, then the other column, then the rest of the first.
 * So: the gutter is the x in the middle of the text that the fewest words cover; a line with a
 * word over it spans both columns and cuts the page into bands; any other line is split at the
 * gutter when its words sit on both sides with a gap there wider than half its height (a word
 * space is narrower); then each band gives its left column, then its right, and the spanning
 * line after them. Within a column, pdftotext's order stands. Where pdftotext read the page
 * column by column, nothing moves; the measure applies to every converter alike.
 */
export function columnOrder(lines: readonly (readonly BoxWord[])[]): string {
  const words = lines.flat();
  if (!words.length) return '';
  const left = Math.min(...words.map((w) => w.x0));
  const width = Math.max(...words.map((w) => w.x1)) - left;
  let best: { x: number; count: number; run: number } | undefined;
  let runStart = 0;
  let previous: number | undefined;
  for (let x = left + 0.35 * width; x <= left + 0.65 * width; x += 0.5) {
    const count = words.filter((w) => w.x0 < x && w.x1 > x).length;
    if (previous !== count) runStart = x;
    previous = count;
    const run = x - runStart;
    if (!best || count < best.count || (count === best.count && run > best.run))
      best = { x: (runStart + x) / 2, count, run };
  }
  const gutter = best!.x;
  const parts: { words: readonly BoxWord[]; side: 0 | 1 | 2; top: number }[] = [];
  for (const line of lines) {
    if (!line.length) continue;
    const height = Math.max(...line.map((w) => w.bottom - w.top));
    const before = line.filter((w) => w.x1 <= gutter);
    const after = line.filter((w) => w.x0 >= gutter);
    const top = Math.min(...line.map((w) => w.top));
    const gap =
      before.length && after.length ? Math.min(...after.map((w) => w.x0)) - Math.max(...before.map((w) => w.x1)) : 0;
    if (before.length + after.length < line.length || (before.length && after.length && gap <= 0.5 * height)) {
      parts.push({ words: line, side: 2, top });
      continue;
    }
    if (before.length) parts.push({ words: before, side: 0, top: Math.min(...before.map((w) => w.top)) });
    if (after.length) parts.push({ words: after, side: 1, top: Math.min(...after.map((w) => w.top)) });
  }
  const spanningTops = parts.filter((p) => p.side === 2).map((p) => p.top);
  const band = (part: (typeof parts)[number]) =>
    spanningTops.filter((top) => (part.side === 2 ? top < part.top : top <= part.top)).length;
  return parts
    .map((part, index) => ({ part, index, key: 3 * band(part) + part.side }))
    .sort((a, b) => a.key - b.key || a.index - b.index)
    .map(({ part }) => lineText(part.words))
    .join('\n');
}

/**
 * A line's words as pdftotext prints them: a space only where the words stand apart (a tenth of
 * the line's height, poppler's word break), so "c" and its subscript "1" read "c1".
 */
function lineText(words: readonly BoxWord[]): string {
  const height = Math.max(...words.map((w) => w.bottom - w.top));
  return words.map((w, i) => (i && w.x0 - words[i - 1]!.x1 >= 0.1 * height ? ' ' : '') + w.text).join('');
}

/** A table caption: "Table 3", "Tab. 2", "Tabelle 1", "Таблица 2", "表 5.1", "表1-2". */
const CAPTIONS = [
  /\b(?:table|tab\.|tabelle|tableau|tabla|tabella|tabela)\s*[0-9IVX]/i,
  /таблица\s*\d/i,
  /表\s*[0-9０-９]/,
];
/** What sets a table in a source: LaTeX's tabular and its kin, tabbing, plain TeX's \halign, tbl. */
const SOURCE_TABLES = [
  /\\begin\{(?:tabular[x*y]?|longtable|supertabular|xltabular|tabu|tblr|longtblr|tabbing|table\*?)\}/,
  /\\halign\b/,
  /^\.TS\b/m,
];
const SOURCE_EXTENSIONS = ['.tex', '.tex.gz', '.dtx', '.dtx.gz', '.mom', '.ms', '.me'];

/** The PDF's own source beside it in its package (same name), when the package ships it. */
function sourceOf(file: string): string | undefined {
  const stem = join(dirname(file), basename(file, '.pdf'));
  for (const extension of SOURCE_EXTENSIONS) {
    const path = stem + extension;
    if (!existsSync(path)) continue;
    const bytes = readFileSync(path);
    return (extension.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('latin1');
  }
  return undefined;
}

/**
 * 'yes' when the file says it has tables (tagged Table elements, a caption); 'borderline' when
 * only its source sets one (a symbol or font table without caption, or a tabular used to lay
 * out a title block); 'none' otherwise, the file without a table that a converter must not invent.
 */
function tableTruth(file: string, pageTexts: readonly string[], structTables: boolean): TableTruth {
  const text = pageTexts.join('\n');
  if (structTables || CAPTIONS.some((caption) => caption.test(text))) return 'yes';
  const source = sourceOf(file);
  return source && SOURCE_TABLES.some((table) => table.test(source)) ? 'borderline' : 'none';
}

export async function truthOf(pdf: RealPdf, cacheDir: string): Promise<RealTruth> {
  // Versioned names: benches of several branches share one cache without overwriting each other's truth.
  const path = join(cacheDir, 'truth', `${pdf.sha256}.v${TRUTH_VERSION}.json`);
  if (existsSync(path)) {
    const cached = JSON.parse(readFileSync(path, 'utf8')) as RealTruth & { version: number };
    if (cached.version === TRUTH_VERSION) return cached;
  }
  const { outline, tagged, structTables, bracketed } = await outlineOf(pdf.file);
  const pageTexts = pdftotext(pdf.file, false).map((text, i) => restoreAngleBrackets(text, bracketed[i] ?? []));
  const layoutPages = pdftotext(pdf.file, true);
  const running = findRunning(layoutPages);
  const twoColumnPages = layoutPages.flatMap((page, i) => (isTwoColumn(page) ? [i + 1] : []));
  const truth: RealTruth = {
    outline,
    tagged,
    tables: tableTruth(pdf.file, pageTexts, structTables),
    pageTexts,
    runningKeys: running.keys,
    runningLines: running.lines,
    runningTexts: running.texts,
    twoColumnPages,
    columnTexts: twoColumnPages.map((page) =>
      restoreAngleBrackets(columnOrder(boxLines(pdf.file, page)), bracketed[page - 1] ?? []),
    ),
  };
  mkdirSync(join(cacheDir, 'truth'), { recursive: true });
  writeFileSync(path, JSON.stringify({ version: TRUTH_VERSION, ...truth }));
  return truth;
}
