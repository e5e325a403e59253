/**
 * The fresh check set for running heads and feet (2026-11-26): 20 real PDFs (or page ranges of long
 * ones) from Debian documentation packages that neither half, the extra set nor the siblings use,
 * chosen for kinds of running lines the tuning half lacks (recto/verso heads, chapter and section
 * titles changing, "Page N of M", heads in capitals or at body size, lone folios at the top or the
 * foot, heads and feet from texinfo, Sphinx, Doxygen, dblatex, ReportLab, browser print), and for
 * lines that repeat at page tops without being running lines (an exam printed in four versions,
 * "Affects: U+..." lines, a long table's "continued" notes).
 *
 * Truth (`fresh/truth.json`) is a person's reading of every page (pdftotext -layout), written down per
 * file as patterns: a page's first line is running when it matches a `top` pattern, its last line when
 * it matches a `bottom` one; `neutral` lines may go or stay. It never looks at a converter's output.
 * The score reads which lines the engine takes out as running (`findRunningLines`, on the same page
 * model as the product) and counts, per page:
 * - leaks: running lines whose words are not all among the words the engine took out of that page;
 * - false removals: lines taken out whose words are not all among the page's running and neutral lines
 *   (body text lost), with the words lost.
 *
 *   nice -n 10 npx tsx bench/markdown/real/fresh.ts [--only name] [--lines]
 *
 * Packages are fetched with `apt-get download <pkg>=<version>` into `$MARKDOWN_FRESH_CACHE` (default
 * .tmp/bench/markdown-fresh), checked by sha256 (the .deb and the PDF), and a page range is cut with qpdf.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildLines } from '../../../plugins/markdown/shared/engine/lines.js';
import { Deadline, openDocument, readPage } from '../../../plugins/markdown/shared/engine/pdf.js';
import { findRunningLines, type PageLines } from '../../../plugins/markdown/shared/engine/running.js';
import { extractRuledTables } from '../../../plugins/markdown/shared/engine/tables.js';

interface FreshPdf {
  name: string;
  package: string;
  version: string;
  deb_sha256: string;
  path: string;
  sha256: string;
  /** A page range of a long document, cut with qpdf ("20-44"). */
  pages?: string;
  top: string[];
  bottom: string[];
  neutral?: string[];
  note: string;
}

const { values } = parseArgs({ options: { only: { type: 'string' }, lines: { type: 'boolean', default: false } } });
const HERE = dirname(fileURLToPath(import.meta.url));
const truth = JSON.parse(readFileSync(join(HERE, 'fresh/truth.json'), 'utf8')) as FreshPdf[];
const cache = process.env.MARKDOWN_FRESH_CACHE ?? join(HERE, '../../../.tmp/bench/markdown-fresh');
mkdirSync(cache, { recursive: true });
const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

/** The PDF as scored (the range cut when there is one), or undefined when the archive no longer serves it. */
function fetchPdf(pdf: FreshPdf): string | undefined {
  const file = join(cache, `${pdf.name}.pdf`);
  if (existsSync(file)) return file;
  const debName = readdirSync(cache).find((name) => name.startsWith(`${pdf.package}_`) && name.endsWith('.deb'));
  let deb = debName && join(cache, debName);
  if (!deb) {
    try {
      execFileSync('apt-get', ['download', `${pdf.package}=${pdf.version}`], { cwd: cache, stdio: 'pipe' });
    } catch {
      console.log(`SKIP ${pdf.name}: apt-get download ${pdf.package}=${pdf.version} failed`);
      return undefined;
    }
    deb = join(cache, readdirSync(cache).find((name) => name.startsWith(`${pdf.package}_`))!);
  }
  if (sha256(readFileSync(deb)) !== pdf.deb_sha256) {
    console.log(`SKIP ${pdf.name}: ${deb} does not match its pinned sha256`);
    return undefined;
  }
  const tar = execFileSync('dpkg-deb', ['--fsys-tarfile', deb], { maxBuffer: 2 ** 31 });
  const packed = pdf.path.endsWith('.gz');
  let whole: Buffer;
  try {
    const bytes = execFileSync('tar', ['-xO', `.${pdf.path}`], { input: tar, maxBuffer: 2 ** 28, stdio: 'pipe' });
    whole = packed ? execFileSync('gunzip', ['-c'], { input: bytes, maxBuffer: 2 ** 28 }) : bytes;
  } catch {
    console.log(`SKIP ${pdf.name}: ${pdf.path} is not in ${deb}`);
    return undefined;
  }
  if (sha256(whole) !== pdf.sha256) {
    console.log(`SKIP ${pdf.name}: ${pdf.path} does not match its pinned sha256`);
    return undefined;
  }
  const source = join(cache, `${pdf.name}.source.pdf`);
  writeFileSync(source, whole);
  if (pdf.pages) execFileSync('qpdf', ['--deterministic-id', '--empty', '--pages', source, pdf.pages, '--', file]);
  else writeFileSync(file, whole);
  return file;
}

