import { readFile } from 'node:fs/promises';
import { structureRun } from '../../../core/contract/document/index.js';
import type { FileResult, PluginInput, RunContext } from '../../../core/contract/index.js';
import type { Document } from '../../../schema/index.js';
import { pdfDocument } from '../shared/document.js';
import { pdfStructure } from '../shared/engine/index.js';
import type { MarkdownOptions } from '../shared/options.js';

/** A PDF read into the model by the engine (shared by structure, chunk and render). */
export async function readPdfDocument(
  input: PluginInput,
  options: Pick<MarkdownOptions, 'keepRunning' | 'lang'>,
  ctx: RunContext,
): Promise<Document> {
  const pdf = new Uint8Array(await readFile(input.path));
  const structure = await pdfStructure(pdf, { ...options, signal: ctx.signal, timeoutMs: ctx.remainingMs() });
  ctx.signal.throwIfAborted();
  return pdfDocument(structure, input.filename);
}

export async function pdfStructureRun(
  inputs: readonly PluginInput[],
  options: Pick<MarkdownOptions, 'keepRunning' | 'lang'>,
  ctx: RunContext,
): Promise<FileResult> {
  const document = await readPdfDocument(inputs[0]!, options, ctx);
  ctx.progress(95);
  return structureRun(document, ctx.workDir);
}
