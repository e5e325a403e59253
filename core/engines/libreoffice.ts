/**
 * LibreOffice headless conversions. Every soffice run gets its own profile directory
 * (`-env:UserInstallation`): two instances sharing one profile silently produce no file.
 * HOME points at the run's directory too, so nothing is written to the service user's home.
 */
import { mkdir, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PluginError, type EngineRequirement } from '../contract/index.js';
import { withDetail, type EngineContext } from './common.js';
import { EngineError, runProcess } from './process.js';

/** soffice with the Writer, Calc and Impress filters: documents, spreadsheets and presentations. */
export const SOFFICE: EngineRequirement = {
  command: 'soffice',
  debian: ['libreoffice-writer-nogui', 'libreoffice-calc-nogui', 'libreoffice-impress-nogui'],
  license: 'MPL-2.0',
};

export interface LibreOfficeConvertOptions {
  /** Input file; its extension matters when no `inputFilter` is given. */
  input: string;
  /** The `--convert-to` value: `<extension>[:<filter name>[:<filter options>]]`. */
  convertTo: string;
  /** Import filter name (`--infilter`): forces the reader, so a damaged file fails instead of opening as text. */
  inputFilter?: string;
  outDir: string;
  /** A private directory for the LibreOffice profile (created if missing); also used as HOME. */
  profileDir: string;
  signal?: AbortSignal;
  timeoutMs: number;
}

export interface LibreOfficeResult {
  /** The file soffice wrote, or undefined when it wrote none (it exits 0 then). */
  output: string | undefined;
  /** The most telling stderr line (an `Error:` line if any), for error messages. */
  lastStderrLine: string;
}

/** The last meaningful stderr line: soffice's own errors, without its javaldx warning noise. */
export function telling(stderr: string): string {
  const lines = stderr
    .split(/\r\n|\n|\r|(?=Error:)|(?=Warning:)/)
    .map((line) => line.trim())
    .filter((line) => line && !/javaldx/.test(line));
  return [...lines].reverse().find((line) => line.startsWith('Error')) ?? lines.at(-1) ?? '';
}

/** Convert one file; throws EngineError on exit != 0, timeout or abort. */
export async function libreOfficeConvert(options: LibreOfficeConvertOptions): Promise<LibreOfficeResult> {
  await mkdir(options.outDir, { recursive: true });
  await mkdir(options.profileDir, { recursive: true });
  const args = [
    `-env:UserInstallation=${pathToFileURL(options.profileDir).href}`,
    '--headless',
    '--norestore',
    '--nolockcheck',
    ...(options.inputFilter ? [`--infilter=${options.inputFilter}`] : []),
    '--convert-to',
    options.convertTo,
    '--outdir',
    options.outDir,
    options.input,
  ];
  const { stderr } = await runProcess(SOFFICE.command, args, {
    timeoutMs: options.timeoutMs,
    ...(options.signal ? { signal: options.signal } : {}),
    env: { ...process.env, HOME: options.profileDir },
  });
  const expected = `${path.parse(options.input).name}.${options.convertTo.split(':')[0]}`;
  const written = await readdir(options.outDir);
  return { output: written.includes(expected) ? path.join(options.outDir, expected) : undefined, lastStderrLine: telling(stderr) };
}

/**
 * LibreOffice failures as client messages, after `summary`: its own error line, or that it took
 * too long (a small file built to stall the filters, e.g. an RTF declaring a 2 GB binary block,
 * ends here within the run's short deadline). Aborts and a missing soffice pass through.
 */
export function libreOfficeFailure(err: unknown, signal: AbortSignal, summary: string): unknown {
  if (signal.aborted || !(err instanceof EngineError)) return err;
  if (err.reason === 'timeout') return new PluginError(`${summary}: the conversion took too long`, { cause: err });
  if (err.reason !== 'exit') return err;
  return new PluginError(withDetail(summary, telling(err.stderrTail)), { cause: err });
}

export interface ConvertDocumentJob extends Omit<LibreOfficeConvertOptions, 'signal' | 'timeoutMs'> {
  /** What the client reads first when it fails, e.g. "Could not convert this document to PDF". */
  summary: string;
  /** The input's kind for "the file may be damaged or is not a <label> file", e.g. DOCX. */
  inputLabel: string;
}

/**
 * Convert one file under the run's signal and deadline; returns the written file. Every failure
 * the client can act on is a PluginError, including the file soffice silently did not write
 * (it exits 0 when a damaged input cannot be loaded).
 */
export async function convertDocument(job: ConvertDocumentJob, ctx: EngineContext): Promise<string> {
  const { summary, inputLabel, ...options } = job;
  let result: LibreOfficeResult;
  try {
    result = await libreOfficeConvert({ ...options, signal: ctx.signal, timeoutMs: ctx.remainingMs() });
  } catch (err) {
    throw libreOfficeFailure(err, ctx.signal, summary);
  }
  ctx.signal.throwIfAborted();
  if (!result.output || (await stat(result.output)).size === 0) {
    throw new PluginError(withDetail(`${summary}: the file may be damaged or is not a ${inputLabel} file`, result.lastStderrLine || 'LibreOffice wrote no file'));
  }
  return result.output;
}
