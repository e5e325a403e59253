/**
 * extract-pages and delete-pages: keep or remove the listed pages. The result keeps the
 * document's own order whatever order the list is written in, and the document-level parts of
 * the original (metadata, page labels) through qpdf's `--pages . <ranges>`.
 */
import { PluginError, definePlugin, type RunContext } from '../../core/contract/index.js';
import { QPDF, runQpdf } from '../../core/engines/qpdf.js';
import { deletePagesOptions, extractPagesOptions } from './options.js';
import { assertPagesExist, compactRanges, pageRangesOf, pagesIn } from './shared/page-ranges.js';
import { pdfLimits } from './shared/run.js';
import { transformPdf, type OpenedInput } from './shared/transform.js';

/** Write the input's `keep` pages (sorted, distinct) to the output. */
async function keepPages({ input, output }: OpenedInput, keep: readonly number[], ctx: RunContext): Promise<void> {
  await runQpdf({ inputFile: input.path, outputFile: output, pages: [{ file: '.', range: compactRanges(keep) }] }, ctx);
}

export const extractPagesPlugin = definePlugin({
  id: 'extract-pages',
  kind: 'tool',
  op: 'extract-pages',
  title: 'Extract PDF pages',
  inputs: ['pdf'],
  options: extractPagesOptions,
  plan: 'pro',
  // What it links: pdf-lib and yazl (MIT), sharp (Apache-2.0) with libvips (LGPL-3.0-or-later); engines declare their own.
  licenses: ['MIT', 'Apache-2.0', 'LGPL-3.0-or-later'],
  engines: [QPDF],
  limits: pdfLimits(1),
  run: (inputs, { pages }, ctx) =>
    transformPdf(inputs, ctx, (opened) => {
      const ranges = pageRangesOf(pages);
      assertPagesExist(ranges, opened.pages);
      return keepPages(opened, pagesIn(ranges), ctx);
    }),
});

export const deletePagesPlugin = definePlugin({
  id: 'delete-pages',
  kind: 'tool',
  op: 'delete-pages',
  title: 'Delete PDF pages',
  inputs: ['pdf'],
  options: deletePagesOptions,
  plan: 'pro',
  // What it links: pdf-lib and yazl (MIT), sharp (Apache-2.0) with libvips (LGPL-3.0-or-later); engines declare their own.
  licenses: ['MIT', 'Apache-2.0', 'LGPL-3.0-or-later'],
  engines: [QPDF],
  limits: pdfLimits(1),
  run: (inputs, { pages }, ctx) =>
    transformPdf(inputs, ctx, (opened) => {
      const ranges = pageRangesOf(pages);
      assertPagesExist(ranges, opened.pages);
      const removed = new Set(pagesIn(ranges));
      const keep = Array.from({ length: opened.pages }, (_, i) => i + 1).filter((page) => !removed.has(page));
      if (!keep.length) throw new PluginError(`Deleting pages ${pages} would remove every page of the PDF`);
      return keepPages(opened, keep, ctx);
    }),
});
