/** The sandbox pool's kills are counted by reason (transmute_sandbox_kills_total), and a run that stops in time is no kill. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger, PluginInput } from '../../contract/index.js';
import { metricsRegistry } from '../../telemetry/metrics.js';
import { SandboxPool, type SandboxHooks, type SandboxRun } from './pool.js';

const FIXTURES = path.join(import.meta.dirname, 'testing/plugins.ts');
const log: Logger = { debug() {}, info() {}, warn() {}, error() {} };

async function kills(): Promise<Record<string, number>> {
  const metric = await metricsRegistry.getSingleMetric('transmute_sandbox_kills_total')!.get();
  return Object.fromEntries(metric.values.map((v) => [String(v.labels.reason), v.value]));
}

describe('SandboxPool kill metrics', () => {
  let pool: SandboxPool;
  let dir: string;
  let input: PluginInput;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-sandbox-metrics-'));
    await writeFile(path.join(dir, 'in.txt'), 'hello');
    input = { path: path.join(dir, 'in.txt'), format: 'txt', filename: 'in.txt', bytes: 5 };
    pool = new SandboxPool({
      moduleOf: () => FIXTURES,
      size: 1,
      heapMb: 512,
      log,
      killGraceMs: 300,
      memoryPollMs: 100,
    });
  });
  afterAll(async () => {
    await pool.close();
    await rm(dir, { recursive: true, force: true });
  });

  const run = (pluginId: string, over: Partial<SandboxRun> = {}): SandboxRun => ({
    pluginId,
    inputs: [input],
    options: { ms: 0 },
    target: 'md',
    workDir: dir,
    timeoutMs: 10_000,
    memoryMb: 400,
    ...over,
  });
  const hooks = (): SandboxHooks => ({ progress() {}, report() {}, log });

  it('counts deadline, memory and crash kills, and not a run that stopped at its deadline', {
    timeout: 60_000,
  }, async () => {
    expect(await kills()).toEqual({ deadline: 0, memory: 0, crash: 0 });
    await expect(pool.run(run('sandbox-polite', { timeoutMs: 500 }), hooks())).rejects.toThrow('Timed out');
    expect(await kills()).toEqual({ deadline: 0, memory: 0, crash: 0 });
    await expect(pool.run(run('sandbox-spin', { timeoutMs: 1_000 }), hooks())).rejects.toThrow('Timed out after 1 s');
    await expect(pool.run(run('sandbox-hog', { memoryMb: 300 }), hooks())).rejects.toThrow(
      'exceeded the memory limit of 300 MB',
    );
    await expect(pool.run(run('sandbox-crash'), hooks())).rejects.toThrow('The converter crashed');
    expect(await kills()).toEqual({ deadline: 1, memory: 1, crash: 1 });
  });
});
