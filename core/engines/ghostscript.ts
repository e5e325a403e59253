/**
 * Ghostscript (AGPL): re-renders a PDF through its pdfwrite device, e.g. to downsample and
 * re-encode images. Always with -dSAFER (no file access beyond its arguments).
 */
import { PluginError, type EngineRequirement } from '../contract/index.js';
import { engineDetail, isExitFailure, runOptions, withDetail, type EngineContext } from './common.js';
import { runProcess } from './process.js';

export const GHOSTSCRIPT: EngineRequirement = { command: 'gs', debian: 'ghostscript', license: 'AGPL-3.0-or-later' };

/** Ghostscript failures as client messages: `summary` with its own words; aborts, timeouts and a missing gs pass through. */
export function ghostscriptFailure(err: unknown, signal: AbortSignal, summary: string): unknown {
  if (!isExitFailure(err, signal)) return err;
  return new PluginError(withDetail(summary, engineDetail(err.stderrTail)), { cause: err });
}

export interface PdfWriteOptions {
  /** A -dPDFSETTINGS profile: /screen, /ebook, /printer, /prepress. */
  settings: '/screen' | '/ebook' | '/printer' | '/prepress';
  /** The failure message's summary. */
  summary: string;
}

/** Rewrite `input` as `output` through pdfwrite with a settings profile; pages keep their orientation. */
export async function pdfWrite(input: string, output: string, ctx: EngineContext, { settings, summary }: PdfWriteOptions): Promise<void> {
  const args = [
    '-q', '-dNOPAUSE', '-dBATCH', '-dSAFER',
    '-sDEVICE=pdfwrite', `-dPDFSETTINGS=${settings}`,
    // pdfwrite otherwise turns pages to follow their text direction.
    '-dAutoRotatePages=/None',
    // '%' in an output name is a page-number template to ghostscript.
    `-sOutputFile=${output.replaceAll('%', '%%')}`,
    input,
  ];
  try {
    await runProcess(GHOSTSCRIPT.command, args, runOptions(ctx));
  } catch (err) {
    throw ghostscriptFailure(err, ctx.signal, summary);
  }
}
