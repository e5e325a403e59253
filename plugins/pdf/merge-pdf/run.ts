import path from 'node:path';
import { PluginError, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import { openPdf, runQpdf } from '../../../core/engines/qpdf.js';
import { outputDir } from '../shared/output.js';
import { MAX_FILES, MIN_FILES } from './files.js';

export async function mergePdfs(inputs: readonly PluginInput[], ctx: RunContext): Promise<FileResult> {
  ctx.signal.throwIfAborted();
  if (inputs.length < MIN_FILES || inputs.length > MAX_FILES)
    throw new PluginError(`Merging takes ${MIN_FILES} to ${MAX_FILES} PDFs (got ${inputs.length})`);
  for (const [i, input] of inputs.entries()) {
    // Name the file at fault: the client sent several.
    await openPdf(input.path, ctx).catch((err: unknown) => {
      throw err instanceof PluginError
        ? new PluginError(`File ${i + 1} (${input.filename}): ${err.message}`, { cause: err })
        : err;
    });
    ctx.progress(Math.floor((50 * (i + 1)) / inputs.length));
  }
  const output = path.join(await outputDir(ctx), 'merged.pdf');
  // An empty document as the base: the result takes no document-level parts (metadata,
  // outlines, forms) from any one input.
  await runQpdf(
    { empty: '', outputFile: output, pages: inputs.map((input) => ({ file: input.path, range: '1-z' })) },
    ctx,
    'The PDFs could not be merged',
  );
  ctx.signal.throwIfAborted();
  ctx.progress(100);
  return { path: output, format: 'pdf' };
}
