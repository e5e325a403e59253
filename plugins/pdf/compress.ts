/**
 * compress-pdf: ghostscript's pdfwrite with the /ebook profile, which
 * - downsamples colour and grey images above 150 dpi to 150 dpi (bicubic), monochrome to 300 dpi,
 * - re-encodes colour and grey images as JPEG at medium quality,
 * - subsets and compresses fonts and drops duplicate images and unused objects.
 * Text and vector graphics stay sharp; photos lose detail a screen does not show.
 * When the result is not smaller, the original is returned unchanged.
 */
import { copyFile, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import { PluginError, definePlugin } from '../../core/contract/index.js';
import { GHOSTSCRIPT, pdfWrite } from '../../core/engines/ghostscript.js';
import { QPDF, openPdf } from '../../core/engines/qpdf.js';
import { noOptions } from './options.js';
import { outputDir, pdfLimits } from './shared/run.js';
import { transformPdf } from './shared/transform.js';

export const compressPdfPlugin = definePlugin({
  id: 'compress-pdf',
  kind: 'tool',
  op: 'compress-pdf',
  title: 'Compress a PDF',
  inputs: ['pdf'],
  options: noOptions,
  plan: 'pro',
  // What it links: pdf-lib and yazl (MIT), sharp (Apache-2.0) with libvips (LGPL-3.0-or-later); engines declare their own.
  licenses: ['MIT', 'Apache-2.0', 'LGPL-3.0-or-later'],
  engines: [QPDF, GHOSTSCRIPT],
  // ghostscript interprets every page: far slower than qpdf's rewrites.
  limits: pdfLimits(10),
  run: (inputs, _options, ctx) =>
    transformPdf(inputs, ctx, async ({ input, pages, output }) => {
      const compressed = path.join(await outputDir(ctx), 'compressed.pdf');
      await pdfWrite(input.path, compressed, ctx, { settings: '/ebook', summary: 'The PDF could not be compressed' });
      ctx.progress(80);
      // ghostscript reports some broken content only as warnings: make sure no page went missing.
      const compressedPages = await openPdf(compressed, ctx);
      if (compressedPages !== pages)
        throw new PluginError(`The PDF could not be compressed: ${pages} pages in, ${compressedPages} out`);
      if ((await stat(compressed)).size < input.bytes) await rename(compressed, output);
      else await copyFile(input.path, output);
    }),
});
