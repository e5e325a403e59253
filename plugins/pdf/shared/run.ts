/**
 * What every PDF plugin shares around its engine calls (which live in core/engines: qpdf,
 * ghostscript, poppler): limits that scale with the input, names for archive entries, and a
 * private output directory.
 */
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { scaledTimeout, type PluginInput, type PluginLimits, type RunContext } from '../../../core/contract/index.js';

/**
 * A minute plus `secondsPerMegabyte` of the inputs' total size. qpdf rewrites a PDF in about
 * 20 ms plus its read time; ghostscript re-renders every page and image, so it gets more.
 */
export function pdfLimits(secondsPerMegabyte: number, inputs?: { min: number; max: number }): PluginLimits {
  return {
    timeoutMs: scaledTimeout({ baseMs: 60_000, perMbMs: secondsPerMegabyte * 1000 }),
    concurrency: 2,
    ...(inputs ? { inputs } : {}),
  };
}

/** The client's file name without its extension, for names inside archives. */
export function stemOf(input: PluginInput): string {
  return path.parse(input.filename).name || 'document';
}

/** A fresh directory in the work dir: the input may sit in the work dir itself, under any name. */
export function outputDir(ctx: RunContext): Promise<string> {
  return mkdtemp(path.join(ctx.workDir, 'pdf-'));
}
