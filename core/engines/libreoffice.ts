/**
 * LibreOffice headless conversions. A conversion goes to the warm listener pool when this process
 * has one to ask (useOfficeConverter: a sandbox process asks the server's pool over IPC, see
 * libreoffice-pool.ts), else to a cold soffice of its own. Every cold soffice run gets its own
 * profile directory (`-env:UserInstallation`): two instances sharing one profile silently produce
 * no file. HOME points at the run's directory too, so nothing is written to the service user's home.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { PluginError, type EngineRequirement } from '../contract/index.js';
import { withDetail, type EngineContext } from './common.js';
import { FONT_PACKAGES } from './fonts.js';
import { withoutOutsideLinks } from './office-links.js';
import { resolveCommand } from './paths.js';
import { EngineError, runProcess } from './process.js';

/** Debian's interpreter: the only one with python3-uno (a `python3` on PATH may be another). */
export const UNO_PYTHON = '/usr/bin/python3';
/** The UNO client: the warm pool's long-lived bridge, and the one-off bridge of a cold conversion that needs UNO. */
export const UNO_BRIDGE_SCRIPT = fileURLToPath(new URL('./execution/uno-bridge.py', import.meta.url));

/** soffice with the Writer, Calc and Impress filters: documents, spreadsheets and presentations. */
export const SOFFICE: EngineRequirement = {
  command: 'soffice',
  // python3-uno: the warm pool's bridge (without it the pool falls back to cold soffice). Fonts: every writing
  // system, and the metric-compatible stand-ins for Microsoft's fonts (fonts.ts).
  debian: [
    'libreoffice-writer-nogui',
    'libreoffice-calc-nogui',
    'libreoffice-impress-nogui',
    'python3-uno',
    ...FONT_PACKAGES,
  ],
  license: 'MPL-2.0',
};

/**
 * Profile settings every soffice starts with (cold or listener), so a document cannot pull in
 * what it only links to, confinement or not: BlockUntrustedRefererLinks stops linked
 * graphics, sections, OLE links and templates of untrusted documents (every upload is one: no
 * trusted locations) from loading, by path or URL; Writer and Calc never update links; macros
 * never run.
 */
const PROFILE_SETTINGS: ReadonlyArray<[path: string, name: string, value: string]> = [
  ['/org.openoffice.Office.Common/Security/Scripting', 'BlockUntrustedRefererLinks', 'true'],
  ['/org.openoffice.Office.Common/Security/Scripting', 'DisableMacrosExecution', 'true'],
  ['/org.openoffice.Office.Common/Security/Scripting', 'MacroSecurityLevel', '3'],
  // Writer: com.sun.star.document.LinkUpdateModes NEVER; Calc: ScLkUpdMode LM_NEVER.
  ['/org.openoffice.Office.Writer/Content/Update', 'Link', '0'],
  ['/org.openoffice.Office.Calc/Content/Update', 'Link', '1'],
  // Calc formulas are not recalculated on load (WEBSERVICE(), external references): cached values are shown.
  ['/org.openoffice.Office.Calc/Formula/Load', 'OOXMLRecalcMode', '1'],
  ['/org.openoffice.Office.Calc/Formula/Load', 'ODFRecalcMode', '1'],
];

/** Write the profile's settings (PROFILE_SETTINGS) before soffice first starts on `profileDir`. */
export async function prepareOfficeProfile(profileDir: string): Promise<void> {
  const items = PROFILE_SETTINGS.map(
    ([at, name, value]) =>
      `<item oor:path="${at}"><prop oor:name="${name}" oor:op="fuse"><value>${value}</value></prop></item>`,
  );
  await mkdir(path.join(profileDir, 'user'), { recursive: true });
  await writeFile(
    path.join(profileDir, 'user', 'registrymodifications.xcu'),
    `<?xml version="1.0" encoding="UTF-8"?>\n<oor:items xmlns:oor="http://openoffice.org/2001/registry" ` +
      `xmlns:xs="http://www.w3.org/2001/XMLSchema" ` +
      `xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n${items.join('\n')}\n</oor:items>\n`,
    // A profile in use keeps the settings it has (soffice rewrites this file with them).
    { flag: 'wx' },
  ).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
}

/**
 * Changes made to a loaded document before it is stored, through UNO (the warm pool's bridge, or a
 * one-off bridge beside a cold soffice): what no export filter option can do.
 */
