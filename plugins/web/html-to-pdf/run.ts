import path from 'node:path';
import { singleInput, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import { pdfMetadataEdit, pdfRenderOptions, type PdfPageOptions } from '../shared/options.js';
import { blockedCounter, printToPdf } from '../shared/render.js';
import { documentSource } from '../shared/site.js';

/** One HTML file, or a ZIP with index.html and its assets, printed offline by a warm Chromium. */
export async function htmlToPdf(
  inputs: readonly PluginInput[],
  options: PdfPageOptions,
  ctx: RunContext,
): Promise<FileResult> {
  const input = singleInput(inputs);
  const onBlocked = blockedCounter(ctx);
  const source = await documentSource(input, ctx, onBlocked);
  const fallbackTitle = path.parse(input.filename).name;
  return {
    path: await printToPdf(
      source,
      'document',
      { ...pdfRenderOptions(options), onBlocked, fallbackTitle },
      pdfMetadataEdit(options),
      ctx,
    ),
    format: 'pdf',
  };
}
