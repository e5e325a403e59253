/** What every search plugin declares: the licences of what it links, the engines it runs, its default limits. */
import type { Plugin } from '../../../core/contract/index.js';
import { PDFTOTEXT } from '../../../core/engines/poppler.js';
import { TESSERACT } from '../../../core/engines/tesseract.js';

export const searchFamily = {
  // What it links: exceljs, pdf-lib, yauzl, yazl (MIT), sharp (Apache-2.0) with libvips
  // (LGPL-3.0-or-later); engines declare their own.
  licenses: ['MIT', 'Apache-2.0', 'LGPL-3.0-or-later'],
  engines: [PDFTOTEXT, TESSERACT],
  limits: { timeoutMs: 60_000, concurrency: 2 },
} satisfies Pick<Plugin, 'licenses' | 'engines' | 'limits'>;
