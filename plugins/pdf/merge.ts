/** pdf-merge (op merge-pdf): several PDFs into one, in the order given. */
import path from 'node:path';
import { PluginError, definePlugin } from '../../core/contract/index.js';
import { QPDF, openPdf, runQpdf } from '../../core/engines/qpdf.js';
import { noOptions } from './options.js';
import { outputDir, pdfLimits } from './shared/run.js';

const MIN_FILES = 2;
const MAX_FILES = 50;

export const mergePdfPlugin = definePlugin({
  id: 'pdf-merge',
  kind: 'tool',
  op: 'merge-pdf',
  title: 'Merge PDFs',
  inputs: ['pdf'],
  options: noOptions,
  plan: 'pro',
  // What it links: pdf-lib and yazl (MIT), sharp (Apache-2.0) with libvips (LGPL-3.0-or-later); engines declare their own.
  licenses: ['MIT', 'Apache-2.0', 'LGPL-3.0-or-later'],
  engines: [QPDF],
  limits: pdfLimits(1, { min: MIN_FILES, max: MAX_FILES }),
  async run(inputs, _options, ctx) {
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
    ctx.progress(100);
    return { path: output, format: 'pdf' };
  },
});
