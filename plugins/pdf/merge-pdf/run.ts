import path from 'node:path';
import { PluginError, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import { isOfficeInput, officeFileToPdf } from '../../../core/engines/office-formats.js';
import { openPdf, runQpdf } from '../../../core/engines/qpdf.js';
import { outputDir } from '../shared/output.js';
import { MAX_FILES, MIN_FILES } from './files.js';

export async function mergePdfs(inputs: readonly PluginInput[], ctx: RunContext): Promise<FileResult> {
  ctx.signal.throwIfAborted();
  if (inputs.length < MIN_FILES || inputs.length > MAX_FILES)
    throw new PluginError(`Merging takes ${MIN_FILES} to ${MAX_FILES} PDFs (got ${inputs.length})`);
  const pdfs: string[] = [];
  for (const [i, input] of inputs.entries()) {
    const label = `File ${i + 1} (${input.filename})`;
    // An office file becomes a PDF first, in a folder of its own.
    const pdf = isOfficeInput(input.format)
      ? await officeFileToPdf(
          { path: input.path, format: input.format, label },
          path.join(ctx.workDir, `office-${i + 1}`),
          ctx,
        )
      : input.path;
    pdfs.push(pdf);
    // Name the file at fault: the client sent several.
    await openPdf(pdf, ctx).catch((err: unknown) => {
      throw err instanceof PluginError ? new PluginError(`${label}: ${err.message}`, { cause: err }) : err;
    });
    ctx.progress(Math.floor((50 * (i + 1)) / inputs.length));
  }
  const output = path.join(await outputDir(ctx), 'merged.pdf');
  // An empty document as the base: the result takes no document-level parts (metadata,
  // outlines, forms) from any one input.
  await runQpdf(
    { empty: '', outputFile: output, pages: pdfs.map((file) => ({ file, range: '1-z' })) },
    ctx,
    'The PDFs could not be merged',
  );
  ctx.signal.throwIfAborted();
  ctx.progress(100);
  return { path: output, format: 'pdf' };
}
