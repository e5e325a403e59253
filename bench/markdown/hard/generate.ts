/**
 * Regenerates the hard-layout corpus into bench/markdown/hard/files/: per document its source (<name>.tex,
 * <name>.fodt or <name>.html), the PDF its producer made of it (<name>.pdf), the truth tables (<name>.md) and
 * <name>.json (producer, layout, half, pages, running lines).
 *
 *   npx tsx bench/markdown/hard/generate.ts [names]
 *
 * Needs pdflatex (Debian texlive-latex-base, -recommended, -extra, lmodern), LibreOffice (soffice), chromium
 * (chromium-headless-shell), ghostscript and poppler-utils. These make corpus files only: the engine never runs
 * them, so nothing is declared among the engines. A scan is its producer's PDF rasterised at 300 dpi and wrapped
 * as an image-only PDF.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { imagePdf, rasterise } from '../layouts/generate.js';
import { DOCUMENTS, type HardDocument, halfOf, truthMarkdown } from './documents.js';
import { runningHead, toFodt, toHtml, toLatex } from './render.js';

export const HARD_DIR = join(dirname(fileURLToPath(import.meta.url)), 'files');

export interface HardMeta {
  producer: HardDocument['producer'];
  layout: HardDocument['layout'];
  half: 'tune' | 'heldout';
  pages: number;
  /** Running heads and feet as the page prints them, digits as `#`. */
  runningLines: string[];
}

const SCAN_DPI = 300;
const A4 = { width: 595, height: 842 };

function run(command: string, args: string[], cwd?: string): string {
  return execFileSync(command, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
    timeout: 300_000,
  });
}

const pageCount = (pdf: string) => Number(/Pages:\s+(\d+)/.exec(run('pdfinfo', [pdf]))?.[1] ?? 0);

/** The PDF the producer makes of the document's source, in `work`; the source is also kept beside the truth. */
function produce(document: HardDocument, work: string): string {
  const { name, producer } = document;
  if (producer === 'latex') {
    const source = toLatex(document);
    writeFileSync(join(HARD_DIR, `${name}.tex`), source);
    writeFileSync(join(work, `${name}.tex`), source);
    // Twice: longtable's column widths and the page references settle on the second run.
    for (let i = 0; i < 2; i++) run('pdflatex', ['-interaction=nonstopmode', '-halt-on-error', `${name}.tex`], work);
    return join(work, `${name}.pdf`);
  }
  if (producer === 'office') {
    const source = toFodt(document);
    writeFileSync(join(HARD_DIR, `${name}.fodt`), source);
    writeFileSync(join(work, `${name}.fodt`), source);
    run('soffice', [
      `-env:UserInstallation=${pathToFileURL(join(work, 'lo-profile')).href}`,
      '--headless',
      '--convert-to',
      'pdf:writer_pdf_Export',
      '--outdir',
      work,
      join(work, `${name}.fodt`),
    ]);
    return join(work, `${name}.pdf`);
  }
  const source = toHtml(document);
  writeFileSync(join(HARD_DIR, `${name}.html`), source);
  // A fixed path: the browser prints the page's address in its footer.
  const html = join(tmpdir(), 'hard-corpus', `${name}.html`);
  mkdirSync(dirname(html), { recursive: true });
  writeFileSync(html, source);
  const pdf = join(work, `${name}.pdf`);
  run('chromium-headless-shell', ['--no-sandbox', '--disable-gpu', `--print-to-pdf=${pdf}`, pathToFileURL(html).href]);
  return pdf;
}

function runningLines(document: HardDocument): string[] {
  if (document.producer === 'browser') {
    // Chromium's own header and footer: the date and the page title, the address and "page/pages".
    const address = pathToFileURL(join(tmpdir(), 'hard-corpus', `${document.name}.html`)).href;
    return [runningHead(document), address, '#/#'];
  }
  return [runningHead(document), 'Page #'];
}

function generate(document: HardDocument, work: string): HardMeta {
  const vector = produce(document, work);
  const target = join(HARD_DIR, `${document.name}.pdf`);
  const pages = pageCount(vector);
  if (document.layout === 'scan') writeFileSync(target, imagePdf(rasterise(vector, SCAN_DPI, work, pages), A4));
  else writeFileSync(target, readFileSync(vector));
  writeFileSync(join(HARD_DIR, `${document.name}.md`), truthMarkdown(document));
  return {
    producer: document.producer,
    layout: document.layout,
    half: halfOf(document.name),
    pages,
    runningLines: runningLines(document),
  };
}

function main(): void {
  mkdirSync(HARD_DIR, { recursive: true });
  const only = process.argv.slice(2);
  for (const document of DOCUMENTS) {
    if (only.length && !only.includes(document.name)) continue;
    const work = mkdtempSync(join(tmpdir(), 'md-hard-'));
    try {
      const meta = generate(document, work);
      writeFileSync(join(HARD_DIR, `${document.name}.json`), `${JSON.stringify(meta, null, 2)}\n`);
      console.log(`${document.name}: ${meta.pages} page(s), ${meta.half}`);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
