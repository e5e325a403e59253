/**
 * qpdf: the PDF structure engine (open and check, page operations, encryption, object rewrites).
 *
 * Always driven by a job JSON file (`qpdf --job-json-file`) written with mode 0600 in the run's
 * work dir and deleted when qpdf exits. Why not argv: a password must never appear in a process
 * list. Why not an @argfile: qpdf 11.3 reads `--encrypt user owner 256 --` positionally, so a
 * password such as "-x" or "--" is taken for an option (or crashes qpdf) even from an argfile,
 * and argfiles are line-based. JSON carries any string, and the same path serves every call, so
 * no call can forget it.
 */
import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PluginError, type EngineRequirement, type RunContext } from '../contract/index.js';
import { engineDetail, isExitFailure, runOptions, withDetail } from './common.js';
import { EngineError, runProcess, type RunOutput } from './process.js';

export const QPDF: EngineRequirement = { command: 'qpdf', debian: 'qpdf', license: 'Apache-2.0' };

/** What an encrypted PDF gets from every engine that cannot open it without its password. */
export const ENCRYPTED_PDF_MESSAGE = 'The PDF is password-protected: unlock it first (op unlock-pdf)';
/** What a file no PDF engine can read gets, before the engine's own words. */
export const UNREADABLE_PDF_MESSAGE = 'The file is not a readable PDF; it may be damaged or truncated';

/** qpdf options in job JSON form (`qpdf --job-json-help`): `--show-npages` is `{ showNpages: '' }`. */
export type QpdfJob = Record<string, unknown>;

/** A qpdf call needs the run's work dir for its job file. */
export type QpdfContext = Pick<RunContext, 'signal' | 'remainingMs' | 'workDir'>;

/**
 * qpdf failures as client messages: a PDF that needs a password (or got the wrong one), else
 * `summary` with qpdf's own words. Aborts, timeouts and a missing qpdf pass through.
 */
export function qpdfFailure(
  err: unknown,
  signal: AbortSignal,
  summary: string,
  { passwordGiven = false } = {},
): unknown {
  if (!isExitFailure(err, signal)) return err;
  if (/invalid password/.test(err.stderrTail))
    return new PluginError(passwordGiven ? 'Wrong password' : ENCRYPTED_PDF_MESSAGE, { cause: err });
  return new PluginError(withDetail(summary, engineDetail(err.stderrTail)), { cause: err });
}

/** One qpdf run; throws EngineError as runProcess does. Warnings (recovered damage) do not fail it. */
async function qpdf(job: QpdfJob, ctx: QpdfContext): Promise<RunOutput> {
  ctx.signal.throwIfAborted();
  const jobFile = path.join(ctx.workDir, `qpdf-job-${randomUUID()}.json`);
  await writeFile(jobFile, JSON.stringify({ warningExit0: '', ...job }), { mode: 0o600, flag: 'wx' });
  try {
    return await runProcess(QPDF.command, [`--job-json-file=${jobFile}`], runOptions(ctx));
  } finally {
    await rm(jobFile, { force: true });
  }
}

/** Run qpdf; a failure becomes a PluginError starting with `summary`. */
export async function runQpdf(
  job: QpdfJob,
  ctx: QpdfContext,
  summary = 'The PDF could not be processed',
): Promise<RunOutput> {
  try {
    return await qpdf(job, ctx);
  } catch (err) {
    throw qpdfFailure(err, ctx.signal, summary, { passwordGiven: job.password !== undefined });
  }
}

/**
 * Open a PDF as every PDF op does first: returns its page count, or refuses it as encrypted
 * (without `password`), as opened with the wrong password, or as unreadable. qpdf recovers what
 * it can of a damaged file (a broken cross-reference table is rebuilt), so only a file it cannot
 * read at all is refused.
 */
export async function openPdf(
  file: string,
  ctx: QpdfContext,
  { password }: { password?: string } = {},
): Promise<number> {
  const { stdout } = await runQpdf(
    { inputFile: file, showNpages: '', ...(password === undefined ? {} : { password }) },
    ctx,
    UNREADABLE_PDF_MESSAGE,
  );
  const pages = Number(stdout.trim());
  if (!Number.isInteger(pages) || pages < 1) throw new PluginError('The PDF has no pages');
  return pages;
}

/**
 * A `limits.work` measure for PDF inputs: the page count, within the measure's own deadline. An
 * encrypted or unreadable file throws, so acceptance leaves it to the run (and its messages).
 */
export function measurePdfPages(
  input: { path: string },
  { signal, timeoutMs, workDir }: { signal: AbortSignal; timeoutMs: number; workDir: string },
): Promise<number> {
  return openPdf(input.path, { signal, workDir, remainingMs: () => timeoutMs });
}

/** Whether the PDF is encrypted at all (also true for owner-password-only restrictions). */
export async function isEncrypted(file: string, ctx: QpdfContext): Promise<boolean> {
  try {
    await qpdf({ inputFile: file, isEncrypted: '' }, ctx);
    return true;
  } catch (err) {
    // qpdf --is-encrypted exits 2 for "not encrypted"
    if (err instanceof EngineError && err.reason === 'exit' && err.exitCode === 2) return false;
    throw qpdfFailure(err, ctx.signal, 'The PDF could not be read');
  }
}
