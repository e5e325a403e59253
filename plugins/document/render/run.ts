import { renderRun } from '../../../core/contract/document/index.js';
import type { FileResult, PluginInput, RunContext } from '../../../core/contract/index.js';
import { readDocument } from '../shared/read.js';

export async function render(inputs: readonly PluginInput[], ctx: RunContext): Promise<FileResult> {
  const document = await readDocument(inputs[0]!, ctx);
  ctx.progress(90);
  return renderRun(document, ctx.target, ctx.workDir);
}
