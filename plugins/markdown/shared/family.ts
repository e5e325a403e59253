/**
 * What every markdown plugin declares: the licences of what it links, the engines it runs, its
 * default limits. Work is bounded in pages: qpdf counts them at acceptance (it reads the
 * page tree, never the content), and the deadline grows with the pages as well as the bytes.
 */
import type { Plugin, PluginInput, WorkMeasure } from '../../../core/contract/index.js';
import { scaledTimeout } from '../../../core/contract/index.js';
import { QPDF, measurePdfPages } from '../../../core/engines/qpdf.js';
import { TESSERACT_ALL_LANGUAGES } from '../../../core/engines/tesseract.js';

/**
 * Pages one job may carry: a long book of text (pdfjs reads well under a second a page), or a
 * scan the 30-minute ceiling can OCR; past it, split-pdf cuts the file first.
 */
export const MAX_MARKDOWN_PAGES = 2_000;
const MAX_MS = 30 * 60_000;
/** Added per counted page: a text page takes well under a second; a scanned one is OCRed in 2-10 s. */
const PER_PAGE_MS = 1_000;

export const markdownPagesWork: WorkMeasure = { unit: 'pages', max: MAX_MARKDOWN_PAGES, measure: measurePdfPages };

/**
 * A deadline that grows with the bytes (`baseMs` + `perMbMs` a MB) plus a second a counted page,
 * at most 30 minutes. A page count only ever adds time: an uncounted file keeps the byte-based one.
 */
export function markdownTimeout(baseMs: number, perMbMs: number) {
  const bytesTimeoutMs = scaledTimeout({ baseMs, perMbMs, maxMs: MAX_MS });
  return (inputs: readonly PluginInput[], pages?: number): number =>
    Math.min(MAX_MS, bytesTimeoutMs(inputs) + (pages ?? 0) * PER_PAGE_MS);
}

export const markdownFamily = {
  // What it links: pdfjs-dist (Apache-2.0); engines declare their own.
  licenses: ['Apache-2.0'],
  // tesseract reads pages with no text layer (scans), in the languages `lang` offers; qpdf counts the pages.
  engines: [TESSERACT_ALL_LANGUAGES, QPDF],
  // Text PDFs take well under a second a page; a scan about 0.1-0.3 MB a page at 300 dpi and
  // 2-10 s of OCR, so the deadline grows with the file: 60 s per MB over the first two minutes.
  limits: { timeoutMs: markdownTimeout(120_000, 60_000), work: markdownPagesWork, concurrency: 2 },
} satisfies Pick<Plugin, 'licenses' | 'engines' | 'limits'>;
