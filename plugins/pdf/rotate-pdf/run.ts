import type { FileResult, PluginInput, RunContext } from '../../../core/contract/index.js';
import { runQpdf } from '../../../core/engines/qpdf.js';
import { transformPdf } from '../shared/transform.js';

export function rotatePdf(
  inputs: readonly PluginInput[],
  { angle }: { angle: number },
  ctx: RunContext,
): Promise<FileResult> {
  // qpdf's "+N" adds N degrees clockwise to each page's /Rotate; content is not re-rendered.
  return transformPdf(inputs, ctx, ({ input, output }) =>
    runQpdf({ inputFile: input.path, outputFile: output, rotate: `+${angle}` }, ctx),
  );
}
