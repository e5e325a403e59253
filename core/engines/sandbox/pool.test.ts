/** The sandbox pool with real processes: results, deadlines, memory caps, crashes, tree kills. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PluginError, type Logger, type PluginInput } from '../../contract/index.js';
import { processTree } from '../process-tree.js';
import { SandboxPool, type SandboxHooks, type SandboxRun } from './pool.js';

const FIXTURES = path.join(import.meta.dirname, 'fixtures/plugins.ts');
const logged: Array<{ msg: string; data?: Record<string, unknown> }> = [];
const log: Logger = { debug() {}, info: (msg, data) => logged.push({ msg, data }), warn() {}, error() {} };

describe('SandboxPool', () => {
  let pool: SandboxPool;
  let dir: string;
  let input: PluginInput;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-sandbox-'));
    await writeFile(path.join(dir, 'in.txt'), 'hello');
    input = { path: path.join(dir, 'in.txt'), format: 'txt', filename: 'in.txt', bytes: 5 };
    pool = new SandboxPool({ moduleOf: (id) => (id === 'unknown' ? undefined : FIXTURES), enginePaths: { 'tool-under-test': '/bin/echo' }, size: 2, heapMb: 512, log, killGraceMs: 300, memoryPollMs: 100 });
    pool.warm();
  });
  afterAll(async () => {
    await pool.close();
    await rm(dir, { recursive: true, force: true });
  });

  const run = (pluginId: string, over: Partial<SandboxRun> = {}): SandboxRun => ({
    pluginId, inputs: [input], options: { ms: 0 }, target: 'md', workDir: dir, timeoutMs: 10_000, memoryMb: 400, ...over,
  });
  const hooks = (): SandboxHooks => ({ progress() {}, report() {}, log });

  it('runs a plugin in another process, forwarding progress, reports and logs', async () => {
    const progress: number[] = [];
    const detected: number[] = [];
    const result = await pool.run(run('sandbox-echo'), { progress: (p) => progress.push(p), report: (d) => detected.push(d), log });
    expect(result).toEqual({ path: path.join(dir, 'out.md'), format: 'md' });
    const pid = Number(logged.find((l) => l.msg === 'echo ran')?.data?.pid);
    expect(pid).toBeGreaterThan(0);
    expect(pid).not.toBe(process.pid);
    expect(progress).toEqual([50]);
    expect(detected).toEqual([3]);
  });

  it('runs engines through the same path overrides as the server', async () => {
    const result = await pool.run(run('sandbox-which'), hooks());
    expect(await readFile((result as { path: string }).path, 'utf8')).toBe('resolved\n');
  });

  it('keeps a PluginError message as it is', async () => {
    await expect(pool.run(run('sandbox-refuse'), hooks())).rejects.toThrow(new PluginError('This file is not what it claims'));
  });

  it('kills a synchronous loop at its deadline, and the pool keeps serving', async () => {
    const started = Date.now();
    await expect(pool.run(run('sandbox-spin', { timeoutMs: 1_000 }), hooks())).rejects.toThrow('Timed out after 1 s');
    expect(Date.now() - started).toBeLessThan(3_000);
    await expect(pool.run(run('sandbox-echo'), hooks())).resolves.toMatchObject({ format: 'md' });
    expect(pool.status().killed).toBeGreaterThanOrEqual(1);
  });

  it('stops a run that honours its signal without killing the process', async () => {
    const before = pool.status().killed;
    await expect(pool.run(run('sandbox-polite', { timeoutMs: 500 }), hooks())).rejects.toThrow('Timed out after 1 s');
    expect(pool.status().killed).toBe(before);
  });

  it('kills a run past its memory cap with a clear error', async () => {
    await expect(pool.run(run('sandbox-hog', { memoryMb: 300 }), hooks())).rejects.toThrow('exceeded the memory limit of 300 MB');
  });

  it('kills the engines a run started, not only the sandbox process', async () => {
    const outcome = pool.run(run('sandbox-engine', { timeoutMs: 5_000 }), hooks());
    // The engine this run started: a `sleep 300` below this test's process (a loaded machine may
    // need a while to start a fresh sandbox process, the previous tests having killed some).
    const isEngine = async (pid: number) => (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0').join(' ').trim() === 'sleep 300';
    const engines: number[] = [];
    for (let tries = 0; !engines.length && tries < 40; tries++) {
      await sleep(100);
      for (const proc of await processTree(process.pid)) if (await isEngine(proc.pid)) engines.push(proc.pid);
    }
    expect(engines).toHaveLength(1);
    await expect(outcome).rejects.toThrow('Timed out');
    await sleep(200);
    for (const pid of engines) expect(await isEngine(pid), `engine ${pid} still running`).toBe(false);
  });

  it('reports a crash of the sandbox process as a failed run', async () => {
    await expect(pool.run(run('sandbox-crash'), hooks())).rejects.toThrow('The converter crashed while processing the file (exit code 70)');
    await expect(pool.run(run('sandbox-echo'), hooks())).resolves.toMatchObject({ format: 'md' });
  });

  it('runs at most `size` at once; the others wait for a process', async () => {
    const all = await Promise.all([1, 2, 3, 4].map(() => pool.run(run('sandbox-echo'), hooks())));
    expect(all).toHaveLength(4);
    expect(pool.status().processes).toBeLessThanOrEqual(2);
  });

  it('names a plugin it cannot find', async () => {
    await expect(pool.run(run('nope'), hooks())).rejects.toThrow(/'nope' is not exported by/);
    await expect(pool.run(run('unknown'), hooks())).rejects.toThrow(/no module is known for plugin 'unknown'/);
  });
});
