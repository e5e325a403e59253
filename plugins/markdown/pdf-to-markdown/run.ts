import { readFile } from 'node:fs/promises';
import type { JsonResult, PluginInput, RunContext } from '../../../core/contract/index.js';
import { pdfToMarkdown } from '../shared/engine/index.js';
import type { MarkdownOptions } from '../shared/options.js';

export async function pdfToMarkdownRun(
  inputs: readonly PluginInput[],
  options: MarkdownOptions,
  ctx: RunContext,
): Promise<JsonResult> {
  const pdf = new Uint8Array(await readFile(inputs[0]!.path));
  const result = await pdfToMarkdown(pdf, { ...options, signal: ctx.signal, timeoutMs: ctx.remainingMs() });
  // pdf.js may still hand over the last page after an abort destroyed its document.
  ctx.signal.throwIfAborted();
  ctx.progress(100);
  return { row: { ...result } };
}
