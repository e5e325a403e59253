import { chunkRun, type ChunkOptionValues } from '../../../core/contract/document/index.js';
import type { FileResult, PluginInput, RunContext } from '../../../core/contract/index.js';
import { readDocument } from '../shared/read.js';

export async function chunk(
  inputs: readonly PluginInput[],
  options: ChunkOptionValues,
  ctx: RunContext,
): Promise<FileResult> {
  const document = await readDocument(inputs[0]!, ctx);
  ctx.signal.throwIfAborted();
  ctx.progress(80);
  const result = await chunkRun(document, options, ctx.workDir);
  ctx.signal.throwIfAborted();
  return result;
}
