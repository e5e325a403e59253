/**
 * pandoc: document conversions between markup formats (DOCX/ODT -> EPUB). It runs in the run's
 * work dir with HOME there too, so it reads no user data directory of the service account.
 */
import { PluginError, type EngineRequirement } from '../contract/index.js';
import { engineDetail, runOptions, withDetail, type EngineContext } from './common.js';
import { EngineError, runProcess } from './process.js';

export const PANDOC: EngineRequirement = { command: 'pandoc', debian: 'pandoc', license: 'GPL-2.0-or-later' };

/**
 * pandoc failures as client messages: `summary` with pandoc's own words, or that it took too
 * long. Aborts (the runner reports them) and a missing pandoc pass through.
 */
export function pandocFailure(err: unknown, signal: AbortSignal, summary: string): unknown {
  if (signal.aborted || !(err instanceof EngineError)) return err;
  if (err.reason === 'timeout') return new PluginError(`${summary}: the conversion took too long`, { cause: err });
  if (err.reason !== 'exit') return err;
  return new PluginError(withDetail(summary, engineDetail(err.stderrTail)), { cause: err });
}

export interface PandocJob {
  input: string;
  /** pandoc reader, e.g. docx, odt, markdown. */
  from: string;
  /** pandoc writer, e.g. epub3. */
  to: string;
  output: string;
  /** A YAML metadata file (title...); the document's own metadata wins over it. */
  metadataFile?: string;
  /** Working directory and HOME of the run: the run's work dir. */
  workDir: string;
  /** The failure message's summary. */
  summary: string;
}

export async function pandocConvert(job: PandocJob, ctx: EngineContext): Promise<void> {
  const args = ['-f', job.from, '-t', job.to, ...(job.metadataFile ? [`--metadata-file=${job.metadataFile}`] : []), '-o', job.output, job.input];
  try {
    await runProcess(PANDOC.command, args, runOptions(ctx, { cwd: job.workDir, env: { ...process.env, HOME: job.workDir } }));
  } catch (err) {
    throw pandocFailure(err, ctx.signal, job.summary);
  }
}
