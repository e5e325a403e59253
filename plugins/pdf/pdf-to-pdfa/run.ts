import path from 'node:path';
import { PluginError, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import { pdfToPdfa } from '../../../core/engines/ghostscript.js';
import { pdfaPart, type PdfaLevel } from '../../../core/engines/pdfa.js';
import { openPdf } from '../../../core/engines/qpdf.js';
import { transformPdf } from '../shared/transform.js';

export function convertPdfToPdfa(
  inputs: readonly PluginInput[],
  options: { pdfa: PdfaLevel },
  ctx: RunContext,
): Promise<FileResult> {
  return transformPdf(inputs, ctx, async ({ pages, input, output }) => {
    await pdfToPdfa(input.path, output, ctx, {
      part: pdfaPart(options.pdfa),
      definitionFile: path.join(ctx.workDir, 'pdfa-def.ps'),
      summary: `The PDF could not be made PDF/A-${options.pdfa}`,
    });
    ctx.progress(90);
    const written = await openPdf(output, ctx);
    if (written !== pages) throw new PluginError(`The PDF could not be made PDF/A: ${pages} pages in, ${written} out`);
  });
}
