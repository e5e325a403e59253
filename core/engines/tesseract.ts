/**
 * tesseract: text recognition (OCR) of one image. Every family that reads images for text calls
 * recognizeText, so they share one Debian requirement (the program and its English data) and
 * one translation of tesseract's failures.
 */
import { PluginError, type EngineRequirement } from '../contract/index.js';
import { isExitFailure, runOptions, type EngineContext } from './common.js';
import { runProcess } from './process.js';

/** Without its English data tesseract cannot recognise anything. */
export const TESSERACT: EngineRequirement = { command: 'tesseract', debian: ['tesseract-ocr', 'tesseract-ocr-eng'], license: 'Apache-2.0' };

/**
 * tesseract failures as client messages: an image it cannot read. Missing language data is a
 * broken install, not a bad image, so it passes through (and fails the run) like aborts,
 * timeouts and a missing tesseract.
 */
export function tesseractFailure(err: unknown, signal: AbortSignal): unknown {
  if (!isExitFailure(err, signal)) return err;
  if (/Failed loading language|Error opening data file/.test(err.stderrTail)) return err;
  return new PluginError('The image could not be read for text recognition; it may be damaged', { cause: err });
}

/** The recognised text of one image (PNG, JPEG, TIFF, WebP...), lines as tesseract reads them. */
export async function recognizeText(image: string, ctx: EngineContext, { language = 'eng' }: { language?: string } = {}): Promise<string> {
  try {
    const { stdout } = await runProcess(
      TESSERACT.command,
      [image, 'stdout', '-l', language],
      // tesseract's OpenMP threads fight the worker's own concurrency: one thread per run is much faster overall.
      runOptions(ctx, { env: { ...process.env, OMP_THREAD_LIMIT: '1' } }),
    );
    return stdout;
  } catch (err) {
    throw tesseractFailure(err, ctx.signal);
  }
}

/**
 * The recognised words of one image with their boxes, as tesseract's hOCR (lines with bbox,
 * baseline and x_size; words with bbox and confidence), for callers that rebuild layout.
 * `dpi` is the image's resolution when the image file does not say it.
 */
export async function recognizeLayout(image: string, ctx: EngineContext, { language = 'eng', dpi }: { language?: string; dpi?: number } = {}): Promise<string> {
  try {
    const { stdout } = await runProcess(
      TESSERACT.command,
      [image, 'stdout', '-l', language, ...(dpi ? ['--dpi', String(Math.round(dpi))] : []), 'hocr'],
      runOptions(ctx, { env: { ...process.env, OMP_THREAD_LIMIT: '1' } }),
    );
    return stdout;
  } catch (err) {
    throw tesseractFailure(err, ctx.signal);
  }
}
