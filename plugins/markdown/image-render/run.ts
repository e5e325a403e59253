import { renderRun } from '../../../core/contract/document/index.js';
import type { FileResult, PluginInput, RunContext } from '../../../core/contract/index.js';
import { readImageDocument } from '../image-structure/run.js';

export async function imageRenderRun(
  inputs: readonly PluginInput[],
  options: { lang: string },
  ctx: RunContext,
): Promise<FileResult> {
  const document = await readImageDocument(inputs[0]!, options, ctx);
  ctx.progress(95);
  return renderRun(document, ctx.target, ctx.workDir);
}
