/**
 * What every engine module shares: the part of a plugin's RunContext an engine call takes, and
 * the building blocks of each module's one translator from engine failure to a client-safe
 * PluginError (which failures are the input's fault; the engine's own words without server paths).
 */
import type { RunContext } from '../contract/index.js';
import { EngineError, type RunOptions } from './process.js';

/** An engine call runs under the run's signal and gets what is left of its time. */
export type EngineContext = Pick<RunContext, 'signal' | 'remainingMs'>;

/** runProcess options for one call under `ctx`. */
export function runOptions(ctx: EngineContext, extra: Omit<RunOptions, 'signal' | 'timeoutMs'> = {}): RunOptions {
  return { ...extra, signal: ctx.signal, timeoutMs: ctx.remainingMs() };
}

/**
 * Whether the engine ran and failed on its input (a non-zero exit): the failures a translator
 * explains. Aborts and timeouts (the runner reports them), a missing engine (a broken install)
 * and anything that is not an EngineError pass through unchanged.
 */
export function isExitFailure(err: unknown, signal: AbortSignal): err is EngineError {
  return !signal.aborted && err instanceof EngineError && err.reason === 'exit';
}

/**
 * The last line an engine wrote to stderr, without the program name and file paths (they are
 * server paths and mean nothing to the client): "qpdf: /tmp/x/in.pdf: unable to find trailer
 * dictionary" becomes "unable to find trailer dictionary".
 */
export function engineDetail(stderr: string): string {
  const lines = stderr
    .trim()
    .split(/\r\n|\n|\r/)
    .map((line) => line.trim())
    .filter(Boolean);
  return (lines.pop() ?? '').replace(/^(?:[\w-]+: )?(?:\/[^:]*: )*/, '').replace(/\/\S+/g, 'the file');
}

/**
 * An absolute path on the server: a slash-led run of two or more segments that does not follow a word, a dot,
 * a colon or another slash (so "image/png", "1/2", "PDF/A" and the path of a URL stay), with an optional
 * quote around it.
 */
const SERVER_PATH = /(['"`]?)(?<![\w.:/~-])\/(?:[^\s'"`:;,()<>/]+\/)+[^\s'"`:;,()<>]*\1/g;

/**
 * `text` with every absolute server path replaced by "the file" (an engine naming a file it was led to, a
 * work folder, DATA_DIR): what a client may read.
 */
export function withoutServerPaths(text: string): string {
  return text.replace(SERVER_PATH, 'the file');
}

/** "summary (detail)", or the summary alone when the engine said nothing useful. */
export function withDetail(summary: string, detail: string): string {
  const safe = withoutServerPaths(detail);
  return safe ? `${summary} (${safe})` : summary;
}
