import type { FileResult, PluginInput, RunContext } from '../../../core/contract/index.js';
import { assertPagesExist, pageRangesOf, pagesIn } from '../shared/page-ranges.js';
import { keepPages, transformPdf } from '../shared/transform.js';

export function extractPages(
  inputs: readonly PluginInput[],
  { pages }: { pages: string },
  ctx: RunContext,
): Promise<FileResult> {
  return transformPdf(inputs, ctx, (opened) => {
    const ranges = pageRangesOf(pages);
    assertPagesExist(ranges, opened.pages);
    return keepPages(opened, pagesIn(ranges), ctx);
  });
}
