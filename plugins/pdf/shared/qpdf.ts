/**
 * qpdf, always driven by a job JSON file (`qpdf --job-json-file`) written with mode 0600 in the
 * run's work dir and deleted when qpdf exits. Why not argv: a password must never appear in a
 * process list. Why not an @argfile: qpdf 11.3 reads `--encrypt user owner 256 --` positionally,
 * so a password such as "-x" or "--" is taken for an option (or crashes qpdf) even from an
 * argfile, and argfiles are line-based. JSON carries any string, and the same path serves
 * every call, so no call can forget it.
 */
import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PluginError, type RunContext } from '../../../core/contract/index.js';
import { EngineError, runProcess, type RunOutput } from '../../../core/engines/process.js';
import { ENCRYPTED_MESSAGE, engineDetail, explainEngineError } from './run.js';

/** qpdf options in job JSON form (`qpdf --job-json-help`): `--show-npages` is `{ showNpages: '' }`. */
export type QpdfJob = Record<string, unknown>;

/** One qpdf run; throws EngineError as runProcess does. Warnings (recovered damage) do not fail it. */
async function qpdf(job: QpdfJob, ctx: RunContext): Promise<RunOutput> {
  ctx.signal.throwIfAborted();
  const jobFile = path.join(ctx.workDir, `qpdf-job-${randomUUID()}.json`);
  await writeFile(jobFile, JSON.stringify({ warningExit0: '', ...job }), { mode: 0o600, flag: 'wx' });
  try {
    return await runProcess('qpdf', [`--job-json-file=${jobFile}`], { signal: ctx.signal, timeoutMs: ctx.remainingMs() });
  } finally {
    await rm(jobFile, { force: true });
  }
}

/** Run qpdf; a failure becomes a PluginError starting with `failure`. */
export async function runQpdf(job: QpdfJob, ctx: RunContext, failure = 'The PDF could not be processed'): Promise<RunOutput> {
  try {
    return await qpdf(job, ctx);
  } catch (err) {
    throw explainEngineError(err, ctx, failure);
  }
}

/**
 * Open a PDF as every op does first: returns its page count, or refuses it as encrypted
 * (without `password`), as opened with the wrong password, or as unreadable. qpdf recovers
 * what it can of a damaged file (a broken cross-reference table is rebuilt), so only a file it
 * cannot read at all is refused.
 */
export async function openPdf(file: string, ctx: RunContext, { password }: { password?: string } = {}): Promise<number> {
  let stdout: string;
  try {
    ({ stdout } = await qpdf({ inputFile: file, showNpages: '', ...(password === undefined ? {} : { password }) }, ctx));
  } catch (err) {
    if (ctx.signal.aborted || !(err instanceof EngineError) || err.reason !== 'exit') throw err;
    if (/invalid password/.test(err.stderrTail)) throw new PluginError(password === undefined ? ENCRYPTED_MESSAGE : 'Wrong password');
    const detail = engineDetail(err.stderrTail);
    throw new PluginError(`The file is not a readable PDF; it may be damaged or truncated${detail ? ` (${detail})` : ''}`, { cause: err });
  }
  const pages = Number(stdout.trim());
  if (!Number.isInteger(pages) || pages < 1) throw new PluginError('The PDF has no pages');
  return pages;
}

/** Whether the PDF is encrypted at all (also true for owner-password-only restrictions). */
export async function isEncrypted(file: string, ctx: RunContext): Promise<boolean> {
  try {
    await qpdf({ inputFile: file, isEncrypted: '' }, ctx);
    return true;
  } catch (err) {
    // qpdf --is-encrypted exits 2 for "not encrypted"
    if (err instanceof EngineError && err.reason === 'exit' && err.exitCode === 2) return false;
    throw explainEngineError(err, ctx, 'The PDF could not be read');
  }
}
