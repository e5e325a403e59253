/**
 * Regenerates the lists corpus: per document, files/<name>.pdf (made by its producer),
 * files/<name>.md (the truth, from the same model) and files/<name>.json (pages, first words of
 * each page, running lines), in the format of bench/markdown/corpus.
 *
 *   npx tsx bench/markdown/lists/generate.ts [names]
 *   npx tsx bench/markdown/lists/generate.ts --meta [names]   # only the .json, from the committed PDFs
 *
 * Needs pdflatex (texlive-latex-base), groff (the full package: -ms and gropdf), chromium, pandoc,
 * LibreOffice (soffice) and poppler-utils.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TruthMeta } from '../corpus/generate.js';
import { DOCUMENTS, type ListDocument, truthMarkdown } from './documents.js';
import { render } from './producers.js';

export const LISTS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'files');

/**
 * The halves, fixed before any result was seen (the real corpus' rule): the first hex digit of
 * sha256(name), 0-7 tuning, 8-f held out. Engine rules are checked on the tuning half only.
 */
export function half(name: string): 'tune' | 'heldout' {
  return Number.parseInt(createHash('sha256').update(name).digest('hex')[0]!, 16) < 8 ? 'tune' : 'heldout';
}

const PAGE_START_WORDS = 4;

/** Page numbers the producers print: LaTeX's "3" at the foot, groff -ms's "-3-" at the head. */
const RUNNING: Record<ListDocument['producer'], string[]> = {
  latex: ['#'],
  groff: ['-#-'],
  chromium: [],
  docx: [],
  odt: [],
};
const FOLIO = /^-?\s*\d+\s*-?$/;
/** A list marker opening the page: the Markdown prints its own marker, so the first words are the item's. */
const LEADING_MARKER = /^(?:[^\p{L}\p{N}\s]|\(?(?:\d{1,3}|[a-z]|[ivx]{1,5})[.)])\s+/iu;

function pdfText(pdf: string, page: number): string {
  return execFileSync('pdftotext', ['-f', String(page), '-l', String(page), pdf, '-'], { encoding: 'utf8' });
}

function pageCount(pdf: string): number {
  return Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' }))?.[1] ?? 0);
}

/** First words of each page as pdftotext reads them, without the folio at its head or foot. */
function pageStartsOf(pdf: string): string[] {
  return Array.from({ length: pageCount(pdf) }, (_, i) => {
    const lines = pdfText(pdf, i + 1)
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
    if (FOLIO.test(lines[0] ?? '')) lines.shift();
    if (FOLIO.test(lines[lines.length - 1] ?? '')) lines.pop();
    return lines
      .join(' ')
      .replace(LEADING_MARKER, '')
      .split(/\s+/)
      .filter(Boolean)
      .slice(0, PAGE_START_WORDS)
      .join(' ');
  });
}

function meta(document: ListDocument, pdf: string): TruthMeta {
  const pageStarts = pageStartsOf(pdf);
  return { route: document.producer, pages: pageStarts.length, pageStarts, runningLines: RUNNING[document.producer] };
}

function generate(document: ListDocument, work: string): TruthMeta {
  writeFileSync(join(LISTS_DIR, `${document.name}.md`), truthMarkdown(document));
  const pdf = render(document, work);
  copyFileSync(pdf, join(LISTS_DIR, `${document.name}.pdf`));
  return meta(document, pdf);
}

function main(): void {
  mkdirSync(LISTS_DIR, { recursive: true });
  const metaOnly = process.argv.includes('--meta');
  const only = process.argv.slice(2).filter((arg) => arg !== '--meta');
  for (const document of DOCUMENTS) {
    if (only.length && !only.includes(document.name)) continue;
    const work = mkdtempSync(join(tmpdir(), 'md-lists-'));
    try {
      const truth = metaOnly ? meta(document, join(LISTS_DIR, `${document.name}.pdf`)) : generate(document, work);
      writeFileSync(join(LISTS_DIR, `${document.name}.json`), `${JSON.stringify(truth, null, 2)}\n`);
      console.log(`${document.name}: ${truth.pages} page(s) via ${truth.route} (${half(document.name)})`);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
