/**
 * The printed corpus: real HTML documentation pages from Debian 12 packages, printed to PDF by a browser
 * (chromium-headless-shell --print-to-pdf) and exported by an office suite (LibreOffice Writer/Web's PDF export),
 * with the truth taken from the HTML itself: every table the page's source marks as a document table (html_tables.py).
 * Its selection and truth, and the ratchet's figures; run.ts prints them (precision, recall: a truth table is
 * found when its paired output table scores TEDS 0.5 or more; mean TEDS over truth tables), per producer and half.
 *
 * Selection, fixed before any result was seen: every HTML page of the packages below with a document table of two
 * rows and two columns or more, taken in the order of sha256("order:" + id), at most MAX_PER_PACKAGE a package; a
 * page whose browser print runs over MAX_PAGES pages is left out (both producers). Halves: the first hex digit of
 * sha256(id), 0-7 tuning, 8-f held out. Past the cap, a package's tuning pages are taken on until it has
 * TUNE_PER_PACKAGE tuning pages (the tuning supplement); the held-out half is the pages the cap took. Packages are
 * fetched with `apt-get download <pkg>=<version>` (sha256 pinned) into `$MARKDOWN_PRINTED_CACHE` (default
 * .tmp/bench/markdown-printed); the PDFs are made there, not committed.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pdfToMarkdown } from '../../../plugins/markdown/shared/engine/index.js';
import type { Figure } from '../../lib/ratchet.js';
import { scoreTableDetection, type TableDetection } from '../score.js';

interface Package {
  name: string;
  version: string;
  sha256: string;
}

/** Sphinx-built manuals (docutils tables: option, support, version and API summary tables). */
const PACKAGES: Package[] = [
  {
    name: 'sphinx-doc',
    version: '5.3.0-4',
    sha256: '1da3d08bb3a0bc82a4b8b8109410e223054bf5fb13904557ec8ea869046f65b4',
  },
  {
    name: 'python-sqlalchemy-doc',
    version: '1.4.46+ds1-1',
    sha256: '8805c3167ef75278ac6fd58ed9856321c2b2e3a7e441edba84b2eb955216d0fd',
  },
  {
    name: 'python-werkzeug-doc',
    version: '2.2.2-3+deb12u1',
    sha256: '5aeffdfdf257911e3ade253d2b6cc3f98a06df3bec1332efdbc3fbd578530230',
  },
  // Added 2026-11-29 to enlarge both halves, chosen before any result for the tables they carry: Django's manual
  // (docutils' HTML4 writer, its own theme: tables of settings, fields, field lists), Celery's (option tables in
  // prose), pyqtgraph's (plain docutils tables) and pydicom's (autosummary API tables beside plain ones).
  {
    name: 'python-django-doc',
    version: '3:3.2.25-0+deb12u7',
    sha256: '87307f067916df72e17180d35b7cde5c7ea6080336cda518efd7f6e66988a7ca',
  },
  {
    name: 'python-celery-doc',
    version: '5.2.6-5',
    sha256: '820d22b28d4f15c08305e21dbb04bdc626e3f6d3f2ec0c295d56e070febd7dc4',
  },
  {
    name: 'python-pyqtgraph-doc',
    version: '0.13.1-4',
    sha256: 'fd3f63c9a44e991d389d199ff4e3057ea79d28ba45f7f308fd6977575da8377b',
  },
  {
    name: 'python-pydicom-doc',
    version: '2.3.1-1',
    sha256: '51fa464f346895d0dddc21e0815f6390a0ea8bbfc771b63c729624859c9bfb08',
  },
];
const MAX_PER_PACKAGE = 10;
/**
 * The tuning supplement (2026-11-29): past the cap, a package's pages of the tuning half are taken on, in the same
 * order, until it has this many tuning pages. Rules written on 25 tuning pages did not carry to pages of the same
 * manuals they had not seen; the held-out half stays the pages the cap took.
 */
const TUNE_PER_PACKAGE = 10;
const MAX_PAGES = 30;
const HERE = dirname(fileURLToPath(import.meta.url));
const cache = process.env.MARKDOWN_PRINTED_CACHE ?? join(HERE, '../../../.tmp/bench/markdown-printed');
const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');
export const halfOf = (id: string): 'tune' | 'heldout' =>
  Number.parseInt(sha256(id)[0]!, 16) < 8 ? 'tune' : 'heldout';

