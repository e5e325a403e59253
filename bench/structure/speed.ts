/**
 * Structure extraction speed per input kind: every file of the corpus read into the document model
 * once, one at a time, timed wall-clock, as the plugins read them (pandoc's JSON AST for DOCX and
 * HTML, PresentationML for PPTX, ExcelJS for XLSX, the PDF engine's blocks for PDF). Units: PDF
 * pages, PPTX slides, XLSX sheets, DOCX pages as Word last counted them (docProps/app.xml), HTML
 * documents. Prints the machine's load average beside the figures: a shared machine slows them.
 * Run: npx tsx bench/structure/speed.ts
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { readPdfDocument } from '../../plugins/markdown/pdf-structure/run.js';
import { readDocument } from '../../plugins/document/shared/read.js';
import type { Document } from '../../schema/index.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const FILES = path.join(import.meta.dirname, 'files');
const PDFS = path.join(ROOT, 'plugins/markdown/testing/fixtures/real');
const HTML = [path.join(ROOT, 'test/fixtures/documents/users-and-groups.html')];

type Kind = 'docx' | 'pptx' | 'xlsx' | 'html' | 'pdf';

/** Pages Word recorded in the file's extended properties (0 when it did not). */
async function docxPages(file: string): Promise<number> {
  const parts = unzipSync(new Uint8Array(await readFile(file)), { filter: (f) => f.name === 'docProps/app.xml' });
  const xml = parts['docProps/app.xml'] ? new TextDecoder().decode(parts['docProps/app.xml']) : '';
  return Number(/<Pages>(\d+)<\/Pages>/.exec(xml)?.[1] ?? 0);
}

function units(kind: Kind, document: Document): number {
  if (kind === 'pdf') return document.pages?.length ?? 0;
  if (kind === 'pptx' || kind === 'xlsx') return document.body.filter((block) => block.type === 'section').length;
  return 1;
}

const load = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

async function main() {
  const work = await mkdtemp(path.join(os.tmpdir(), 'structure-speed-'));
  const ctx = {
    signal: new AbortController().signal,
    remainingMs: () => 600_000,
    workDir: work,
    progress: () => {},
    report: () => {},
  } as never;
  const corpus: [Kind, string[]][] = [
    ['docx', (await readdir(path.join(FILES, 'docx'))).map((name) => path.join(FILES, 'docx', name))],
    ['pptx', (await readdir(path.join(FILES, 'pptx'))).map((name) => path.join(FILES, 'pptx', name))],
    ['xlsx', (await readdir(path.join(FILES, 'xlsx'))).map((name) => path.join(FILES, 'xlsx', name))],
    ['html', HTML],
    ['pdf', (await readdir(PDFS)).filter((name) => name.endsWith('.pdf')).map((name) => path.join(PDFS, name))],
  ];
  console.log(`load average before: ${load()}; ${os.cpus().length} CPUs`);
  for (const [kind, files] of corpus) {
    let seconds = 0;
    let count = 0;
    let read = 0;
    let wordPages = 0;
    for (const file of files.sort()) {
      const input = { path: file, format: kind, filename: path.basename(file), bytes: 0 } as never;
      const started = performance.now();
      let document: Document;
      try {
        document =
          kind === 'pdf'
            ? await readPdfDocument(input, { keepRunning: false, lang: 'eng' }, ctx)
            : await readDocument(input, ctx);
      } catch {
        continue;
      }
      seconds += (performance.now() - started) / 1000;
      read++;
      count += units(kind, document);
      if (kind === 'docx') wordPages += await docxPages(file);
    }
    const unit = { docx: 'documents', pptx: 'slides', xlsx: 'sheets', html: 'documents', pdf: 'pages' }[kind];
    const extra =
      kind === 'docx' && wordPages ? `; ${wordPages} Word pages: ${(wordPages / seconds).toFixed(2)} pages/s` : '';
    console.log(
      `${kind}: ${read} files, ${count} ${unit} in ${seconds.toFixed(2)} s: ${(count / seconds).toFixed(2)} ` +
        `${unit}/s${extra}`,
    );
  }
  console.log(`load average after: ${load()}`);
  await rm(work, { recursive: true, force: true });
}

await main();
