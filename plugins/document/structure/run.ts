import { structureRun } from '../../../core/contract/document/index.js';
import type { FileResult, PluginInput, RunContext } from '../../../core/contract/index.js';
import { readDocument } from '../shared/read.js';

export async function structure(
  inputs: readonly PluginInput[],
  _options: Record<string, never>,
  ctx: RunContext,
): Promise<FileResult> {
  const document = await readDocument(inputs[0]!, ctx);
  ctx.signal.throwIfAborted();
  ctx.progress(90);
  const result = await structureRun(document, ctx.workDir);
  ctx.signal.throwIfAborted();
  return result;
}