function extract(pkg: Package): string | undefined {
  const debs = join(cache, 'debs');
  const root = join(cache, 'tree', pkg.name);
  mkdirSync(debs, { recursive: true });
  if (existsSync(join(root, '.done'))) return root;
  let deb = readdirSync(debs).find((f) => f.startsWith(`${pkg.name}_`));
  if (!deb) {
    try {
      execFileSync('apt-get', ['download', `${pkg.name}=${pkg.version}`], { cwd: debs, stdio: 'pipe' });
    } catch {
      console.log(`SKIP ${pkg.name}: apt-get download failed`);
      return undefined;
    }
    deb = readdirSync(debs).find((f) => f.startsWith(`${pkg.name}_`))!;
  }
  if (sha256(readFileSync(join(debs, deb))) !== pkg.sha256) {
    console.log(`SKIP ${pkg.name}: the .deb does not match its pinned sha256`);
    return undefined;
  }
  mkdirSync(root, { recursive: true });
  execFileSync('dpkg-deb', ['-x', join(debs, deb), root]);
  writeFileSync(join(root, '.done'), '');
  return root;
}

function htmlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) return [];
    if (stat.isDirectory()) return htmlFiles(path);
    return name.endsWith('.html') ? [path] : [];
  });
}

type Rows = string[][];

const truthTables = (html: string): Rows[] =>
  (JSON.parse(execFileSync('python3', [join(HERE, 'html_tables.py'), html], { encoding: 'utf8' })) as Rows[]).filter(
    (rows) => rows.length >= 2 && Math.max(...rows.map((r) => r.length)) >= 2,
  );

/** Markdown pipe tables of the truth, so output and truth go through the same table parser and normalisation. */
const asMarkdown = (tables: readonly Rows[]) =>
  tables
    .map((rows) => {
      const width = Math.max(...rows.map((r) => r.length));
      const line = (cells: readonly string[]) =>
        `| ${Array.from({ length: width }, (_, i) => (cells[i] ?? '').replace(/\|/g, '\\|')).join(' | ')} |`;
      return [line(rows[0]!), `|${' --- |'.repeat(width)}`, ...rows.slice(1).map(line)].join('\n');
    })
    .join('\n\n');

const pageCount = (pdf: string) =>
  Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' }))?.[1] ?? 0);

function printBrowser(html: string, pdf: string): void {
  if (existsSync(pdf)) return;
  execFileSync(
    'chromium-headless-shell',
    ['--no-sandbox', '--disable-gpu', '--no-pdf-header-footer', `--print-to-pdf=${pdf}`, pathToFileURL(html).href],
    { stdio: 'ignore', timeout: 120_000 },
  );
}

function exportOffice(html: string, pdf: string): void {
  if (existsSync(pdf)) return;
  const out = join(cache, 'office-out');
  mkdirSync(out, { recursive: true });
  execFileSync(
    'soffice',
    [
      `-env:UserInstallation=${pathToFileURL(join(cache, 'lo-profile')).href}`,
      '--headless',
      '--convert-to',
      'pdf:writer_web_pdf_Export',
      '--outdir',
      out,
      html,
    ],
    { stdio: 'ignore', timeout: 300_000 },
  );
  const made = join(out, `${html.replace(/^.*\//, '').replace(/\.html$/, '')}.pdf`);
  writeFileSync(pdf, readFileSync(made));
}

export interface Entry {
  id: string;
  producer: 'browser' | 'office';
  half: 'tune' | 'heldout';
  pdf: string;
  truth: string;
  tables: number;
}

