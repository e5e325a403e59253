import { PluginError, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import { isEncrypted, runQpdf } from '../../../core/engines/qpdf.js';
import { transformPdf } from '../shared/transform.js';

export function unlockPdf(
  inputs: readonly PluginInput[],
  { password }: { password: string },
  ctx: RunContext,
): Promise<FileResult> {
  // Opening with the password refuses a wrong one ("Wrong password"); qpdf accepts the user
  // or the owner password.
  return transformPdf(
    inputs,
    ctx,
    async ({ input, output }) => {
      if (!(await isEncrypted(input.path, ctx))) throw new PluginError('The PDF is not password-protected');
      await runQpdf({ inputFile: input.path, password, decrypt: '', outputFile: output }, ctx);
    },
    { password },
  );
}
