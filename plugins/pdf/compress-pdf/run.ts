import { copyFile, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import { PluginError, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import { pdfWrite, type PdfWriteImages } from '../../../core/engines/ghostscript.js';
import { openPdf } from '../../../core/engines/qpdf.js';
import { outputDir } from '../shared/output.js';
import { transformPdf } from '../shared/transform.js';

const MIN_QUALITY = 10;
const MAX_QUALITY = 95;
const MIN_DPI = 72;
const MAX_DPI = 300;

/**
 * `quality` as pdfwrite's image settings: the resolution runs linearly from 72 dpi (10) to 300 dpi
 * (95); the JPEG QFactor follows libjpeg's quality scale (50 -> 1.0, 90 -> 0.2, 10 -> 5).
 */
export function imageSettings(quality: number): PdfWriteImages {
  const share = (quality - MIN_QUALITY) / (MAX_QUALITY - MIN_QUALITY);
  return {
    dpi: MIN_DPI + share * (MAX_DPI - MIN_DPI),
    qFactor: quality < 50 ? 50 / quality : (100 - quality) / 50,
  };
}

export function compressPdf(
  inputs: readonly PluginInput[],
  { quality }: { quality?: number | undefined },
  ctx: RunContext,
): Promise<FileResult> {
  return transformPdf(inputs, ctx, async ({ input, pages, output }) => {
    const compressed = path.join(await outputDir(ctx), 'compressed.pdf');
    await pdfWrite(input.path, compressed, ctx, {
      settings: '/ebook',
      summary: 'The PDF could not be compressed',
      ...(quality === undefined ? {} : { images: imageSettings(quality) }),
    });
    ctx.progress(80);
    // ghostscript reports some broken content only as warnings: make sure no page went missing.
    const compressedPages = await openPdf(compressed, ctx);
    if (compressedPages !== pages)
      throw new PluginError(`The PDF could not be compressed: ${pages} pages in, ${compressedPages} out`);
    if ((await stat(compressed)).size < input.bytes) await rename(compressed, output);
    else await copyFile(input.path, output);
  });
}
