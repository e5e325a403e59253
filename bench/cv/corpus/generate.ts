/**
 * Regenerates the CV corpus: bench/cv/corpus/files/<id>.<pdf|docx|doc> and truth.json.
 *
 *   npx tsx bench/cv/corpus/generate.ts
 *
 * Needs LibreOffice (soffice: FODT -> PDF / DOCX / DOC) and poppler-utils (pdftoppm rasterises
 * the scans, which are then PDFs of greyscale JPEG pages with no text layer).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PDFDocument } from 'pdf-lib';
import { runProcess } from '../../../core/engines/process.js';
import type { CvTruth } from './model.js';
import { corpusSpecs, truthOf } from './people.js';
import { renderFodt } from './render.js';

export const CORPUS_DIR = dirname(fileURLToPath(import.meta.url));
export const FILES_DIR = join(CORPUS_DIR, 'files');
export const TRUTH_FILE = join(CORPUS_DIR, 'truth.json');

async function soffice(work: string, target: string, inputs: string[]): Promise<void> {
  if (!inputs.length) return;
  const profile = pathToFileURL(join(work, 'profile')).href;
  await runProcess(
    'soffice',
    [
      `-env:UserInstallation=${profile}`,
      '--headless',
      '--convert-to',
      target,
      '--outdir',
      join(work, 'out'),
      ...inputs,
    ],
    {
      timeoutMs: 600_000,
      env: { ...process.env, HOME: work },
    },
  );
}

/** A PDF of greyscale JPEG page images at 200 dpi: what a scanner gives, no text layer. */
async function scanOf(pdf: string, work: string, name: string): Promise<Uint8Array> {
  const prefix = join(work, `scan-${name}`);
  await runProcess('pdftoppm', ['-r', '200', '-gray', '-jpeg', '-jpegopt', 'quality=80', pdf, prefix], {
    timeoutMs: 120_000,
  });
  const pages = readdirSync(work)
    .filter((file) => file.startsWith(`scan-${name}-`) && file.endsWith('.jpg'))
    .sort();
  const doc = await PDFDocument.create();
  for (const page of pages) {
    const image = await doc.embedJpg(readFileSync(join(work, page)));
    const width = (image.width * 72) / 200;
    const height = (image.height * 72) / 200;
    doc.addPage([width, height]).drawImage(image, { x: 0, y: 0, width, height });
  }
  return doc.save({ useObjectStreams: false });
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'cv-corpus-'));
  mkdirSync(join(work, 'out'));
  rmSync(FILES_DIR, { recursive: true, force: true });
  mkdirSync(FILES_DIR, { recursive: true });
  const specs = corpusSpecs();
  const byTarget: Record<'pdf' | 'docx' | 'doc', string[]> = { pdf: [], docx: [], doc: [] };
  for (const spec of specs) {
    const source = join(work, `${spec.id}.fodt`);
    writeFileSync(source, renderFodt(spec));
    byTarget[spec.format === 'scan' ? 'pdf' : spec.format].push(source);
  }
  await soffice(work, 'pdf:writer_pdf_Export', byTarget.pdf);
  await soffice(work, 'docx:MS Word 2007 XML', byTarget.docx);
  await soffice(work, 'doc:MS Word 97', byTarget.doc);
  const truths: CvTruth[] = [];
  for (const spec of specs) {
    const ext = spec.format === 'scan' ? 'pdf' : spec.format;
    const produced = join(work, 'out', `${spec.id}.${ext}`);
    const file = `${spec.id}.${ext}`;
    if (spec.format === 'scan') writeFileSync(join(FILES_DIR, file), await scanOf(produced, work, spec.id));
    else copyFileSync(produced, join(FILES_DIR, file));
    truths.push(truthOf(spec, file));
  }
  writeFileSync(TRUTH_FILE, `${JSON.stringify(truths, null, 1)}\n`);
  rmSync(work, { recursive: true, force: true });
  console.log(`${truths.length} CVs in ${FILES_DIR}`);
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) await main();
