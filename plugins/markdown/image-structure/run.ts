import { structureRun } from '../../../core/contract/document/index.js';
import type { FileResult, PluginInput, RunContext } from '../../../core/contract/index.js';
import type { Document } from '../../../schema/index.js';
import { pdfDocument } from '../shared/document.js';
import { scannedPagesStructure } from '../shared/engine/index.js';
import { imagePages } from '../shared/image.js';
import type { OcrImageInput } from '../shared/image-family.js';

/** An image read into the model through OCR (shared by structure, chunk and render). */
export async function readImageDocument(
  input: PluginInput,
  options: { lang: string },
  ctx: RunContext,
): Promise<Document> {
  const pages = await imagePages(input.path, input.format as OcrImageInput, ctx.signal);
  ctx.progress(10);
  const structure = await scannedPagesStructure(pages, {
    keepRunning: false,
    lang: options.lang,
    signal: ctx.signal,
    timeoutMs: ctx.remainingMs(),
  });
  ctx.signal.throwIfAborted();
  const document = pdfDocument(structure, input.filename);
  return { ...document, source: { ...document.source, format: input.format } };
}

export async function imageStructureRun(
  inputs: readonly PluginInput[],
  options: { lang: string },
  ctx: RunContext,
): Promise<FileResult> {
  const document = await readImageDocument(inputs[0]!, options, ctx);
  ctx.progress(95);
  return structureRun(document, ctx.workDir);
}
