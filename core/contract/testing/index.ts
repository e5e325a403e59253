/**
 * The plugin conformance kit: what a plugin author runs in their own tests
 * (`import { pluginConformanceSuite } from 'transmute/contract/testing'`). It checks the manifest
 * exactly as the registry will, that the plugin collides with none of the plugins it is to run beside (the
 * caller names them: `standardPlugins` from `transmute/plugins` for the standard distribution),
 * that its options decode from the strings REST sends, and runs the plugin on real sample files
 * with a real RunContext: the output's bytes must be the format it declares, progress stays in
 * 0-100, and a run aborted mid-way must settle promptly with a rejection.
 *
 * Test tooling, so it sits above the layers it checks: it reads the registry (collisions), the one
 * exception to core/contract's layer rule, named in .dependency-cruiser.cjs; the plugins it checks
 * against come from its caller, so core imports nothing from plugins/. Output formats are judged by
 * core/contract/sniff.ts, as uploads are.
 */
import { mkdtemp, open, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { fileTypeFromBuffer } from 'file-type';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { chunkListSchema, documentSchema, isFormatId, type FormatId, type ToolReport } from '../../../schema/index.js';
import { Registry, RegistryError } from '../../registry/index.js';
import { checkContent } from '../sniff.js';
import {
  isFileResult,
  type FileResult,
  type InputFacts,
  type Plugin,
  type PluginInput,
  type RunContext,
  type RunResult,
} from '../index.js';
import { parseOptions } from '../options.js';
import { manifestProblems, registerDeclaredFormats } from '../validate.js';

export interface TestRun {
  result: RunResult;
  progress: number[];
  toolReport?: Omit<ToolReport, 'op'>;
  workDir: string;
}

export interface RunOptions {
  signal?: AbortSignal;
  workDir?: string;
  target?: FormatId;
  /** Called on every ctx.progress(), before it is recorded. */
  onProgress?: (percent: number) => void;
}

const silentLog = { debug() {}, info() {}, warn() {}, error() {} };
const HEAD_BYTES = 64 * 1024;

/** Run a plugin once on files on disk, with options as the client would send them (values). */
export async function runPlugin(
  plugin: Plugin,
  files: ReadonlyArray<{ path: string; format: FormatId; facts?: InputFacts }>,
  options: Record<string, unknown> = {},
  { signal, workDir, target, onProgress }: RunOptions = {},
): Promise<TestRun> {
  // The formats the plugin declares, registered as the registry does at start-up.
  registerDeclaredFormats([plugin]);
  const parsed = parseOptions(plugin.options, options, { fromStrings: false, operation: plugin.id });
  if (!parsed.ok) throw new Error(parsed.error);
  const dir = workDir ?? (await mkdtemp(path.join(os.tmpdir(), `plugin-${plugin.id}-`)));
  const inputs: PluginInput[] = await Promise.all(
    files.map(async (f) => ({
      path: f.path,
      format: f.format,
      filename: path.basename(f.path),
      bytes: (await stat(f.path)).size,
      // What acceptance's measure learnt, as the runner of the accepting process hands it on.
      ...(f.facts ? { facts: f.facts } : {}),
    })),
  );
  const timeoutMs =
    typeof plugin.limits.timeoutMs === 'function' ? plugin.limits.timeoutMs(inputs) : plugin.limits.timeoutMs;
  const deadline = Date.now() + timeoutMs;
  const progress: number[] = [];
  let toolReport: TestRun['toolReport'];
  const ctx: RunContext = {
    // Default: the plugin's first output (conversions with several outputs should pass `target`).
    target: target ?? plugin.outputs?.[0] ?? files[0]!.format,
    workDir: dir,
    signal: signal ?? AbortSignal.timeout(timeoutMs),
    progress: (pct) => {
      onProgress?.(pct);
      progress.push(pct);
    },
    log: silentLog,
    report: (r) => (toolReport = r),
    remainingMs: () => Math.max(0, deadline - Date.now()),
  };
  try {
    const result = await plugin.run(inputs, parsed.value, ctx);
    return { result, progress, workDir: dir, ...(toolReport ? { toolReport } : {}) };
  } catch (err) {
    // A failed run has nothing to inspect: do not leave its temp dir behind.
    if (!workDir) await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

export interface ConformanceSample {
  /** Test name suffix. */
  name: string;
  files: ReadonlyArray<{ path: string; format: FormatId }>;
  /** Option values as GraphQL and tRPC send them; the kit also sends them as REST's strings. */
  options?: Record<string, unknown>;
  /** The `to` requested (conversions with several outputs). */
  target?: FormatId;
  /** Expected output format for file results. */
  expectFormat?: FormatId;
  /** Extra content checks on the result. */
  check?: (run: TestRun) => void | Promise<void>;
}

export interface ConformanceOptions {
  /** Options exactly as a REST multipart form sends them (every field a string); each must decode and validate. */
  wireOptions?: ReadonlyArray<Record<string, string>>;
  /**
   * Plugins this one must not collide with (id, conversion pair, op, tool, format): the distribution it will run in,
   * e.g. `standardPlugins` from `transmute/plugins`.
   */
  against: readonly Plugin[];
  /** Mid-run abort: abort at the first progress() below 100, or after this many ms. Default 50. */
  abortAfterMs?: number;
  /** How soon after the abort the run must have rejected. Default 3000 ms. */
  abortGraceMs?: number;
}

/** A sample option value as REST multipart carries it: a string (objects and arrays as JSON). */
export function toWireString(value: unknown): string {
  return typeof value === 'string'
    ? value
    : typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : JSON.stringify(value);
}

/**
 * Wire-string decoding as REST does it (parseOptions with fromStrings): every sample's options,
 * turned into strings, decode to the same values; every wire example decodes and validates; and
 * every field's default survives the trip, so a field REST cannot express is found even when no
 * sample uses it.
 */
export function wireProblems(
  plugin: Plugin,
  samples: readonly ConformanceSample[],
  wireOptions: ReadonlyArray<Record<string, string>> = [],
): string[] {
  const problems: string[] = [];
  const decode = (schema: Plugin['options'], raw: Record<string, unknown>, fromStrings: boolean) =>
    parseOptions(schema, raw, { fromStrings, operation: plugin.id });
  for (const sample of samples) {
    const values = sample.options ?? {};
    const strings = Object.fromEntries(Object.entries(values).map(([field, value]) => [field, toWireString(value)]));
    const expected = decode(plugin.options, values, false);
    const got = decode(plugin.options, strings, true);
    if (!got.ok)
      problems.push(
        `sample '${sample.name}': options sent as strings ${JSON.stringify(strings)} are refused: ${got.error}`,
      );
    else if (expected.ok && !isDeepStrictEqual(got.value, expected.value))
      problems.push(
        `sample '${sample.name}': options sent as strings decode to ${JSON.stringify(got.value)}, ` +
          `not ${JSON.stringify(expected.value)}`,
      );
  }
  for (const raw of wireOptions) {
    const got = decode(plugin.options, raw, true);
    if (!got.ok) problems.push(`wire options ${JSON.stringify(raw)} are refused: ${got.error}`);
  }
  for (const [field, schema] of Object.entries(plugin.options.shape) as Array<[string, z.ZodType]>) {
    const byDefault = schema.safeParse(undefined);
    if (!byDefault.success || byDefault.data === undefined) continue;
    const single = z.object({ [field]: schema });
    const got = decode(single, { [field]: toWireString(byDefault.data) }, true);
    if (!got.ok)
      problems.push(
        `option '${field}': its default ${JSON.stringify(byDefault.data)} cannot be sent as a string (${got.error})`,
      );
  }
  return problems;
}

/** Whether a file result's bytes are the format it declares, judged as uploads are judged. */
export async function outputFormatProblem(result: FileResult): Promise<string | undefined> {
  if (!isFormatId(result.format)) return `output format '${String(result.format)}' is unknown`;
  const file = await open(result.path);
  try {
    const { buffer, bytesRead } = await file.read({ buffer: Buffer.alloc(HEAD_BYTES), position: 0 });
    const head = buffer.subarray(0, bytesRead);
    const verdict = checkContent(result.format, head, (await fileTypeFromBuffer(head))?.ext);
    return verdict.ok ? undefined : `output declared as ${result.format} contains ${verdict.found}`;
  } finally {
    await file.close();
  }
}

/** Collisions with `against`, as the registry reports them at start-up. */
export async function collisionProblems(plugin: Plugin, against: readonly Plugin[]): Promise<string[]> {
  const others = against.filter((other) => other !== plugin);
  try {
    new Registry([...others, plugin]);
    return [];
  } catch (err) {
    if (!(err instanceof RegistryError)) throw err;
    return err.message
      .split('\n')
      .slice(1)
      .map((line) => line.trim());
  }
}

/**
 * Starts a run, aborts it once it is under way (at its first progress() below 100, or after
 * `afterMs`) and requires it to reject within `graceMs` of the abort. Undefined when it did, or
 * when the run finished before it could be aborted; otherwise what went wrong.
 */
export async function abortProblem(
  plugin: Plugin,
  sample: ConformanceSample,
  { afterMs = 50, graceMs = 3_000 }: { afterMs?: number; graceMs?: number } = {},
): Promise<string | undefined> {
  const controller = new AbortController();
  let abortedAt: number | undefined;
  let graceOver!: () => void;
  const late = new Promise<'late'>((resolve) => (graceOver = () => resolve('late')));
  const abort = () => {
    if (abortedAt !== undefined) return;
    abortedAt = Date.now();
    controller.abort(new Error('aborted by the conformance kit'));
    setTimeout(graceOver, graceMs);
  };
  const timer = setTimeout(abort, afterMs);
  const run = runPlugin(plugin, sample.files, sample.options, {
    signal: controller.signal,
    ...(sample.target ? { target: sample.target } : {}),
    onProgress: (pct) => pct < 100 && abort(),
  });
  const settled = run.then(
    (done) => ({ done }),
    (error: unknown) => ({ error }),
  );
  // A run still going after the grace period is left to finish; its temp dir is removed then.
  void settled.then(async (outcome) => {
    if ('done' in outcome) await rm(outcome.done.workDir, { recursive: true, force: true });
  });
  const outcome = await Promise.race([settled, late]);
  clearTimeout(timer);
  if (outcome === 'late')
    return (
      `still running ${graceMs} ms after its signal was aborted: ` +
      'pass ctx.signal to every engine and check it between steps'
    );
  if ('error' in outcome)
    return abortedAt === undefined
      ? `failed before it could be aborted: ${(outcome.error as Error)?.message ?? String(outcome.error)}`
      : undefined;
  if (abortedAt === undefined) return undefined; // finished before it could be aborted
  return (
    'completed after its signal was aborted instead of rejecting: ' +
    'call ctx.signal.throwIfAborted() before returning'
  );
}

/**
 * Why a completed row does not match the row zod its manifest declares (`extraction.row`, from
 * which GraphQL types the tool's rows); undefined when it matches or none is declared.
 */
export function rowProblem(plugin: Plugin, row: Record<string, unknown>): string | undefined {
  const declared = plugin.extraction?.row;
  if (!declared) return undefined;
  const parsed = declared.safeParse({ filename: 'sample', status: 'completed', ...row });
  return parsed.success ? undefined : `the row does not match extraction.row: ${z.prettifyError(parsed.error)}`;
}

/**
 * Why a reader's answer is not the document model (op=structure: the JSON file and `result` are
 * one valid model) or not chunks (op=chunk: one valid chunk per JSON line, the same as
 * `result.chunks`); undefined for other ops or when it is.
 */
export async function documentProblem(plugin: Plugin, result: FileResult): Promise<string | undefined> {
  if (plugin.op !== 'structure' && plugin.op !== 'chunk') return undefined;
  const text = await readFile(result.path, 'utf8');
  if (plugin.op === 'structure') {
    const parsed = documentSchema.safeParse(JSON.parse(text));
    if (!parsed.success) return `the output is not the document model: ${z.prettifyError(parsed.error)}`;
    if (result.result && !('omitted' in result.result) && !isDeepStrictEqual(result.result, parsed.data))
      return 'result differs from the JSON file';
    return undefined;
  }
  const chunks = text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as unknown);
  const parsed = chunkListSchema.safeParse({ chunks });
  if (!parsed.success) return `the output is not chunks: ${z.prettifyError(parsed.error)}`;
  if (result.result && !('omitted' in result.result) && !isDeepStrictEqual(result.result, parsed.data))
    return 'result differs from the JSON Lines file';
  return undefined;
}

/** Shared checks every plugin must pass; call it inside a test file. */
export function pluginConformanceSuite(
  plugin: Plugin,
  samples: readonly ConformanceSample[],
  options: ConformanceOptions,
): void {
  registerDeclaredFormats([plugin]);
  describe(`plugin ${plugin.id} conformance`, () => {
    it('has a valid manifest', () => {
      expect(manifestProblems(plugin)).toEqual([]);
    });

    it('collides with none of the plugins it runs beside', async () => {
      expect(await collisionProblems(plugin, options.against)).toEqual([]);
    });

    it('decodes its options from the strings REST sends', () => {
      expect(wireProblems(plugin, samples, options.wireOptions)).toEqual([]);
    });

    for (const sample of samples) {
      it(`runs: ${sample.name}`, async () => {
        const run = await runPlugin(
          plugin,
          sample.files,
          sample.options,
          sample.target ? { target: sample.target } : {},
        );
        try {
          if (isFileResult(run.result)) {
            expect(run.result.path.startsWith(run.workDir)).toBe(true);
            expect((await stat(run.result.path)).size).toBeGreaterThan(0);
            if (sample.expectFormat) expect(run.result.format).toBe(sample.expectFormat);
            expect(await outputFormatProblem(run.result)).toBeUndefined();
            expect(await documentProblem(plugin, run.result)).toBeUndefined();
          }
          if (!isFileResult(run.result)) expect(rowProblem(plugin, run.result.row)).toBeUndefined();
          for (const pct of run.progress) expect(pct >= 0 && pct <= 100).toBe(true);
          await sample.check?.(run);
        } finally {
          await rm(run.workDir, { recursive: true, force: true });
        }
      });
    }

    const first = samples[0];
    if (first) {
      it('refuses to start when already aborted', async () => {
        const controller = new AbortController();
        controller.abort();
        const started = Date.now();
        await expect(
          runPlugin(plugin, first.files, first.options, {
            signal: controller.signal,
            ...(first.target ? { target: first.target } : {}),
          }),
        ).rejects.toThrow();
        expect(Date.now() - started).toBeLessThan(5_000);
      });

      it('stops promptly when aborted mid-run', async () => {
        const graceMs = options.abortGraceMs ?? 3_000;
        expect(await abortProblem(plugin, first, { afterMs: options.abortAfterMs ?? 50, graceMs })).toBeUndefined();
      }, 60_000);
    }
  });
}
