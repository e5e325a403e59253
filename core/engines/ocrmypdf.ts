/**
 * OCRmyPDF (MPL-2.0): adds an invisible, searchable text layer to the pages of a PDF that have
 * none, with tesseract recognising the text and ghostscript rasterising the pages for it.
 *
 * Always run as
 * - `--skip-text`: a page that already has text is copied as it is, not OCRed again;
 * - `--output-type pdf --optimize 0`: no PDF/A conversion (ghostscript would re-encode the scans
 *   as lossy JPEG) and no image optimisation, so the page images come out as they went in;
 * - `--jobs 1` with `OMP_THREAD_LIMIT=1`: one core per run (runs already go side by side).
 */
import path from 'node:path';
import { PluginError, type EngineRequirement } from '../contract/index.js';
import { engineDetail, isExitFailure, runOptions, withDetail, type EngineContext } from './common.js';
import { runProcess } from './process.js';
import { ENCRYPTED_PDF_MESSAGE, UNREADABLE_PDF_MESSAGE } from './qpdf.js';

/** The languages OCR is offered in (tesseract's codes), and the Debian package of each one's data. */
export const OCR_LANGUAGES = ['eng', 'fra', 'deu', 'jpn'] as const;

/**
 * ocrmypdf with every offered language's tesseract data (without them it refuses the language),
 * and a Japanese font for ghostscript when a page's Japanese fonts are not embedded.
 */
export const OCRMYPDF: EngineRequirement = {
  command: 'ocrmypdf',
  debian: [
    'ocrmypdf',
    'tesseract-ocr',
    ...OCR_LANGUAGES.map((lang) => `tesseract-ocr-${lang}`),
    'fonts-ipafont-gothic',
  ],
  license: 'MPL-2.0',
};

/** ocrmypdf's exit codes (ocrmypdf.ExitCode) that are the input's fault. */
const EXIT_BAD_INPUT = 2;
const EXIT_ENCRYPTED = 8;

/**
 * ocrmypdf failures as client messages: an encrypted PDF, a file it cannot read, else a summary
 * with its own last words. Missing language data or a missing dependency (exit 3) is a broken
 * install and passes through, like aborts, timeouts and a missing ocrmypdf.
 */
export function ocrmypdfFailure(err: unknown, signal: AbortSignal): unknown {
  if (!isExitFailure(err, signal)) return err;
  if (err.exitCode === 3 || /language data|Missing dependency/i.test(err.stderrTail)) return err;
  if (err.exitCode === EXIT_ENCRYPTED) return new PluginError(ENCRYPTED_PDF_MESSAGE, { cause: err });
  if (err.exitCode === EXIT_BAD_INPUT)
    return new PluginError(withDetail(UNREADABLE_PDF_MESSAGE, engineDetail(err.stderrTail)), { cause: err });
  return new PluginError(withDetail('The PDF could not be OCRed', engineDetail(err.stderrTail)), { cause: err });
}

export interface OcrOptions {
  /** tesseract languages joined with '+', e.g. "eng+fra". */
  languages: string;
  /** Called with the 1-based number of each page as ocrmypdf starts on it. */
  onPage?: (page: number) => void;
}

/** OCR `input` into `output` (both PDFs): pages without text get an invisible text layer. */
export async function ocrPdf(
  input: string,
  output: string,
  ctx: EngineContext,
  { languages, onPage }: OcrOptions,
): Promise<void> {
  if (!/^[a-z]{3}(?:\+[a-z]{3})*$/.test(languages)) throw new Error(`invalid OCR languages: ${languages}`);
  let lastPage = 0;
  try {
    await runProcess(
      OCRMYPDF.command,
      [
        '--skip-text',
        '--output-type',
        'pdf',
        '--optimize',
        '0',
        '--jobs',
        '1',
        '--language',
        languages,
        '--',
        input,
        output,
      ],
      runOptions(ctx, {
        // TMPDIR: the Ghostscript it runs (-dSAFER) may read its temp folder: the run's own (ghostscript.ts).
        env: { ...process.env, OMP_THREAD_LIMIT: '1', TMPDIR: path.dirname(output) },
        captureStdout: false,
        // Per-page log lines start with the page number: "    3 ...".
        onStderrLine: (line) => {
          const page = /^\s*(\d+)\s/.exec(line);
          if (!page) return;
          const number = Number(page[1]);
          if (number > lastPage) {
            lastPage = number;
            onPage?.(number);
          }
        },
      }),
    );
  } catch (err) {
    throw ocrmypdfFailure(err, ctx.signal);
  }
}
