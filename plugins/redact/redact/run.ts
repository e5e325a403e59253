/** redact: matched text removed from the PDF (content, strings, metadata), black boxes where it was. */
import { copyFile, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { singleInput, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import { openPdf } from '../../../core/engines/qpdf.js';
import { redactPdf } from './engine.js';
import { createMatcher } from './matcher.js';
import type { RedactSpec } from './options.js';

export async function runRedact(
  inputs: readonly PluginInput[],
  { redact }: { redact: RedactSpec },
  ctx: RunContext,
): Promise<FileResult> {
  ctx.signal.throwIfAborted();
  const input = singleInput(inputs);
  // qpdf first: an encrypted or unreadable PDF gets the same message as from every PDF op.
  await openPdf(input.path, ctx);
  ctx.progress(5);
  const output = path.join(await mkdtemp(path.join(ctx.workDir, 'redact-')), 'output.pdf');
  const { detected, output: redacted } = await redactPdf(await readFile(input.path), createMatcher(redact), {
    signal: ctx.signal,
    progress: ctx.progress,
  });
  ctx.signal.throwIfAborted();
  // Nothing matched: the input byte for byte (the spec's "output unchanged").
  if (redacted) await writeFile(output, redacted, { signal: ctx.signal });
  else await copyFile(input.path, output);
  ctx.signal.throwIfAborted();
  ctx.report({ detected });
  ctx.progress(100);
  return { path: output, format: 'pdf' };
}
