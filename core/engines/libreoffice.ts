/**
 * LibreOffice headless conversions. Every soffice run gets its own profile directory
 * (`-env:UserInstallation`): two instances sharing one profile silently produce no file.
 * HOME points at the run's directory too, so nothing is written to the service user's home.
 */
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { runProcess } from './process.js';

export const SOFFICE_COMMAND = process.env.SOFFICE_PATH || 'soffice';

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
  const { stderr } = await runProcess(SOFFICE_COMMAND, args, {
    timeoutMs: options.timeoutMs,
    ...(options.signal ? { signal: options.signal } : {}),
    env: { ...process.env, HOME: options.profileDir },
  });
  const expected = `${path.parse(options.input).name}.${options.convertTo.split(':')[0]}`;
  const written = await readdir(options.outDir);
  return { output: written.includes(expected) ? path.join(options.outDir, expected) : undefined, lastStderrLine: telling(stderr) };
}
