/**
 * What every PDF plugin shares around its engine calls: the engines it declares, limits,
 * the single input, a private output directory, and engine failures turned into messages a
 * client can act on.
 */
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { PluginError, type EngineRequirement, type PluginInput, type PluginLimits, type RunContext } from '../../../core/contract/index.js';
import { EngineError, runProcess, type RunOutput } from '../../../core/engines/process.js';

export const QPDF: EngineRequirement = { command: 'qpdf', debian: 'qpdf' };
export const GHOSTSCRIPT: EngineRequirement = { command: 'gs', debian: 'ghostscript' };
export const PDFTOTEXT: EngineRequirement = { command: 'pdftotext', debian: 'poppler-utils' };
export const PDFIMAGES: EngineRequirement = { command: 'pdfimages', debian: 'poppler-utils' };

export const ENCRYPTED_MESSAGE = 'The PDF is password-protected: unlock it first (op unlock-pdf)';

/**
 * A minute plus `secondsPerMegabyte` of the inputs' total size. qpdf rewrites a PDF in about
 * 20 ms plus its read time; ghostscript re-renders every page and image, so it gets more.
 */
export function pdfLimits(secondsPerMegabyte: number, inputs?: { min: number; max: number }): PluginLimits {
  return {
    timeoutMs: (files) => 60_000 + Math.ceil((files.reduce((sum, file) => sum + file.bytes, 0) / 1_000_000) * secondsPerMegabyte * 1000),
    concurrency: 2,
    ...(inputs ? { inputs } : {}),
  };
}

/** The one input of a single-file run (the registry enforces the count). */
export function singleInput(inputs: readonly PluginInput[]): PluginInput {
  const [input] = inputs;
  if (!input || inputs.length !== 1) throw new PluginError('Exactly one PDF is expected');
  return input;
}

/** The client's file name without its extension, for names inside archives. */
export function stemOf(input: PluginInput): string {
  return path.parse(input.filename).name || 'document';
}

/** A fresh directory in the work dir: the input may sit in the work dir itself, under any name. */
export function outputDir(ctx: RunContext): Promise<string> {
  return mkdtemp(path.join(ctx.workDir, 'pdf-'));
}

/**
 * The last line an engine wrote to stderr, without the program name and file paths
 * (they are server paths and mean nothing to the client).
 */
export function engineDetail(stderr: string): string {
  const lines = stderr.trim().split('\n').map((line) => line.trim()).filter(Boolean);
  return (lines.pop() ?? '').replace(/^(?:[\w-]+: )?(?:\/[^:]*: )*/, '').replace(/\/\S+/g, 'the file');
}

/**
 * Engine failures as client messages, prefixed with `failure`. Aborts, timeouts (the runner
 * reports them) and missing engines are left as they are.
 */
export function explainEngineError(err: unknown, ctx: RunContext, failure: string): unknown {
  if (ctx.signal.aborted || !(err instanceof EngineError) || err.reason !== 'exit') return err;
  const detail = engineDetail(err.stderrTail);
  return new PluginError(detail ? `${failure}: ${detail}` : failure, { cause: err });
}

/** Run an engine with the run's signal and what is left of its time. */
export async function runEngine(command: string, args: readonly string[], ctx: RunContext, failure: string): Promise<RunOutput> {
  try {
    return await runProcess(command, args, { signal: ctx.signal, timeoutMs: ctx.remainingMs() });
  } catch (err) {
    throw explainEngineError(err, ctx, failure);
  }
}
