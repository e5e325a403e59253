import { chunkRun, type ChunkOptionValues } from '../../../core/contract/document/index.js';
import type { FileResult, PluginInput, RunContext } from '../../../core/contract/index.js';
import { readPdfDocument } from '../pdf-structure/run.js';

export async function pdfChunkRun(
  inputs: readonly PluginInput[],
  options: ChunkOptionValues & { lang: string },
  ctx: RunContext,
): Promise<FileResult> {
  const document = await readPdfDocument(inputs[0]!, { keepRunning: false, lang: options.lang }, ctx);
  ctx.progress(90);
  return chunkRun(document, options, ctx.workDir);
}
