/**
 * What the PDF run code shares around its engine calls (which live in core/engines: qpdf,
 * ghostscript, poppler): names for archive entries and a private output directory.
 */
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import type { PluginInput, RunContext } from '../../../core/contract/index.js';

/** The client's file name without its extension, for names inside archives. */
export function stemOf(input: PluginInput): string {
  return path.parse(input.filename).name || 'document';
}

/** A fresh directory in the work dir: the input may sit in the work dir itself, under any name. */
export function outputDir(ctx: RunContext): Promise<string> {
  return mkdtemp(path.join(ctx.workDir, 'pdf-'));
}
