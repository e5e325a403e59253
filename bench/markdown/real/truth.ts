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
}

export type TableTruth = 'yes' | 'borderline' | 'none';

const TRUTH_VERSION = 8;
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

async function outlineOf(file: string): Promise<{ outline: OutlineEntry[]; tagged: boolean; structTables: boolean }> {
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
    const hasTable = (node: unknown): boolean => {
      const n = node as { role?: string; children?: unknown[] } | null;
      return !!n && (n.role === 'Table' || (n.children ?? []).some(hasTable));
    };
    for (let p = 1; p <= document.numPages; p++) {
      const tree = await (await document.getPage(p)).getStructTree().catch(() => null);
      if (tree) tagged = true;
      if (tree && hasTable(tree)) structTables = true;
    }
    return { outline, tagged, structTables };
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
 * blank, with prose (not table cells or symbol names) on both sides.
 */
function isTwoColumn(layoutPage: string): boolean {
  const lines = layoutPage.split('\n').filter((l) => l.trim().length >= 30);
  if (lines.length < 10) return false;
  const width = Math.max(...lines.map((l) => l.length));
  // Prose on a side: a few words of letters (a symbol or font table has names and glyphs).
  const prose = (side: string) => side.trim().length >= 20 && (side.match(/\p{L}{2,}/gu)?.length ?? 0) >= 4;
  let best = 0;
  for (let x = Math.floor(0.35 * width); x <= Math.ceil(0.65 * width); x++) {
    const count = lines.filter(
      (l) => l.slice(x - 1, x + 2).trim() === '' && prose(l.slice(0, x)) && prose(l.slice(x)),
    ).length;
    best = Math.max(best, count);
  }
  return best >= 10 && best >= 0.5 * lines.length;
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
  const { outline, tagged, structTables } = await outlineOf(pdf.file);
  const pageTexts = pdftotext(pdf.file, false);
  const layoutPages = pdftotext(pdf.file, true);
  const running = findRunning(layoutPages);
  const truth: RealTruth = {
    outline,
    tagged,
    tables: tableTruth(pdf.file, pageTexts, structTables),
    pageTexts,
    runningKeys: running.keys,
    runningLines: running.lines,
    runningTexts: running.texts,
    twoColumnPages: layoutPages.flatMap((page, i) => (isTwoColumn(page) ? [i + 1] : [])),
  };
  mkdirSync(join(cacheDir, 'truth'), { recursive: true });
  writeFileSync(path, JSON.stringify({ version: TRUTH_VERSION, ...truth }));
  return truth;
}
