/**
 * The text of a CV file: PDF text layer (pdftotext), OCR for scans (pdftoppm + tesseract),
 * DOCX paragraphs, and legacy DOC through LibreOffice to DOCX.
 */
import { copyFile, mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { PluginError, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import { convertDocument } from '../../../core/engines/libreoffice.js';
import { pdfText as pdfTextLayer, renderPages } from '../../../core/engines/poppler.js';
import { recognizeText } from '../../../core/engines/tesseract.js';
import { docxText } from './docx.js';
import { positionedText } from './layout.js';

export interface CvText {
  text: string;
  /** Recognised from page images, so characters may be misread. */
  ocr: boolean;
}

// Below this many letters per page a PDF is a scan (or a scan with a stray footer).
const MIN_LETTERS_PER_PAGE = 40;
// A CV is one to three pages; OCR of more would only spend the time limit on appendices.
export const MAX_OCR_PAGES = 5;
const OCR_DPI = 300;

const letterCount = (text: string) => text.match(/\p{L}/gu)?.length ?? 0;

async function pdfText(pdf: string, ctx: RunContext): Promise<CvText> {
  // An encrypted or unreadable PDF is a PluginError from the poppler engine module.
  const layer = await pdfTextLayer(pdf, ctx, { layout: true });
  // pdftotext ends every page with a form feed.
  const pages = Math.max(1, layer.split('\f').length - 1);
  if (letterCount(layer) >= MIN_LETTERS_PER_PAGE * pages) {
    // Reading order by position (sidebars apart from the main column); pdftotext's if pdf.js loses text.
    const positioned = await positionedText(pdf, ctx.signal);
    const usable = positioned !== undefined && letterCount(positioned) >= letterCount(layer) * 0.9;
    return { text: usable ? positioned : layer, ocr: false };
  }
  ctx.progress(10);
  return { text: await ocrPdf(pdf, ctx), ocr: true };
}

async function ocrPdf(pdf: string, ctx: RunContext): Promise<string> {
  const pagesDir = path.join(ctx.workDir, 'pages');
  await mkdir(pagesDir);
  await renderPages(pdf, path.join(pagesDir, 'page'), ctx, { dpi: OCR_DPI, gray: true, lastPage: MAX_OCR_PAGES });
  // page-1.png or page-01.png (zero-padded to the page count): the padding keeps name order = page order.
  const images = (await readdir(pagesDir)).filter((name) => name.endsWith('.png')).sort();
  const texts: string[] = [];
  for (const [index, image] of images.entries()) {
    texts.push(await recognizeText(path.join(pagesDir, image), ctx));
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
  return convertDocument(
    {
      input: source,
      convertTo: 'docx:MS Word 2007 XML',
      // Forced: without it LibreOffice opens an undecodable .doc as plain text and "succeeds".
      inputFilter: 'MS Word 97',
      outDir: convertDir,
      profileDir: path.join(ctx.workDir, 'lo-profile'),
      summary: 'Could not read this .doc file',
      inputLabel: 'Word (.doc)',
    },
    ctx,
  );
}

const readDocx = async (file: string): Promise<string> => docxText(new Uint8Array(await readFile(file)));

export async function cvText(input: PluginInput, ctx: RunContext): Promise<CvText> {
  const extracted =
    input.format === 'pdf'
      ? await pdfText(input.path, ctx)
      : { text: await readDocx(input.format === 'doc' ? await docToDocx(input.path, ctx) : input.path), ocr: false };
  if (letterCount(extracted.text) === 0) {
    throw new PluginError(
      extracted.ocr ? 'No readable text found in this CV, even with OCR' : 'No text found in this CV',
    );
  }
  return extracted;
}
