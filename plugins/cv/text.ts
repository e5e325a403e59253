/**
 * The text of a CV file: PDF text layer (pdftotext), OCR for scans (pdftoppm + tesseract),
 * DOCX paragraphs, and legacy DOC through LibreOffice to DOCX.
 */
import { copyFile, mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { PluginError, type PluginInput, type RunContext } from '../../core/contract/index.js';
import { libreOfficeConvert } from '../../core/engines/libreoffice.js';
import { EngineError, runProcess } from '../../core/engines/process.js';
import { docxText } from './docx.js';

export interface CvText {
  text: string;
  /** Recognised from page images, so characters may be misread. */
  ocr: boolean;
}

// Below this many letters per page a PDF is a scan (or a scan with a stray footer).
const MIN_LETTERS_PER_PAGE = 40;
// A CV is one to three pages; OCR of more would only spend the time limit on appendices.
export const MAX_OCR_PAGES = 5;
const OCR_DPI = '300';

const letterCount = (text: string) => text.match(/\p{L}/gu)?.length ?? 0;

/** Client-facing errors for the ways a PDF can be unreadable; engine stops (abort, timeout) pass through. */
function pdfFailure(err: unknown): unknown {
  if (!(err instanceof EngineError) || err.reason !== 'exit') return err;
  if (/password/i.test(err.stderrTail)) return new PluginError('This PDF is password-protected: unlock it first, then parse it', { cause: err });
  return new PluginError('Could not read this PDF: the file is damaged or is not a PDF', { cause: err });
}

async function pdfText(pdf: string, ctx: RunContext): Promise<CvText> {
  let layer: string;
  try {
    ({ stdout: layer } = await runProcess('pdftotext', ['-layout', '-enc', 'UTF-8', pdf, '-'], { signal: ctx.signal, timeoutMs: ctx.remainingMs() }));
  } catch (err) {
    throw pdfFailure(err);
  }
  // pdftotext ends every page with a form feed.
  const pages = Math.max(1, layer.split('\f').length - 1);
  if (letterCount(layer) >= MIN_LETTERS_PER_PAGE * pages) return { text: layer, ocr: false };
  ctx.progress(10);
  return { text: await ocrPdf(pdf, ctx), ocr: true };
}

async function ocrPdf(pdf: string, ctx: RunContext): Promise<string> {
  const pagesDir = path.join(ctx.workDir, 'pages');
  await mkdir(pagesDir);
  try {
    await runProcess('pdftoppm', ['-r', OCR_DPI, '-gray', '-png', '-l', String(MAX_OCR_PAGES), pdf, path.join(pagesDir, 'page')], {
      signal: ctx.signal,
      timeoutMs: ctx.remainingMs(),
    });
  } catch (err) {
    throw pdfFailure(err);
  }
  // page-1.png or page-01.png (zero-padded to the page count): the padding keeps name order = page order.
  const images = (await readdir(pagesDir)).filter((name) => name.endsWith('.png')).sort();
  const texts: string[] = [];
  for (const [index, image] of images.entries()) {
    const { stdout } = await runProcess('tesseract', [path.join(pagesDir, image), 'stdout', '-l', 'eng'], {
      signal: ctx.signal,
      timeoutMs: ctx.remainingMs(),
      // One thread per page is much faster than tesseract's OpenMP default on small machines.
      env: { ...process.env, OMP_THREAD_LIMIT: '1' },
    });
    texts.push(stdout);
    ctx.progress(10 + Math.round((80 * (index + 1)) / images.length));
  }
  return texts.join('\f');
}

/** Legacy Word -> DOCX with LibreOffice, in a private profile (two soffice sharing one silently fail). */
async function docToDocx(doc: string, ctx: RunContext): Promise<string> {
  const convertDir = path.join(ctx.workDir, 'doc');
  await mkdir(convertDir);
  // A fixed name: soffice names its output after the input, and client file names can be anything.
  const source = path.join(convertDir, 'cv.doc');
  await copyFile(doc, source);
  await libreOfficeConvert({
    input: source,
    convertTo: 'docx:MS Word 2007 XML',
    outDir: convertDir,
    profileDir: path.join(ctx.workDir, 'lo-profile'),
    signal: ctx.signal,
    timeoutMs: ctx.remainingMs(),
  });
  return path.join(convertDir, 'cv.docx');
}

async function readDocx(file: string): Promise<string> {
  try {
    return docxText(new Uint8Array(await readFile(file)));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new PluginError('Could not read this .doc file: the file is damaged or is not a Word document', { cause: err });
    }
    throw err;
  }
}

export async function cvText(input: PluginInput, ctx: RunContext): Promise<CvText> {
  const extracted =
    input.format === 'pdf'
      ? await pdfText(input.path, ctx)
      : { text: await readDocx(input.format === 'doc' ? await docToDocx(input.path, ctx) : input.path), ocr: false };
  if (letterCount(extracted.text) === 0) {
    throw new PluginError(extracted.ocr ? 'No readable text found in this CV, even with OCR' : 'No text found in this CV');
  }
  return extracted;
}
