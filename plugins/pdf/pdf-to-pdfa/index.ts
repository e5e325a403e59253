/**
 * pdf-to-pdfa: `to=pdf` from a PDF with `pdfa` (1b, 2b, 3b) rewrites it as PDF/A through
 * Ghostscript: fonts embedded, an sRGB OutputIntent, XMP pdfaid, JavaScript and encryption gone.
 * Encrypted input is refused first (unlock-pdf takes the password). Not validated with veraPDF.
 */
import { definePlugin } from '../../../core/contract/index.js';
import { GHOSTSCRIPT } from '../../../core/engines/ghostscript.js';
import { QPDF } from '../../../core/engines/qpdf.js';
import { GHOSTSCRIPT_RENDER, pdfFamily, pdfLimits } from '../shared/family.js';
import { pdfToPdfaOptions } from './options.js';

export const pdfToPdfaPlugin = definePlugin({
  ...pdfFamily,
  id: 'pdf-to-pdfa',
  kind: 'convert',
  title: 'PDF to PDF/A (Ghostscript)',
  inputs: ['pdf'],
  outputs: ['pdf'],
  options: pdfToPdfaOptions,
  plan: 'free',
  // What it links: nothing beyond the engines, which declare their own.
  licenses: [],
  engines: [QPDF, GHOSTSCRIPT],
  limits: pdfLimits(GHOSTSCRIPT_RENDER),
  run: async (inputs, options, ctx) => (await import('./run.js')).convertPdfToPdfa(inputs, options, ctx),
});
