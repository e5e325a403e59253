/**
 * The plugin SDK: everything a converter, tool or extractor author depends on.
 * Imports schema only (plus zod), so third-party plugins stay decoupled from the service.
 */
import type { z } from 'zod';
import type { FormatCategory, FormatId, PlanId, ToolReport } from '../../schema/index.js';
import type { InputFacts, PluginInput } from './types.js';

export { scaledTimeout, singleInput, totalBytes, type ScaledTimeout } from './helpers.js';
export type { InputFacts, PluginInput } from './types.js';

export type PluginKind = 'convert' | 'tool' | 'extract';

/**
 * A system program the plugin runs, with the Debian package(s) it needs: the one providing the
 * command, plus any it cannot work without (tesseract's language data, LibreOffice's Calc).
 */
export interface EngineRequirement {
  command: string;
  debian: string | readonly string[];
  /** SPDX licence of the program as Debian ships it (GPL-2.0-or-later for ffmpeg, AGPL-3.0-or-later for gs...). */
  license: string;
}

export function debianPackages(engine: EngineRequirement): string[] {
  return typeof engine.debian === 'string' ? [engine.debian] : [...engine.debian];
}

export interface Logger {
  debug(msg: string, data?: Record<string, unknown>): void;
  info(msg: string, data?: Record<string, unknown>): void;
  warn(msg: string, data?: Record<string, unknown>): void;
  error(msg: string, data?: Record<string, unknown>): void;
}

export interface RunContext {
  /** The requested output format: the `to` of a conversion, or the op's output format. */
  target: FormatId;
  /** A private, empty directory for this run; deleted after the run. Write outputs here. */
  workDir: string;
  /** Aborted on timeout, cancellation or shutdown: pass it to every engine call. */
  signal: AbortSignal;
  /** Report progress 0-100; throttled by the runner, so call it as often as convenient. */
  progress(percent: number): void;
  log: Logger;
  /** For ops that have one (blur-faces, redact, remove-watermark): what was found. */
  report(toolReport: Omit<ToolReport, 'op'>): void;
  /** Milliseconds left before the run's timeout: engines should not be given more. */
  remainingMs(): number;
}

/** A file written into ctx.workDir, in `format` (the runner moves it to blob storage). */
export interface FileResult {
  path: string;
  format: FormatId;
  /**
   * JSON shown in the job's status as `result` beside the download (op=structure: the document
   * model; op=chunk: the chunks). Kept while the output is; keep it to what a poll can carry.
   */
  result?: Record<string, unknown>;
}
/** Structured output of an extraction tool: one row per input file. */
export interface JsonResult {
  row: Record<string, unknown>;
}
export type RunResult = FileResult | JsonResult;

/** A run's memory cap when its manifest names none: what the run and its engines add to the idle sandbox process. */
export const DEFAULT_MEMORY_MB = 1024;

/** What a plugin's work grows with: page count, media duration or decoded pixels rather than bytes. */
export type WorkUnit = 'pages' | 'seconds' | 'megapixels';

/**
 * A plugin's declared measure of work and its maximum per job (bounded work). The
 * service measures each input at acceptance, refuses a job past `max` with a 400 naming the
 * limit, and hands the measured total to `limits.timeoutMs` so the deadline follows the work.
 */
export interface WorkMeasure {
  unit: WorkUnit;
  /** The most one job may carry, all its inputs together. */
  max: number;
  /**
   * The amount in one input, read cheaply (an engine's count or a header), never by doing the
   * work; undefined when it cannot tell (the run then judges the file as before).
   */
  measure(
    input: PluginInput,
    ctx: { signal: AbortSignal; timeoutMs: number; workDir: string },
  ): Promise<number | undefined>;
  /**
   * `measure`, also giving what it read that the run may reuse (PluginInput.facts): a media probe spares the run a
   * second engine start. Acceptance uses it when present; the runner's own measures use `measure`.
   */
  measureWithFacts?(
    input: PluginInput,
    ctx: { signal: AbortSignal; timeoutMs: number; workDir: string },
  ): Promise<{ amount: number | undefined; facts?: InputFacts }>;
  /**
   * Whether `timeoutMs` reads the measure (default true). False: the run does not measure its inputs again for the
   * deadline (acceptance has checked the maximum; a measure is an engine run, a jailed process start).
   */
  scalesDeadline?: boolean;
  /**
   * True when the measure only reads its input (a header read in this process, an engine that prints its answer): no
   * scratch folder is made for it at acceptance and its engines get none, so `workDir` must not be written.
   */
  readsOnly?: boolean;
}

export interface PluginLimits {
  /**
   * Hard wall-clock limit for one run; may scale with the input (size known), and with the work
   * `work.measure` found (`measured`: all inputs together; undefined when it could not tell).
   */
  timeoutMs: number | ((inputs: readonly PluginInput[], measured?: number) => number);
  /** The measure this plugin's work grows with and its per-job maximum (checked at acceptance). */
  work?: WorkMeasure;
  /** Runs of this plugin at once in one worker process. */
  concurrency: number;
  /**
   * Memory cap of one run in MB: what the run adds to the resident memory of the sandbox process
   * running it, plus every engine it starts. Past it the run is killed and the job fails. A
   * process may keep up to this much between runs (a loaded model stays warm). Default
   * DEFAULT_MEMORY_MB.
   */
  memoryMb?: number;
  /** How many input files one run takes (merge takes several). Default { min: 1, max: 1 }. */
  inputs?: { min: number; max: number };
}

/**
 * A file format a plugin adds to the service (the built-in ones are in schema/formats.ts). The
 * registry registers it at start-up, so uploads named `.<extension>` are identified by `sniff`,
 * charged by `creditBase` and routed to the plugins that take it. A declaration whose id or
 * extension is built in, or declared by another plugin, is refused at start-up.
 */
