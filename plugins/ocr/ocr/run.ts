/**
 * ocr: an invisible, searchable text layer over every page that has no text (OCRmyPDF with
 * tesseract); pages that have text and the page images are kept as they are.
 */
import path from 'node:path';
import { mkdtemp } from 'node:fs/promises';
import { singleInput, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import { ocrPdf } from '../../../core/engines/ocrmypdf.js';
import { openPdf } from '../../../core/engines/qpdf.js';

export async function runOcr(
  inputs: readonly PluginInput[],
  { lang }: { lang: string },
  ctx: RunContext,
): Promise<FileResult> {
  ctx.signal.throwIfAborted();
  const input = singleInput(inputs);
  // qpdf first: an encrypted or unreadable PDF gets the same message as from every PDF op.
  const pages = await openPdf(input.path, ctx);
  ctx.progress(5);
  const output = path.join(await mkdtemp(path.join(ctx.workDir, 'ocr-')), 'output.pdf');
  await ocrPdf(input.path, output, ctx, {
    languages: lang,
    onPage: (page) => ctx.progress(5 + (90 * (Math.min(page, pages) - 1)) / pages),
  });
  ctx.signal.throwIfAborted();
  ctx.progress(100);
  return { path: output, format: 'pdf' };
}
