/**
 * Regenerates the ground-truth corpus: for each entry, <name>.pdf, <name>.md (truth) and
 * <name>.json (pages, first words of each page, running lines) in bench/markdown/corpus/files/.
 *
 *   npx tsx bench/markdown/corpus/generate.ts [names]
 *
 * Needs ghostscript (ps2pdf), pandoc, LibreOffice (soffice) and poppler-utils (pdftotext).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORPUS, type CorpusEntry } from './documents.js';
import { toMarkdown } from './model.js';
import { renderPostScript } from './postscript.js';

export const CORPUS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'files');

export interface TruthMeta {
  route: string;
  pages: number;
  /** The first words of each page's content, in reading order. */
  pageStarts: string[];
  /** Running header/footer lines with digits replaced by '#': any of these in the output is a leak. */
  runningLines: string[];
}

const PAGE_START_WORDS = 4;

function run(command: string, args: string[], cwd?: string): string {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function renderWithOffice(entry: CorpusEntry, markdown: string, work: string): string {
  const source = join(work, `${entry.name}.md`);
  writeFileSync(source, markdown);
  if (entry.route.kind === 'docx') {
    run('pandoc', [source, '-f', 'markdown', '-t', 'docx', '-o', join(work, `${entry.name}.docx`)]);
    run('soffice', ['--headless', '--convert-to', 'pdf', '--outdir', work, join(work, `${entry.name}.docx`)]);
  } else {
    // A bare page around pandoc's fragment: Writer's HTML import ignores CSS borders but honours
    // the table's border attribute, and pandoc's standalone template hides the first heading.
    const fragment = run('pandoc', [source, '-f', 'markdown', '-t', 'html']);
    const bordered = entry.route.kind === 'html' && entry.route.tableBorders;
    const body = bordered ? fragment.replaceAll('<table>', '<table border="1" cellpadding="4">') : fragment;
    const html = join(work, `${entry.name}.html`);
    writeFileSync(
      html,
      `<!DOCTYPE html><html><head><meta ` +
        `charset="utf-8"><title>${entry.name}</title></head><body>\n${body}</body></html>\n`,
    );
    run('soffice', [
      '--headless',
      '--infilter=HTML (StarWriter)',
      '--convert-to',
      'pdf:writer_pdf_Export',
      '--outdir',
      work,
      html,
    ]);
  }
  return join(work, `${entry.name}.pdf`);
}

/**
 * First words of each page's content as pdftotext reads them (office routes have no running lines). A table's
 * header row that the office suite sets again atop a page is not content (the truth has it once): the page starts
 * after it, where the layouts corpus starts a page a table's rows open (Markdown cannot mark a page inside a table).
 */
function pageStartsOf(pdf: string, pages: number, markdown: string): string[] {
  const headers = markdown
    .split('\n')
    .flatMap((line, i, all) => (/^\|\s*---/.test(all[i + 1] ?? '') ? [line.replace(/\|/g, ' ').split(/\s+/)] : []))
    .map((words) => words.filter(Boolean));
  return Array.from({ length: pages }, (_, i) => {
    const words = run('pdftotext', ['-f', String(i + 1), '-l', String(i + 1), pdf, '-'])
      .split(/\s+/)
      .filter(Boolean);
    const repeated = i > 0 ? headers.find((header) => header.every((word, k) => words[k] === word)) : undefined;
    return words
      .slice(repeated?.length ?? 0)
      .slice(0, PAGE_START_WORDS)
      .join(' ');
  });
}

function pageCount(pdf: string): number {
  const match = /Pages:\s+(\d+)/.exec(run('pdfinfo', [pdf]));
  return Number(match?.[1] ?? 0);
}

function generate(entry: CorpusEntry, work: string): TruthMeta {
  const markdown = toMarkdown(entry.blocks);
  const target = join(CORPUS_DIR, `${entry.name}.pdf`);
  writeFileSync(join(CORPUS_DIR, `${entry.name}.md`), markdown);
  if (entry.route.kind === 'postscript') {
    const result = renderPostScript(entry.blocks, entry.route.layout);
    const ps = join(work, `${entry.name}.ps`);
    writeFileSync(ps, result.postscript);
    run('ps2pdf', [ps, target]);
    return {
      route: 'postscript',
      pages: result.pages,
      pageStarts: result.pageStarts,
      runningLines: result.runningLines,
    };
  }
  const rendered = renderWithOffice(entry, markdown, work);
  writeFileSync(target, readFileSync(rendered));
  const pages = pageCount(target);
  return { route: entry.route.kind, pages, pageStarts: pageStartsOf(target, pages, markdown), runningLines: [] };
}

function main(): void {
  mkdirSync(CORPUS_DIR, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'md-corpus-'));
  const only = process.argv.slice(2);
  try {
    for (const entry of CORPUS) {
      if (only.length && !only.includes(entry.name)) continue;
      const meta = generate(entry, work);
      writeFileSync(join(CORPUS_DIR, `${entry.name}.json`), JSON.stringify(meta, null, 2) + '\n');
      console.log(`${entry.name}: ${meta.pages} page(s) via ${meta.route}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
