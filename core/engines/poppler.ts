/**
 * poppler-utils: a PDF's text layer (pdftotext), its pages as images (pdftoppm), its embedded
 * images (pdfimages) and its fonts (pdffonts). Every family that reads PDFs with poppler calls these, so they share one
 * Debian requirement and one translation of poppler's failures.
 */
import { PluginError, type EngineRequirement } from '../contract/index.js';
import { engineDetail, isExitFailure, runOptions, withDetail, type EngineContext } from './common.js';
import { runProcess } from './process.js';
import { ENCRYPTED_PDF_MESSAGE, UNREADABLE_PDF_MESSAGE } from './qpdf.js';

const POPPLER_DEBIAN = 'poppler-utils';
/** poppler-utils: GPL-2.0 or GPL-3.0 (xpdf's heritage). */
const POPPLER_LICENSE = 'GPL-2.0-only OR GPL-3.0-only';
export const PDFTOTEXT: EngineRequirement = { command: 'pdftotext', debian: POPPLER_DEBIAN, license: POPPLER_LICENSE };
export const PDFTOPPM: EngineRequirement = { command: 'pdftoppm', debian: POPPLER_DEBIAN, license: POPPLER_LICENSE };
export const PDFIMAGES: EngineRequirement = { command: 'pdfimages', debian: POPPLER_DEBIAN, license: POPPLER_LICENSE };
export const PDFFONTS: EngineRequirement = { command: 'pdffonts', debian: POPPLER_DEBIAN, license: POPPLER_LICENSE };

/** poppler's exit code when the PDF's permissions forbid what was asked (copying text or images). */
const PERMISSION_DENIED = 3;

/**
 * poppler failures as client messages: a password-protected PDF, one whose permissions forbid
 * copying, else `summary` with poppler's own words. Aborts, timeouts and a missing program pass through.
 */
export function popplerFailure(err: unknown, signal: AbortSignal, summary: string = UNREADABLE_PDF_MESSAGE): unknown {
  if (!isExitFailure(err, signal)) return err;
  if (/password/i.test(err.stderrTail)) return new PluginError(ENCRYPTED_PDF_MESSAGE, { cause: err });
  if (err.exitCode === PERMISSION_DENIED) {
    const what = err.command === PDFTOTEXT.command ? 'its text' : 'its content';
    return new PluginError(`The PDF's permissions do not allow copying ${what}`, { cause: err });
  }
  return new PluginError(withDetail(summary, engineDetail(err.stderrTail)), { cause: err });
}

async function poppler(
  command: string,
  args: readonly string[],
  ctx: EngineContext,
  summary?: string,
): Promise<string> {
  try {
    return (await runProcess(command, args, runOptions(ctx))).stdout;
  } catch (err) {
    throw popplerFailure(err, ctx.signal, summary);
  }
}

const textArgs = (layout: boolean) => [...(layout ? ['-layout'] : []), '-enc', 'UTF-8', '-eol', 'unix'];

/**
 * The text layer as UTF-8, every page ended by a form feed. `layout` keeps the physical layout
 * (columns side by side); without it text comes in reading order. Held in memory: for a text
 * of any size, use pdfTextToFile.
 */
export function pdfText(
  pdf: string,
  ctx: EngineContext,
  { layout = false }: { layout?: boolean } = {},
): Promise<string> {
  return poppler(PDFTOTEXT.command, [...textArgs(layout), pdf, '-'], ctx);
}

/** The text layer in reading order written to `output` (UTF-8, every page ended by a form feed). */
export async function pdfTextToFile(pdf: string, output: string, ctx: EngineContext): Promise<void> {
  await poppler(PDFTOTEXT.command, [...textArgs(false), pdf, output], ctx);
}

export interface RenderOptions {
  dpi: number;
  gray?: boolean;
  /** Render pages 1 to `lastPage` only. */
  lastPage?: number;
  /** Start at this page (with lastPage: one page, `firstPage` = `lastPage`). */
  firstPage?: number;
  /** Scale each page so its longer side is this many pixels (instead of `dpi`). */
  scaleTo?: number;
}

/**
 * Pages as PNG files `<prefix>-<page>.png` (the page number zero-padded to the page count's
 * width, so name order is page order).
 */
export async function renderPages(
  pdf: string,
  prefix: string,
  ctx: EngineContext,
  { dpi, gray = false, lastPage, firstPage, scaleTo }: RenderOptions,
): Promise<void> {
  const args = [
    '-r',
    String(dpi),
    ...(scaleTo ? ['-scale-to', String(scaleTo)] : []),
    ...(gray ? ['-gray'] : []),
    '-png',
    ...(firstPage ? ['-f', String(firstPage)] : []),
    ...(lastPage ? ['-l', String(lastPage)] : []),
    pdf,
    prefix,
  ];
  await poppler(PDFTOPPM.command, args, ctx);
}

/**
 * The embedded raster images as files `<prefix>-<page>-<number>.<png|jpg>`: JPEG as stored
 * (the very same bytes), everything else as PNG.
 */
export async function extractImages(pdf: string, prefix: string, ctx: EngineContext): Promise<void> {
  await poppler(PDFIMAGES.command, ['-j', '-png', '-p', pdf, prefix], ctx, 'The images could not be extracted');
}

export interface PdfFont {
  name: string;
  /** pdffonts' type: "Type 1", "TrueType", "CID Type 0C", "CID TrueType"... */
  type: string;
  embedded: boolean;
}

/** The fonts the pages of `pdf` use (pdffonts), each once. */
export async function pdfFonts(pdf: string, ctx: EngineContext): Promise<PdfFont[]> {
  const listing = await poppler(PDFFONTS.command, [pdf], ctx);
  // Below a header and a rule: name, type (may hold spaces), encoding, emb, sub, uni, object number, generation.
  return listing
    .split('\n')
    .slice(2)
    .map((line) => line.trim().split(/\s+/))
    .filter((columns) => columns.length >= 8)
    .map((columns) => ({
      name: columns[0]!,
      type: columns.slice(1, -6).join(' '),
      embedded: columns.at(-5) === 'yes',
    }));
}
