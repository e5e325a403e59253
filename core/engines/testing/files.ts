/**
 * Real files for the engine modules' tests, made on the fly in a temp dir: a two-page text PDF
 * (pdf-lib), its encrypted copy and a truncated copy, a file that is no PDF at all, a PNG of
 * large printed text (sharp from SVG) and a PNG that is garbage after its signature.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll } from 'vitest';
import type { RunContext } from '../../contract/index.js';
import { runProcess } from '../process.js';

export const PAGE_TEXTS = ['Engines page one', 'Engines page two'];
export const PASSWORD = 'engine secret';
export const PHOTO_TEXT = 'INVOICE 4711';

export interface EngineTestFiles {
  dir: string;
  pdf: string;
  encryptedPdf: string;
  truncatedPdf: string;
  notPdf: string;
  photo: string;
  garbagePng: string;
  /** A context for engine calls: a work dir of its own, a signal that never fires, `remainingMs`. */
  ctx(remainingMs?: number): Promise<Pick<RunContext, 'signal' | 'remainingMs' | 'workDir'>>;
  cleanup(): Promise<void>;
}

export async function makeEngineTestFiles(): Promise<EngineTestFiles> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'engines-'));
  const at = (name: string) => path.join(dir, name);

  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const text of PAGE_TEXTS) doc.addPage([400, 300]).drawText(text, { x: 30, y: 200, size: 20, font });
  await writeFile(at('text.pdf'), await doc.save());
  await runProcess('qpdf', ['--encrypt', PASSWORD, PASSWORD, '256', '--', at('text.pdf'), at('encrypted.pdf')], {
    timeoutMs: 15_000,
  });
  const bytes = await readFile(at('text.pdf'));
  await writeFile(at('truncated.pdf'), bytes.subarray(0, Math.floor(bytes.length / 3)));
  await writeFile(at('not.pdf'), 'this is plain text, not a PDF\n'.repeat(20));

  const svg =
    '<svg xmlns="http://www.w3.org/2000/svg" width="640" height="180">' +
    '<rect width="100%" height="100%" fill="white"/>' +
    `<text x="30" y="110" font-family="DejaVu Sans, sans-serif" font-size="56" fill="black">${PHOTO_TEXT}</text></svg>`;
  await sharp(Buffer.from(svg)).flatten({ background: '#ffffff' }).toFile(at('photo.png'));
  await writeFile(at('garbage.png'), Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(2000, 0x41)]));

  let runs = 0;
  return {
    dir,
    pdf: at('text.pdf'),
    encryptedPdf: at('encrypted.pdf'),
    truncatedPdf: at('truncated.pdf'),
    notPdf: at('not.pdf'),
    photo: at('photo.png'),
    garbagePng: at('garbage.png'),
    async ctx(remainingMs = 30_000) {
      const workDir = await mkdtemp(path.join(dir, `run-${++runs}-`));
      return { signal: new AbortController().signal, remainingMs: () => remainingMs, workDir };
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(outcome instanceof Error)) throw new Error(`expected a rejection, got ${String(outcome)}`);
  return outcome;
}

/** The files for one test file: made before its tests, removed after; call at the top level. */
export function useEngineTestFiles(): () => EngineTestFiles {
  let files: EngineTestFiles | undefined;
  beforeAll(async () => {
    files = await makeEngineTestFiles();
  }, 30_000);
  afterAll(() => files?.cleanup());
  return () => {
    if (!files) throw new Error('the engine test files are made in beforeAll');
    return files;
  };
}
