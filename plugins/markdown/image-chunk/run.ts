import { chunkRun, type ChunkOptionValues } from '../../../core/contract/document/index.js';
import type { FileResult, PluginInput, RunContext } from '../../../core/contract/index.js';
import { readImageDocument } from '../image-structure/run.js';

export async function imageChunkRun(
  inputs: readonly PluginInput[],
  options: ChunkOptionValues & { lang: string },
  ctx: RunContext,
): Promise<FileResult> {
  const document = await readImageDocument(inputs[0]!, { lang: options.lang }, ctx);
  ctx.progress(90);
  return chunkRun(document, options, ctx.workDir);
}
