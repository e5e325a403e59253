import { PluginError, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import { assertPagesExist, pageRangesOf, pagesIn } from '../shared/page-ranges.js';
import { keepPages, transformPdf } from '../shared/transform.js';

export function deletePages(
  inputs: readonly PluginInput[],
  { pages }: { pages: string },
  ctx: RunContext,
): Promise<FileResult> {
  return transformPdf(inputs, ctx, (opened) => {
    const ranges = pageRangesOf(pages);
    assertPagesExist(ranges, opened.pages);
    const removed = new Set(pagesIn(ranges));
    const keep = Array.from({ length: opened.pages }, (_, i) => i + 1).filter((page) => !removed.has(page));
    if (!keep.length) throw new PluginError(`Deleting pages ${pages} would remove every page of the PDF`);
    return keepPages(opened, keep, ctx);
  });
}
