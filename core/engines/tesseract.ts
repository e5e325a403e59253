/**
 * tesseract: text recognition (OCR) of one image. Every family that reads images for text calls
 * recognizeText (or recognizeLayout), so they share one Debian requirement (the program and its
 * English data; every offered language's data for tools that take `lang`), one `lang` option
 * with one rule and wording, and one translation of tesseract's failures.
 */
import { z } from 'zod';
import { PluginError, type EngineRequirement } from '../contract/index.js';
import { isExitFailure, runOptions, type EngineContext } from './common.js';
import { OCR_LANGUAGES } from './ocrmypdf.js';
import { runProcess } from './process.js';

/** Without its English data tesseract cannot recognise anything. */
export const TESSERACT: EngineRequirement = {
  command: 'tesseract',
  debian: ['tesseract-ocr', 'tesseract-ocr-eng'],
  license: 'Apache-2.0',
};

/** tesseract with the data of every language OCR is offered in, for plugins that take `lang`. */
export const TESSERACT_ALL_LANGUAGES: EngineRequirement = {
  ...TESSERACT,
  debian: ['tesseract-ocr', ...OCR_LANGUAGES.map((lang) => `tesseract-ocr-${lang}`)],
};

const LANG_RULE = 'eng, fra, deu or jpn, or up to three of them joined with + (e.g. eng+fra)';
const MAX_LANGUAGES = 3;

/** Why an OCR `lang` value is refused, or undefined when it is valid. */
export function ocrLanguageProblem(lang: string): string | undefined {
  const parts = lang.split('+');
  if (parts.length > MAX_LANGUAGES) return `must be ${LANG_RULE}: at most ${MAX_LANGUAGES} languages`;
  for (const part of parts) {
    if (!(OCR_LANGUAGES as readonly string[]).includes(part))
      return `must be ${LANG_RULE}; '${part}' is not one of them`;
  }
  const repeated = parts.find((part, i) => parts.indexOf(part) !== i);
  if (repeated) return `lists ${repeated} twice`;
  return undefined;
}

/**
 * The `lang` option of every tool that OCRs (one wording, one rule): tesseract language codes,
 * up to three joined with +, default eng. Callers may give it their own description.
 */
export const ocrLanguageOption = z
  .string({ error: `must be ${LANG_RULE}` })
  .trim()
  .superRefine((lang, ctx) => {
    const problem = ocrLanguageProblem(lang);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .default('eng')
  .describe('Language(s) of the text: eng, fra, deu or jpn, or up to three joined with + (e.g. eng+fra). Default eng.');

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
export async function recognizeText(
  image: string,
  ctx: EngineContext,
  { language = 'eng' }: { language?: string } = {},
): Promise<string> {
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
export async function recognizeLayout(
  image: string,
  ctx: EngineContext,
  { language = 'eng', dpi }: { language?: string; dpi?: number } = {},
): Promise<string> {
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
