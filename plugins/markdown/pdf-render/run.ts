import { renderRun } from '../../../core/contract/document/index.js';
import type { FileResult, PluginInput, RunContext } from '../../../core/contract/index.js';
import type { MarkdownOptions } from '../shared/options.js';
import { readPdfDocument } from '../pdf-structure/run.js';

export async function pdfRenderRun(
  inputs: readonly PluginInput[],
  options: Pick<MarkdownOptions, 'keepRunning' | 'lang'>,
  ctx: RunContext,
): Promise<FileResult> {
  const document = await readPdfDocument(inputs[0]!, options, ctx);
  ctx.progress(95);
  return renderRun(document, ctx.target, ctx.workDir);
}
