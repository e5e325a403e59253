/**
 * protect-pdf and unlock-pdf. The password reaches qpdf only inside its 0600 job file (see
 * core/engines/qpdf.ts): never argv, never a log line, never a file left behind.
 */
import { PluginError, definePlugin } from '../../core/contract/index.js';
import { QPDF, isEncrypted, runQpdf } from '../../core/engines/qpdf.js';
import { protectOptions, unlockOptions } from './options.js';
import { pdfLimits } from './shared/run.js';
import { transformPdf } from './shared/transform.js';

export const protectPdfPlugin = definePlugin({
  id: 'protect-pdf',
  kind: 'tool',
  op: 'protect-pdf',
  title: 'Protect a PDF with a password',
  inputs: ['pdf'],
  options: protectOptions,
  plan: 'pro',
  // What it links: pdf-lib and yazl (MIT), sharp (Apache-2.0) with libvips (LGPL-3.0-or-later); engines declare their own.
  licenses: ['MIT', 'Apache-2.0', 'LGPL-3.0-or-later'],
  engines: [QPDF],
  limits: pdfLimits(1),
  run: (inputs, { password }, ctx) =>
    transformPdf(inputs, ctx, ({ input, output }) =>
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
    ),
});

export const unlockPdfPlugin = definePlugin({
  id: 'unlock-pdf',
  kind: 'tool',
  op: 'unlock-pdf',
  title: 'Remove the password from a PDF',
  inputs: ['pdf'],
  options: unlockOptions,
  plan: 'pro',
  // What it links: pdf-lib and yazl (MIT), sharp (Apache-2.0) with libvips (LGPL-3.0-or-later); engines declare their own.
  licenses: ['MIT', 'Apache-2.0', 'LGPL-3.0-or-later'],
  engines: [QPDF],
  limits: pdfLimits(1),
  run: (inputs, { password }, ctx) =>
    // Opening with the password refuses a wrong one ("Wrong password"); qpdf accepts the user
    // or the owner password.
    transformPdf(
      inputs,
      ctx,
      async ({ input, output }) => {
        if (!(await isEncrypted(input.path, ctx))) throw new PluginError('The PDF is not password-protected');
        await runQpdf({ inputFile: input.path, password, decrypt: '', outputFile: output }, ctx);
      },
      { password },
    ),
});