export const officeEditsSchema = z.object({
  /** Every page style turned to landscape (Writer, Calc). */
  landscape: z.boolean().optional(),
  /** Tracked changes drawn as markup (true) or the document as if they were accepted (false). */
  showChanges: z.boolean().optional(),
  /** Document properties, which the PDF export writes to the Info dictionary and the XMP. */
  metadata: z
    .object({
      title: z.string().optional(),
      author: z.string().optional(),
      subject: z.string().optional(),
      keywords: z.array(z.string()).optional(),
    })
    .optional(),
});
export type OfficeEdits = z.infer<typeof officeEditsSchema>;

/** What a client reads when the password given does not open the document. */
export const WRONG_PASSWORD_MESSAGE = 'The password is wrong: it does not open this document';

/** What the pool answers when the password given does not open the document (no engine wording). */
export const WRONG_PASSWORD_LINE = 'Error: the password did not open the document';

/** One conversion, wherever it runs. */
export interface OfficeConversion {
  /** Input file; its extension matters when no `inputFilter` is given. */
  input: string;
  /** The `--convert-to` value: `<extension>[:<filter name>[:<filter options>]]`. */
  convertTo: string;
  /**
   * Import filter name (`--infilter`, `<name>[:<options>]`): forces the reader, so a damaged file fails instead of
   * opening as text.
   */
  inputFilter?: string;
  /** Where the output goes, named after the input: `<input name>.<extension>`. */
  outDir: string;
  /** Opens an encrypted document (ODF, or Office files LibreOffice decrypts); used for this load only, never logged. */
  password?: string;
  /** Changes made through UNO before the document is stored. */
  edits?: OfficeEdits;
}

