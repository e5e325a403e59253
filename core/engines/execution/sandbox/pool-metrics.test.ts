/**
 * The sandbox pool's kills are counted by reason (transmute_sandbox_kills_total), and a run that stops in time is no
 * kill.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../../contract/index.js';
import { metricsRegistry } from '../../../telemetry/metrics.js';
import { sandboxTestbed } from './testing/pool-testbed.js';

const log: Logger = { debug() {}, info() {}, warn() {}, error() {} };

async function kills(): Promise<Record<string, number>> {
  const metric = await metricsRegistry.getSingleMetric('transmute_sandbox_kills_total')!.get();
  return Object.fromEntries(metric.values.map((v) => [String(v.labels.reason), v.value]));
}

describe('SandboxPool kill metrics', () => {
  const sandbox = sandboxTestbed('transmute-sandbox-metrics-', { log });
  const { run, hooks } = sandbox;
  beforeAll(sandbox.start);
  afterAll(sandbox.stop);

  it('counts deadline, memory and crash kills, and not a run that stopped at its deadline', {
    timeout: 60_000,
  }, async () => {
    const { pool } = sandbox;
    expect(await kills()).toEqual({ deadline: 0, memory: 0, crash: 0 });
    // The sandbox process up and the fixtures loaded first: a cold start could outlast the polite run's deadline.
    await expect(pool.run(run('sandbox-echo'), hooks())).resolves.toMatchObject({ format: 'md' });
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