export function printedCorpus(): Entry[] {
  const entries: Entry[] = [];
  // A page shipped twice (a second path, a copy in another folder) is one page: the first by sha256 of its id.
  const seen = new Set<string>();
  for (const pkg of PACKAGES) {
    const root = extract(pkg);
    if (!root) continue;
    const candidates = htmlFiles(root)
      .map((file) => ({ file, id: `${pkg.name}:/${relative(root, file)}` }))
      .filter(({ file }) => /<table class="[^"]*\bdocutils\b/.test(readFileSync(file, 'utf8')))
      // Ordered by a hash of their own, not the one that picks the half: with the same key, a cap would take
      // the lowest hashes, nearly all of them in the tuning half.
      .sort((a, b) => (sha256(`order:${a.id}`) < sha256(`order:${b.id}`) ? -1 : 1))
      .filter((c) => {
        // A copy has the copied page's tables: dropping it before its tables are read selects the same pages.
        const content = sha256(readFileSync(c.file));
        if (seen.has(content)) return false;
        seen.add(content);
        return true;
      });
    let taken = 0;
    let tuning = 0;
    for (const { file, id } of candidates) {
      const supplement = taken >= MAX_PER_PACKAGE;
      if (supplement && (tuning >= TUNE_PER_PACKAGE || halfOf(id) !== 'tune')) continue;
      // Read in order, only as far as needed: the tables of pages past the cap and the supplement change nothing.
      const tables = truthTables(file);
      if (!tables.length) continue;
      const stem = join(cache, 'pdf', sha256(id).slice(0, 16));
      mkdirSync(dirname(stem), { recursive: true });
      try {
        printBrowser(file, `${stem}.browser.pdf`);
      } catch {
        console.log(`SKIP ${id}: the browser did not print it`);
        continue;
      }
      if (pageCount(`${stem}.browser.pdf`) > MAX_PAGES) continue;
      if (!supplement) taken++;
      if (halfOf(id) === 'tune') tuning++;
      const truth = asMarkdown(tables);
      entries.push({
        id,
        producer: 'browser',
        half: halfOf(id),
        pdf: `${stem}.browser.pdf`,
        truth,
        tables: tables.length,
      });
      try {
        exportOffice(file, `${stem}.office.pdf`);
        entries.push({
          id,
          producer: 'office',
          half: halfOf(id),
          pdf: `${stem}.office.pdf`,
          truth,
          tables: tables.length,
        });
      } catch {
        console.log(`SKIP ${id} (office): LibreOffice did not export it`);
      }
    }
  }
  return entries;
}

export const sumDetection = (scores: readonly TableDetection[]): TableDetection =>
  scores.reduce(
    (a, b) => ({
      truth: a.truth + b.truth,
      output: a.output + b.output,
      found: a.found + b.found,
      tedsSum: a.tedsSum + b.tedsSum,
    }),
    { truth: 0, output: 0, found: 0, tedsSum: 0 },
  );

/** Our engine's Markdown of a printed page ('' when it fails: a failure scores as nothing found). */
export async function convertPrinted(entry: Entry): Promise<string> {
  try {
    return (await pdfToMarkdown(new Uint8Array(readFileSync(entry.pdf)), { timeoutMs: 600_000 })).markdown;
  } catch (error) {
    console.log(`ours failed on ${entry.id} (${entry.producer}): ${(error as Error).message}`);
    return '';
  }
}

const RATIO_TOLERANCE = 0.005;

/**
 * The ratchet's figures of one half, per producer: `markdown.printed-<half>-<producer>.{tablePrecision,
 * tableRecall,teds}`. Throws when a package cannot be had: a ratchet on fewer pages would hide a drop.
 */
export async function printedFigures(half: 'tune' | 'heldout'): Promise<Figure[]> {
  const entries = printedCorpus().filter((entry) => entry.half === half);
  if (!entries.length) throw new Error('the printed corpus is empty: see the SKIP lines');
  const figures: Figure[] = [];
  for (const producer of ['browser', 'office'] as const) {
    const scores: TableDetection[] = [];
    for (const entry of entries.filter((e) => e.producer === producer))
      scores.push(scoreTableDetection(await convertPrinted(entry), entry.truth));
    const s = sumDetection(scores);
    const prefix = `markdown.printed-${half}-${producer}`;
    figures.push(
      {
        id: `${prefix}.tablePrecision`,
        value: s.output ? s.found / s.output : 1,
        better: 'higher',
        tolerance: RATIO_TOLERANCE,
        detail: `${s.found} of ${s.output} output tables`,
      },
      {
        id: `${prefix}.tableRecall`,
        value: s.truth ? s.found / s.truth : 1,
        better: 'higher',
        tolerance: RATIO_TOLERANCE,
        detail: `${s.found} of ${s.truth} truth tables`,
      },
      {
        id: `${prefix}.teds`,
        value: s.truth ? s.tedsSum / s.truth : 1,
        better: 'higher',
        tolerance: RATIO_TOLERANCE,
        detail: `mean over ${s.truth} truth tables, ${scores.length} pages`,
      },
    );
  }
  return figures;
}
