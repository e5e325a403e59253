/** The shape of most PDF ops: open one PDF (refusing encrypted or unreadable input), write one PDF. */
import path from 'node:path';
import { singleInput, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import { openPdf, runQpdf } from '../../../core/engines/qpdf.js';
import { outputDir } from './output.js';
import { compactRanges } from './page-ranges.js';

export interface OpenedInput {
  input: PluginInput;
  /** Page count of the input. */
  pages: number;
  /** Where to write the result: a fresh path in the work dir. */
  output: string;
}

export async function transformPdf(
  inputs: readonly PluginInput[],
  ctx: RunContext,
  write: (opened: OpenedInput) => Promise<unknown>,
  { password }: { password?: string } = {},
): Promise<FileResult> {
  ctx.signal.throwIfAborted();
  const input = singleInput(inputs);
  const pages = await openPdf(input.path, ctx, password === undefined ? {} : { password });
  ctx.progress(10);
  const output = path.join(await outputDir(ctx), 'output.pdf');
  await write({ input, pages, output });
  // The writers' last steps (qpdf's job file removal, a copy or rename) do not watch the signal.
  ctx.signal.throwIfAborted();
  ctx.progress(100);
  return { path: output, format: 'pdf' };
}

/** Write the input's `keep` pages (sorted, distinct) to the output, keeping the document-level parts. */
export async function keepPages(
  { input, output }: OpenedInput,
  keep: readonly number[],
  ctx: RunContext,
): Promise<void> {
  await runQpdf({ inputFile: input.path, outputFile: output, pages: [{ file: '.', range: compactRanges(keep) }] }, ctx);
}
