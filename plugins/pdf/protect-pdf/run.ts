import type { FileResult, PluginInput, RunContext } from '../../../core/contract/index.js';
import { runQpdf } from '../../../core/engines/qpdf.js';
import { transformPdf } from '../shared/transform.js';

export function protectPdf(
  inputs: readonly PluginInput[],
  { password }: { password: string },
  ctx: RunContext,
): Promise<FileResult> {
  return transformPdf(inputs, ctx, ({ input, output }) =>
    // AES-256 (R=6). One password for both roles: whoever opens the file may also change it,
    // which is what a client protecting their own document expects.
    runQpdf(
      {
        inputFile: input.path,
        outputFile: output,
        encrypt: { userPassword: password, ownerPassword: password, '256bit': {} },
      },
      ctx,
    ),
  );
}
