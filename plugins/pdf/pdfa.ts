/**
 * pdf-to-pdfa: `to=pdf` from a PDF with `pdfa` (1b, 2b, 3b) rewrites it as PDF/A through
 * Ghostscript: fonts embedded, an sRGB OutputIntent, XMP pdfaid, JavaScript and encryption gone.
 * Encrypted input is refused first (unlock-pdf takes the password). Not validated with veraPDF.
 */
import path from 'node:path';
import { z } from 'zod';
import { PluginError, definePlugin } from '../../core/contract/index.js';
import { GHOSTSCRIPT, pdfToPdfa } from '../../core/engines/ghostscript.js';
import { pdfaOption, pdfaPart } from '../../core/engines/pdfa.js';
import { QPDF, openPdf } from '../../core/engines/qpdf.js';
import { pdfLimits } from './shared/run.js';
import { transformPdf } from './shared/transform.js';

export const pdfToPdfaPlugin = definePlugin({
  id: 'pdf-to-pdfa',
  kind: 'convert',
  title: 'PDF to PDF/A (Ghostscript)',
  inputs: ['pdf'],
  outputs: ['pdf'],
  // A PDF "converted" to PDF says what to change: the PDF/A level is required.
  options: z.object({ pdfa: pdfaOption }),
  plan: 'free',
  // What it links: nothing beyond the engines, which declare their own.
  licenses: [],
  engines: [QPDF, GHOSTSCRIPT],
  limits: pdfLimits(10),
  run: (inputs, options, ctx) =>
    transformPdf(inputs, ctx, async ({ pages, input, output }) => {
      await pdfToPdfa(input.path, output, ctx, {
        part: pdfaPart(options.pdfa),
        definitionFile: path.join(ctx.workDir, 'pdfa-def.ps'),
        summary: `The PDF could not be made PDF/A-${options.pdfa}`,
      });
      ctx.progress(90);
      const written = await openPdf(output, ctx);
      if (written !== pages)
        throw new PluginError(`The PDF could not be made PDF/A: ${pages} pages in, ${written} out`);
    }),
});
