/**
 * Test support: a sandbox pool over the fixture plugins for one describe block, with a run folder holding one input.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Logger, PluginInput } from '../../../../contract/index.js';
import { SandboxPool, type SandboxHooks, type SandboxPoolOptions, type SandboxRun } from '../pool.js';

/** The module exporting the fixture plugins (sandbox-echo, sandbox-spin, sandbox-hog, ...). */
export const SANDBOX_FIXTURES = path.join(import.meta.dirname, 'fixture-plugins.ts');

export interface SandboxTestbed {
  /** Make the folder, the input and the pool (the block's beforeAll). */
  start(): Promise<void>;
  /** Close the pool and remove the folder (the block's afterAll). */
  stop(): Promise<void>;
  /** Made by start(), closed by stop(). */
  readonly pool: SandboxPool;
  /** The run folder, removed by stop(). */
  readonly dir: string;
  /** `in.txt` in `dir`, holding "hello". */
  readonly input: PluginInput;
  /** A run of `pluginId` on `input` in `dir` (10 s, 400 MB), with `over` applied. */
  run(pluginId: string, over?: Partial<SandboxRun>): SandboxRun;
  hooks(): SandboxHooks;
}

/**
 * `options` default to the fixture module for every plugin, one process, a 512 MB heap, a 2 s
 * kill grace and a 100 ms memory poll. (No vitest here: the block registers start and stop.)
 */
export function sandboxTestbed(
  prefix: string,
  options: Partial<SandboxPoolOptions> & { log: Logger },
  { warm = false } = {},
): SandboxTestbed {
  const state = {} as { pool: SandboxPool; dir: string; input: PluginInput };
  const start = async () => {
    state.dir = await mkdtemp(path.join(os.tmpdir(), prefix));
    await writeFile(path.join(state.dir, 'in.txt'), 'hello');
    state.input = { path: path.join(state.dir, 'in.txt'), format: 'txt', filename: 'in.txt', bytes: 5 };
    state.pool = new SandboxPool({
      moduleOf: () => SANDBOX_FIXTURES,
      size: 1,
      heapMb: 512,
      // Long enough for a run that honours its signal to answer on a loaded machine: only then is it not killed.
      killGraceMs: 2_000,
      memoryPollMs: 100,
      ...options,
    });
    if (warm) state.pool.warm();
  };
  const stop = async () => {
    await state.pool?.close();
    if (state.dir) await rm(state.dir, { recursive: true, force: true });
  };
  return {
    start,
    stop,
    get pool() {
      return state.pool;
    },
    get dir() {
      return state.dir;
    },
    get input() {
      return state.input;
    },
    run: (pluginId, over = {}) => ({
      pluginId,
      inputs: [state.input],
      options: { ms: 0 },
      target: 'md',
      workDir: state.dir,
      timeoutMs: 10_000,
      memoryMb: 400,
      ...over,
    }),
    hooks: () => ({ progress() {}, report() {}, log: options.log }),
  };
}