const squash = (text: string) => text.replace(/\s+/g, ' ').trim();
const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** Each page's running lines and neutral lines by the truth's patterns, as pdftotext -layout prints them. */
function truthLines(file: string, pdf: FreshPdf): { running: string[]; neutral: string[] }[] {
  const text = execFileSync('pdftotext', ['-layout', file, '-'], { maxBuffer: 2 ** 28 }).toString();
  const pages = text.split('\f').slice(0, -1);
  const matches = (patterns: readonly string[] | undefined, line: string | undefined) =>
    line !== undefined && (patterns ?? []).some((pattern) => new RegExp(pattern, 'u').test(line));
  return pages.map((page) => {
    const lines = page.split('\n').map(squash).filter(Boolean);
    const running = new Set<string>();
    if (matches(pdf.top, lines[0])) running.add(lines[0]!);
    if (matches(pdf.bottom, lines.at(-1))) running.add(lines.at(-1)!);
    const neutral = lines.flatMap((line) =>
      (pdf.neutral ?? []).flatMap((pattern) => line.match(new RegExp(pattern, 'gu')) ?? []),
    );
    return { running: [...running], neutral };
  });
}

/** The lines the engine takes out as running, per page, on the product's page model. */
async function engineRunning(file: string): Promise<string[][]> {
  const deadline = new Deadline(600_000);
  const document = await openDocument(new Uint8Array(readFileSync(file)), deadline);
  try {
    const pages: PageLines[] = [];
    for (let number = 1; number <= document.numPages; number++) {
      const page = await readPage(document, number, deadline);
      pages.push({ height: page.height, lines: buildLines(extractRuledTables(page.runs, page.rules).rest) });
    }
    return findRunningLines(pages).map((found) => [...found].map((line) => squash(line.text)));
  } finally {
    await document.destroy();
    deadline.dispose();
  }
}

/** True when every word of `line` is in `pool` (a multiset, consumed). */
function covered(line: string, pool: Map<string, number>): boolean {
  const need = words(line);
  const left = new Map(pool);
  for (const word of need) {
    const count = left.get(word) ?? 0;
    if (count === 0) return false;
    left.set(word, count - 1);
  }
  for (const [word, count] of left) pool.set(word, count);
  return true;
}

const pool = (lines: readonly string[]) => {
  const counts = new Map<string, number>();
  for (const word of lines.flatMap(words)) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
};

const totals = { files: 0, pages: 0, running: 0, leaks: 0, removed: 0, falseRemovals: 0, wordsLost: 0 };
console.log('file                        pages  running  leaks  removed  false removals (words)');
for (const pdf of truth.filter((p) => !values.only || p.name.includes(values.only))) {
  const file = fetchPdf(pdf);
  if (!file) continue;
  const expected = truthLines(file, pdf);
  const found = await engineRunning(file);
  let leaks = 0;
  let falseRemovals = 0;
  let wordsLost = 0;
  let running = 0;
  let removed = 0;
  found.forEach((taken, index) => {
    const page = expected[index] ?? { running: [], neutral: [] };
    running += page.running.length;
    removed += taken.length;
    const takenWords = pool(taken);
    for (const line of page.running)
      if (!covered(line, takenWords)) {
        leaks++;
        if (values.lines) console.log(`  ${pdf.name} p${index + 1} LEAK  ${line}`);
      }
    const allowed = pool([...page.running, ...page.neutral]);
    for (const line of taken)
      if (!covered(line, allowed)) {
        falseRemovals++;
        wordsLost += words(line).length;
        if (values.lines) console.log(`  ${pdf.name} p${index + 1} BODY  ${line}`);
      }
  });
  totals.files++;
  totals.pages += found.length;
  totals.running += running;
  totals.leaks += leaks;
  totals.removed += removed;
  totals.falseRemovals += falseRemovals;
  totals.wordsLost += wordsLost;
  console.log(
    `${pdf.name.padEnd(28)}${String(found.length).padStart(5)}${String(running).padStart(9)}` +
      `${String(leaks).padStart(7)}${String(removed).padStart(9)}  ${falseRemovals} (${wordsLost})`,
  );
}
const share = (n: number, of: number) => `${((100 * n) / Math.max(1, of)).toFixed(1)}%`;
console.log(
  `fresh set: ${totals.files} files, ${totals.pages} pages, ${totals.running} running lines; ` +
    `leaks ${totals.leaks} (${share(totals.leaks, totals.running)}); lines taken out ${totals.removed}, ` +
    `of them body ${totals.falseRemovals} (${totals.wordsLost} words)`,
);