export interface LibreOfficeConvertOptions extends OfficeConversion {
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

/** A filter spec split at its first colon: `Text (encoded):UTF8` is the filter `Text (encoded)` with options `UTF8`. */
export function filterParts(spec: string): { name: string; options: string } {
  const at = spec.indexOf(':');
  return at < 0 ? { name: spec, options: '' } : { name: spec.slice(0, at), options: spec.slice(at + 1) };
}

/** `pdf:writer_pdf_Export` -> extension `pdf`, export filter `writer_pdf_Export` (empty when soffice picks it). */
export function convertToParts(convertTo: string): { extension: string; filter: string; filterOptions: string } {
  const { name: extension, options: filterSpec } = filterParts(convertTo);
  const { name: filter, options: filterOptions } = filterParts(filterSpec);
  return { extension, filter, filterOptions };
}

/** The file a conversion writes: soffice names it after the input. */
export function expectedOutput(conversion: OfficeConversion): string {
  return path.join(
    conversion.outDir,
    `${path.parse(conversion.input).name}.${convertToParts(conversion.convertTo).extension}`,
  );
}

/**
 * Converts through warm listeners. Resolves undefined when the conversion should run cold in the
 * calling process instead (no pool, or the pool has fallen back to cold soffice); throws
 * EngineError on timeout, abort or a listener that died twice under it.
 */
export type OfficeConverter = (
  conversion: OfficeConversion,
  limits: { signal?: AbortSignal; timeoutMs: number; memoryMb?: number },
) => Promise<LibreOfficeResult | undefined>;

let officeConverter: OfficeConverter | undefined;

/**
 * Route this process's conversions through `converter` (a sandbox process: the server's pool); undefined = cold
 * soffice.
 */
export function useOfficeConverter(converter: OfficeConverter | undefined): void {
  officeConverter = converter;
}

/**
 * Convert one file: in a warm listener when this process has a pool to ask and the export filter
 * is named (a listener needs it), else with a cold soffice. Throws EngineError on exit != 0,
 * timeout or abort.
 */
export async function libreOfficeConvert(given: LibreOfficeConvertOptions): Promise<LibreOfficeResult> {
  await mkdir(given.outDir, { recursive: true });
  // Links to outside the document cut first (office-links.ts): settings alone do not stop Calc, Impress or RTF fields.
  const linkless = path.join(path.dirname(given.outDir), `linkless-${randomUUID()}`);
  const options = { ...given, input: await withoutOutsideLinks(given.input, linkless) };
  try {
    return await convertLinkless(options);
  } finally {
    if (options.input !== given.input) await rm(linkless, { recursive: true, force: true });
  }
}

async function convertLinkless(options: LibreOfficeConvertOptions): Promise<LibreOfficeResult> {
  if (officeConverter && convertToParts(options.convertTo).filter) {
    const { input, convertTo, inputFilter, outDir, signal, timeoutMs, password, edits } = options;
    const pooled = await officeConverter(
      {
        input,
        convertTo,
        outDir,
        ...(inputFilter ? { inputFilter } : {}),
        ...(password ? { password } : {}),
        ...(edits ? { edits } : {}),
      },
      { timeoutMs, ...(signal ? { signal } : {}) },
    );
    if (pooled) return pooled;
  }
  if (!needsUno(options)) return coldConvert(options);
  try {
    return await coldUnoConvert(options);
  } catch (err) {
    // Without python3-uno, a conversion whose only edit is how tracked changes show still converts (as soffice shows
    // them).
    if (!options.password && onlyShowChanges(options.edits) && unoUnavailable(err)) return coldConvert(options);
    throw err;
  }
}

const onlyShowChanges = (edits: OfficeEdits | undefined) =>
  Object.keys(edits ?? {}).every((key) => key === 'showChanges');

/** The one-off bridge could not run: no Debian python, or no python3-uno in it. */
const unoUnavailable = (err: unknown) =>
  err instanceof EngineError &&
  (err.reason === 'missing' || (err.reason === 'exit' && /No module named '?uno/.test(err.stderrTail)));

/** A password or edits need a UNO client: soffice's command line has neither. */
const needsUno = (conversion: OfficeConversion) =>
  Boolean(conversion.password) || Object.keys(conversion.edits ?? {}).length > 0;

/**
 * One cold conversion through a one-off UNO bridge that starts its own soffice (both in one jail: the
 * pipe socket is in its private /tmp). The request, password included, goes over stdin, never argv.
 */
export async function coldUnoConvert(options: LibreOfficeConvertOptions): Promise<LibreOfficeResult> {
  await mkdir(options.outDir, { recursive: true });
  await prepareOfficeProfile(options.profileDir);
  const { extension, filter, filterOptions } = convertToParts(options.convertTo);
  const inputFilter = options.inputFilter ? filterParts(options.inputFilter) : undefined;
  const expected = expectedOutput(options);
  const request = {
    id: 1,
    op: 'convert',
    input: options.input,
    output: expected,
    inputFilter: inputFilter?.name ?? '',
    inputFilterOptions: inputFilter?.options ?? '',
    exportFilter: filter || extension,
    exportFilterOptions: filterOptions,
    ...(options.password ? { password: options.password } : {}),
    ...(options.edits ? { edits: options.edits } : {}),
  };
  const { stdout } = await runProcess(
    UNO_PYTHON,
    [
      '-u',
      UNO_BRIDGE_SCRIPT,
      '--once',
      resolveCommand(SOFFICE.command),
      options.profileDir,
      String(Math.max(1, Math.round(options.timeoutMs / 1000))),
    ],
    {
      timeoutMs: options.timeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
      env: { ...process.env, HOME: options.profileDir },
      stdin: `${JSON.stringify(request)}\n`,
      readable: [UNO_BRIDGE_SCRIPT],
    },
  );
  const answer = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { ok?: boolean; stage?: string })
    .at(-1);
  if (answer?.ok) {
    const written = await readdir(options.outDir);
    return { output: written.includes(path.basename(expected)) ? expected : undefined, lastStderrLine: '' };
  }
  if (answer?.stage === 'password') return { output: undefined, lastStderrLine: WRONG_PASSWORD_LINE };
  if (answer?.stage === 'load') return { output: undefined, lastStderrLine: 'Error: source file could not be loaded' };
  if (answer?.stage === 'store')
    return { output: undefined, lastStderrLine: 'Error: the converted file could not be written' };
  throw new EngineError(
    'the one-off UNO bridge gave no answer',
    'exit',
    UNO_PYTHON,
    null,
    'Error: LibreOffice crashed while converting this file',
  );
}

/** One cold soffice for one file: ~1 s of start-up before the conversion itself. */
export async function coldConvert(options: LibreOfficeConvertOptions): Promise<LibreOfficeResult> {
  await mkdir(options.outDir, { recursive: true });
  await prepareOfficeProfile(options.profileDir);
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
  const expected = expectedOutput(options);
  const written = await readdir(options.outDir);
  return { output: written.includes(path.basename(expected)) ? expected : undefined, lastStderrLine: telling(stderr) };
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
  if (result.lastStderrLine === WRONG_PASSWORD_LINE) throw new PluginError(WRONG_PASSWORD_MESSAGE);
  if (!result.output || (await stat(result.output)).size === 0) {
    throw new PluginError(
      withDetail(
        `${summary}: the file may be damaged or is not a ${inputLabel} file`,
        result.lastStderrLine || 'LibreOffice wrote no file',
      ),
    );
  }
  return result.output;
}
