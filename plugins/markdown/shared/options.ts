import { z } from 'zod';
import { ocrLanguageOption } from '../../../core/engines/tesseract.js';

/** Options a client may set, exactly as the wire contract names them. */
export const markdownOptions = z.object({
  keepRunning: z.boolean().default(false).describe('Keep running headers and footers (default: stripped).'),
  pageBreaks: z.boolean().default(true).describe('Mark page breaks with <!-- page N --> comments.'),
  // Beyond the spec (it lists keepRunning and pageBreaks): scans are OCRed in the languages the OCR tool offers.
  lang: ocrLanguageOption.describe(
    'Language(s) of scanned pages (no text layer), read by OCR: eng, fra, deu or jpn, or up to three joined with + ' +
      '(e.g. eng+fra). Default eng.',
  ),
});

export type MarkdownOptions = z.input<typeof markdownOptions>;

export const DEFAULT_TIME_BUDGET_MS = 60_000;

/** Engine options: the client's options plus how long the caller lets one document take. */
export interface EngineOptions extends MarkdownOptions {
  /** Wall-clock budget for the whole document; default 60 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
}
