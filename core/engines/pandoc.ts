/**
 * pandoc: document conversions between markup formats (DOCX/ODT -> EPUB). It runs in the run's
 * work dir with HOME there too, so it reads no user data directory of the service account, and
 * with --sandbox where this pandoc supports it for the writer, and a filter that drops images
 * pointing outside the document (which the jail alone would not stop for system files).
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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

/** Drops images that point outside the document (absolute paths, URLs) before the writers embed them. */
const NO_EXTERNAL_FILTER = fileURLToPath(new URL('./pandoc-no-external.lua', import.meta.url));

/** Per writer: whether this pandoc can write it under --sandbox (see sandboxWorks). */
const sandboxable = new Map<string, Promise<boolean>>();

/**
 * Whether `--sandbox` works for writer `to` here. pandoc 2.17 (Debian 12) built without embedded
 * data files cannot read its own templates in sandbox mode, so its docx and epub writers fail
 * (jgm/pandoc#8128); there the run's jail is what keeps linked files and URLs out. Tried once per
 * writer and process, on an empty document.
 */
function sandboxWorks(to: string, workDir: string, ctx: EngineContext): Promise<boolean> {
  if (!sandboxable.has(to)) {
    const probe = path.join(workDir, `pandoc-sandbox-probe-${randomUUID()}`);
    const works = runProcess(PANDOC.command, ['--sandbox', '-f', 'markdown', '-t', to, '-o', probe], {
      ...runOptions(ctx, { cwd: workDir, env: { ...process.env, HOME: workDir } }),
      stdin: '',
    })
      .then(
        () => true,
        () => false,
      )
      .finally(() => rm(probe, { force: true }));
    sandboxable.set(to, works);
  }
  return sandboxable.get(to)!;
}

export async function pandocConvert(job: PandocJob, ctx: EngineContext): Promise<void> {
  // --sandbox: readers and writers read no file but those named here (no linked images or includes, no URLs).
  const sandbox = (await sandboxWorks(job.to, job.workDir, ctx)) ? ['--sandbox'] : [];
  const args = [
    ...sandbox,
    `--lua-filter=${NO_EXTERNAL_FILTER}`,
    '-f',
    job.from,
    '-t',
    job.to,
    ...(job.metadataFile ? [`--metadata-file=${job.metadataFile}`] : []),
    '-o',
    job.output,
    job.input,
  ];
  try {
    await runProcess(
      PANDOC.command,
      args,
      runOptions(ctx, { cwd: job.workDir, env: { ...process.env, HOME: job.workDir }, readable: [NO_EXTERNAL_FILTER] }),
    );
  } catch (err) {
    throw pandocFailure(err, ctx.signal, job.summary);
  }
}