export interface FormatDeclaration {
  /** Lower-case letters and digits: the `to` value, and the file extension unless `extension` is set. */
  id: string;
  category: FormatCategory;
  /** Content-Type of downloads, e.g. text/tab-separated-values. */
  mime: string;
  extension?: string;
  /** A text format (no magic bytes): file-type detections of it count as text. */
  text?: boolean;
  /**
   * Credit class base (1, 3 or 10); default by category as the spec's table (image 1; video, PDF, office 10; others 3).
   */
  creditBase?: 1 | 3 | 10;
  /** Whether the first bytes of a file (up to 64 KiB) are genuinely this format. Decides alone. */
  sniff(head: Buffer): boolean;
}

/** A format declaration whose `id` can be used wherever a FormatId is expected (inputs, outputs, results). */
export type DeclaredFormat = FormatDeclaration & { id: FormatId };

/** Type-checks a format declaration; list it in a manifest's `formats` and use its `id` in inputs/outputs. */
export function defineFormat(declaration: FormatDeclaration): DeclaredFormat {
  return declaration as DeclaredFormat;
}

/**
 * What an extract plugin declares about its endpoint: `POST /api/<op>` and `GET /api/<op>/{id}`
 * on REST, a mutation and the `extraction(tool, id)` query on GraphQL, `extraction.<op in
 * camelCase>` on tRPC. The lowest paid plan is the manifest's `plan`.
 */
export interface ExtractionEndpoint {
  /** Files one request may carry: each is one job and one result row, charged on its own. */
  maxFiles: number;
  /** Whether a Free key gets one free call with one file (below `plan`). Default true, as the spec's tools. */
  freeTrial?: boolean;
  /**
   * Totals over the rows, added to each poll answer: `{ totalHits: { sum: 'count' } }` adds
   * `totalHits`, the sum of the rows' numeric `count` fields.
   */
  summary?: Readonly<Record<string, { sum: string }>>;
  /**
   * The zod of one row of the poll: the tool's fields, set once the row is completed (filename,
   * status and error, which every row has, may be left out). GraphQL makes the tool's typed row from
   * it (`ParseCvRow`...) and OpenAPI its poll (`<Tool>Poll`); without it the rows are typed only by
   * what every row has (GraphQL's GenericExtractionRow, the tool's fields in `data`). The
   * conformance kit checks the plugin's rows against it.
   */
  row?: z.ZodObject;
}

// Any zod object of options; individual fields are validated by the registry.
export type OptionsSchema = z.ZodObject<z.ZodRawShape>;

export interface PluginDefinition<O extends OptionsSchema = OptionsSchema> {
  /** kebab-case, unique across the registry; shows up in errors and logs. */
  id: string;
  kind: PluginKind;
  title: string;
  /** Tools: the `op` value. Extractors: the tool name (e.g. pdf-to-markdown). */
  op?: string;
  inputs: readonly FormatId[];
  /**
   * convert: the `to` values offered for the inputs (a format to itself only when the plugin takes
   * one input format and offers that one output: pdf-to-pdfa).
   * tool: omitted for an in-place op (output format = input format), the one fixed output
   * format (e.g. blur-faces -> png, split-pdf -> zip), or several, of which `to` picks one
   * (thumbnail -> png, webp or jpg).
   */
  outputs?: readonly FormatId[];
  /**
   * tool only, with one output format (op=structure -> json, op=chunk -> jsonl): `to` may be left
   * out (it means that output) or name it, besides the spec's rule of naming the input format.
   */
  targetOptional?: boolean;
  /** convert only: narrows inputs x outputs (e.g. legacy containers cannot become gif). */
  supports?: (from: FormatId, to: FormatId) => boolean;
  /**
   * Options, with field names exactly as the wire contract names them (quality, angle, resize,...).
   * Every field has a default, is optional, or is required by the op. Mark fields that must never
   * be stored or logged (passwords) with `.meta({ secret: true })`.
   */
  options: O;
  /** Credit weight multiplier over the spec's class table (transcription weighs more). Default 1. */
  creditWeight?: number;
  /** Lowest plan allowed. */
  plan: PlanId;
  /**
   * SPDX licences of the libraries the plugin links (npm packages and what they bundle); the
   * engines' licences come from `engines`. Empty when it links nothing beyond Node. Operators
   * can leave out copyleft plugins with PLUGIN_LICENSES (core/contract/licenses.ts).
   */
  licenses: readonly string[];
  engines: readonly EngineRequirement[];
  limits: PluginLimits;
  /** Formats this plugin adds to the service (see FormatDeclaration); other plugins may use them too. */
  formats?: readonly FormatDeclaration[];
  /** extract plugins (required there): the endpoint's limits and rules. */
  extraction?: ExtractionEndpoint;
  run(inputs: readonly PluginInput[], options: z.output<O>, ctx: RunContext): Promise<RunResult>;
}

export type Plugin = PluginDefinition<OptionsSchema>;

/** Identity function that type-checks a plugin definition and infers its options type. */
export function definePlugin<O extends OptionsSchema>(definition: PluginDefinition<O>): Plugin {
  return definition as unknown as Plugin;
}

/**
 * A failure whose message is safe and useful to show the client (it becomes the job's `error`).
 * Anything else a plugin throws is logged with its cause and shown as a generic message.
 */
export class PluginError extends Error {
  override readonly name = 'PluginError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export function isFileResult(result: RunResult): result is FileResult {
  return 'path' in result;
}

/** Whether an options field is marked secret (never stored, never logged). */
export function isSecretField(schema: z.ZodType): boolean {
  return (schema.meta() as { secret?: boolean } | undefined)?.secret === true;
}
