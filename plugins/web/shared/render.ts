/** What every web plugin's run shares: the call that prints a page to the run's output. */
import path from 'node:path';
import type { RunContext } from '../../../core/contract/index.js';
import { renderPdf, type PageSource, type PdfRenderOptions } from '../../../core/engines/chromium.js';
import { editsPdfMetadata, writePdfMetadata, type PdfMetadataEdit } from '../../../core/engines/pdf-metadata.js';

/** Print `source` to `<workDir>/<name>.pdf`, then write `edit` (metadata, PDF/UA identification) into it. */
export async function printToPdf(
  source: PageSource,
  name: string,
  options: PdfRenderOptions,
  edit: PdfMetadataEdit,
  ctx: RunContext,
): Promise<string> {
  const output = path.join(ctx.workDir, `${name}.pdf`);
  ctx.progress(10);
  await renderPdf(source, output, options, ctx);
  // Playwright may finish writing the PDF after the abort closed the page's context.
  ctx.signal.throwIfAborted();
  if (editsPdfMetadata(edit)) {
    ctx.progress(90);
    await writePdfMetadata(output, edit, ctx.signal);
  }
  ctx.progress(100);
  return output;
}

export function blockedCounter(ctx: RunContext): (url: string) => void {
  let blocked = 0;
  return (url) => {
    blocked++;
    if (blocked <= 5) ctx.log.info('web: request refused (offline rendering)', { url: url.slice(0, 200) });
  };
}
