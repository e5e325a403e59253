/** What every markdown plugin declares: the licences of what it links, the engines it runs, its default limits. */
import type { Plugin } from '../../../core/contract/index.js';
import { scaledTimeout } from '../../../core/contract/index.js';
import { TESSERACT_ALL_LANGUAGES } from '../../../core/engines/tesseract.js';

export const markdownFamily = {
  // What it links: pdfjs-dist (Apache-2.0); engines declare their own.
  licenses: ['Apache-2.0'],
  // tesseract reads pages with no text layer (scans), in the languages `lang` offers.
  engines: [TESSERACT_ALL_LANGUAGES],
  // Text PDFs take well under a second a page; a scan about 0.1-0.3 MB a page at 300 dpi and
  // 2-10 s of OCR, so the deadline grows with the file: 60 s per MB over the first two minutes.
  limits: { timeoutMs: scaledTimeout({ baseMs: 120_000, perMbMs: 60_000, maxMs: 1_800_000 }), concurrency: 2 },
} satisfies Pick<Plugin, 'licenses' | 'engines' | 'limits'>;
