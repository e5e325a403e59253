/**
 * The plugin conformance kit: what a plugin author runs in their own tests. It checks the
 * manifest exactly as the registry will, runs the plugin on real sample files with a real
 * RunContext, and checks the shared behaviours (valid output, progress range, abort).
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FormatId, ToolReport } from '../../schema/index.js';
import { isFileResult, type Plugin, type PluginInput, type RunContext, type RunResult } from './index.js';
import { parseOptions } from './options.js';
import { manifestProblems } from './validate.js';

export interface TestRun {
  result: RunResult;
  progress: number[];
  toolReport?: Omit<ToolReport, 'op'>;
  workDir: string;
}

const silentLog = { debug() {}, info() {}, warn() {}, error() {} };

/** Run a plugin once on files on disk, with options as the client would send them (values). */
export async function runPlugin(
  plugin: Plugin,
  files: ReadonlyArray<{ path: string; format: FormatId }>,
  options: Record<string, unknown> = {},
  { signal, workDir, target }: { signal?: AbortSignal; workDir?: string; target?: FormatId } = {},
): Promise<TestRun> {
  const parsed = parseOptions(plugin.options, options, { fromStrings: false, operation: plugin.id });
  if (!parsed.ok) throw new Error(parsed.error);
  const dir = workDir ?? (await mkdtemp(path.join(os.tmpdir(), `plugin-${plugin.id}-`)));
  const inputs: PluginInput[] = await Promise.all(
    files.map(async (f) => ({ path: f.path, format: f.format, filename: path.basename(f.path), bytes: (await stat(f.path)).size })),
  );
  const timeoutMs = typeof plugin.limits.timeoutMs === 'function' ? plugin.limits.timeoutMs(inputs) : plugin.limits.timeoutMs;
  const deadline = Date.now() + timeoutMs;
  const progress: number[] = [];
  let toolReport: TestRun['toolReport'];
  const ctx: RunContext = {
    // Default: the plugin's first output (conversions with several outputs should pass `target`).
    target: target ?? plugin.outputs?.[0] ?? files[0]!.format,
    workDir: dir,
    signal: signal ?? AbortSignal.timeout(timeoutMs),
    progress: (pct) => progress.push(pct),
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
  options?: Record<string, unknown>;
  /** The `to` requested (conversions with several outputs). */
  target?: FormatId;
  /** Expected output format for file results. */
  expectFormat?: FormatId;
  /** Extra content checks on the result. */
  check?: (run: TestRun) => void | Promise<void>;
}

/** Shared checks every plugin must pass; call it inside a test file. */
export function pluginConformanceSuite(plugin: Plugin, samples: readonly ConformanceSample[]): void {
  describe(`plugin ${plugin.id} conformance`, () => {
    it('has a valid manifest', () => {
      expect(manifestProblems(plugin)).toEqual([]);
    });

    for (const sample of samples) {
      it(`runs: ${sample.name}`, async () => {
        const run = await runPlugin(plugin, sample.files, sample.options, sample.target ? { target: sample.target } : {});
        try {
          if (isFileResult(run.result)) {
            expect(run.result.path.startsWith(run.workDir)).toBe(true);
            expect((await stat(run.result.path)).size).toBeGreaterThan(0);
            if (sample.expectFormat) expect(run.result.format).toBe(sample.expectFormat);
          }
          for (const pct of run.progress) expect(pct >= 0 && pct <= 100).toBe(true);
          await sample.check?.(run);
        } finally {
          await rm(run.workDir, { recursive: true, force: true });
        }
      });
    }

    const first = samples[0];
    if (first) {
      it('stops promptly when aborted', async () => {
        const controller = new AbortController();
        controller.abort();
        const started = Date.now();
        await expect(runPlugin(plugin, first.files, first.options, { signal: controller.signal })).rejects.toThrow();
        expect(Date.now() - started).toBeLessThan(5_000);
      });
    }
  });
}
