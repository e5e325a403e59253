/** The sandbox pool with real processes: results, deadlines, memory caps, crashes, tree kills. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PluginError, type Logger, type PluginInput } from '../../../contract/index.js';
import { LibreOfficePool } from '../libreoffice-pool.js';
import { createServer } from 'node:net';
import { probeConfinement } from '../../confine.js';
import { runProcess } from '../../process.js';
import { processTree } from '../process-tree.js';
import { SandboxPool, type SandboxHooks, type SandboxRun } from './pool.js';
import { SANDBOX_FIXTURES as FIXTURES, sandboxTestbed } from './testing/pool-testbed.js';

const logged: Array<{ msg: string; data?: Record<string, unknown> }> = [];
const log: Logger = { debug() {}, info: (msg, data) => logged.push({ msg, data }), warn() {}, error() {} };

describe('SandboxPool', () => {
  const sandbox = sandboxTestbed(
    'transmute-sandbox-',
    {
      moduleOf: (id) => (id === 'unknown' ? undefined : FIXTURES),
      enginePaths: { 'tool-under-test': '/bin/echo' },
      size: 2,
      log,
    },
    { warm: true },
  );
  const { run, hooks } = sandbox;
  beforeAll(sandbox.start);
  afterAll(sandbox.stop);

  it('runs a plugin in another process, forwarding progress, reports and logs', async () => {
    const progress: number[] = [];
    const detected: number[] = [];
    const result = await sandbox.pool.run(run('sandbox-echo'), {
      progress: (p) => progress.push(p),
      report: (d) => detected.push(d),
      log,
    });
    expect(result).toEqual({ path: path.join(sandbox.dir, 'out.md'), format: 'md' });
    const pid = Number(logged.find((l) => l.msg === 'echo ran')?.data?.pid);
    expect(pid).toBeGreaterThan(0);
    expect(pid).not.toBe(process.pid);
    expect(progress).toEqual([50]);
    expect(detected).toEqual([3]);
  });

  it('runs engines through the same path overrides as the server', async () => {
    const result = await sandbox.pool.run(run('sandbox-which'), hooks());
    expect(await readFile((result as { path: string }).path, 'utf8')).toBe('resolved\n');
  });

  it("runs engines jailed when confined: the run's folder and inputs only, no network", async (context) => {
    if (!(await probeConfinement()).ok) return context.skip();
    const beacon = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => beacon.listen(0, '127.0.0.1', resolve));
    const port = (beacon.address() as { port: number }).port;
    const confinedPool = new SandboxPool({ moduleOf: () => FIXTURES, size: 1, heapMb: 512, log, confine: true });
    try {
      const workDir = await mkdtemp(path.join(sandbox.dir, 'work-'));
      const other = await mkdtemp(path.join(sandbox.dir, 'other-job-'));
      await writeFile(path.join(other, 'secret.txt'), 'secret');
      const script = [
        `cat ${sandbox.input.path}; echo`,
        `cat ${path.join(other, 'secret.txt')} 2>/dev/null || echo hidden`,
        `(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo connected || echo offline`,
      ].join('; ');
      const result = await confinedPool.run(
        run('sandbox-look', { workDir, options: { script: `bash -c '${script}'` } }),
        hooks(),
      );
      expect(await readFile((result as { path: string }).path, 'utf8')).toBe('hello\nhidden\noffline\n');
    } finally {
      await confinedPool.close();
      beacon.close();
    }
  });

  it('keeps a PluginError message as it is', async () => {
    await expect(sandbox.pool.run(run('sandbox-refuse'), hooks())).rejects.toThrow(
      new PluginError('This file is not what it claims'),
    );
  });

  it('kills a synchronous loop at its deadline, and the pool keeps serving', async () => {
    // Ended by its deadline, in the deadline's words; the killed count shows the sandbox process went with it.
    await expect(sandbox.pool.run(run('sandbox-spin', { timeoutMs: 1_000 }), hooks())).rejects.toThrow(
      'Timed out after 1 s',
    );
    await expect(sandbox.pool.run(run('sandbox-echo'), hooks())).resolves.toMatchObject({ format: 'md' });
    expect(sandbox.pool.status().killed).toBeGreaterThanOrEqual(1);
  });

  it('stops a run that honours its signal without killing the process', async () => {
    const before = sandbox.pool.status().killed;
    await expect(sandbox.pool.run(run('sandbox-polite', { timeoutMs: 500 }), hooks())).rejects.toThrow(
      'Timed out after 1 s',
    );
    expect(sandbox.pool.status().killed).toBe(before);
  });

  it('kills a run past its memory cap with a clear error', async () => {
    await expect(sandbox.pool.run(run('sandbox-hog', { memoryMb: 300 }), hooks())).rejects.toThrow(
      'exceeded the memory limit of 300 MB',
    );
  });

  it('kills the engines a run started, not only the sandbox process', async () => {
    // A deadline a fresh sandbox process can start within on a loaded machine (the previous tests killed some).
    const outcome = sandbox.pool.run(run('sandbox-engine', { timeoutMs: 15_000 }), hooks());
    // The engine this run started: a `sleep 300` below this test's process.
    const isEngine = async (pid: number) =>
      (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0').join(' ').trim() === 'sleep 300';
    const engines: number[] = [];
    for (const giveUpAt = Date.now() + 15_000; !engines.length && Date.now() < giveUpAt; ) {
      await sleep(100);
      for (const proc of await processTree(process.pid)) if (await isEngine(proc.pid)) engines.push(proc.pid);
    }
    expect(engines).toHaveLength(1);
    await expect(outcome).rejects.toThrow('Timed out');
    const running = async () => {
      const left: number[] = [];
      for (const pid of engines) if (await isEngine(pid)) left.push(pid);
      return left;
    };
    await vi
      .waitUntil(async () => (await running()).length === 0, { timeout: 10_000, interval: 100 })
      .catch(() => undefined);
    expect(await running(), 'engines still running').toEqual([]);
  });

  it('reports a crash of the sandbox process as a failed run', async () => {
    await expect(sandbox.pool.run(run('sandbox-crash'), hooks())).rejects.toThrow(
      'The converter crashed while processing the file (exit code 70)',
    );
    await expect(sandbox.pool.run(run('sandbox-echo'), hooks())).resolves.toMatchObject({ format: 'md' });
  });

  it('runs at most `size` at once; the others wait for a process', async () => {
    const all = await Promise.all([1, 2, 3, 4].map(() => sandbox.pool.run(run('sandbox-echo'), hooks())));
    expect(all).toHaveLength(4);
    expect(sandbox.pool.status().processes).toBeLessThanOrEqual(2);
  });

  it('names a plugin it cannot find', async () => {
    await expect(sandbox.pool.run(run('nope'), hooks())).rejects.toThrow(/'nope' is not exported by/);
    await expect(sandbox.pool.run(run('unknown'), hooks())).rejects.toThrow(/no module is known for plugin 'unknown'/);
  });
});

describe('SandboxPool with the service office pool', () => {
  // Runs ask the server's warm LibreOffice pool over IPC (office-convert / office-result).
  let dir: string;
  let input: PluginInput;
  const sandboxes: SandboxPool[] = [];
  const offices: LibreOfficePool[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-sandbox-office-'));
    input = { path: '', format: 'txt', filename: 'in.txt', bytes: 23 };
  });
  afterAll(async () => {
    await Promise.all(sandboxes.map((s) => s.close()));
    await Promise.all(offices.map((o) => o.close()));
    await rm(dir, { recursive: true, force: true });
  });

  function pools(officeOptions: Partial<ConstructorParameters<typeof LibreOfficePool>[0]> = {}) {
    const office = new LibreOfficePool({ size: 1, log, tmpDir: dir, ...officeOptions });
    const sandbox = new SandboxPool({
      moduleOf: () => FIXTURES,
      size: 1,
      heapMb: 512,
      log,
      killGraceMs: 300,
      office: office.convert,
    });
    offices.push(office);
    sandboxes.push(sandbox);
    return { office, sandbox };
  }
  const officeRun = (workDir: string, over: Partial<SandboxRun> = {}): SandboxRun => ({
    pluginId: 'sandbox-office',
    inputs: [{ ...input, path: path.join(workDir, 'in.txt') }],
    options: {},
    target: 'md',
    workDir,
    timeoutMs: 60_000,
    memoryMb: 1024,
    ...over,
  });
  const hooks = (): SandboxHooks => ({ progress() {}, report() {}, log });
  /** A run's work dir, holding its input (as the runner's do). */
  const runDir = async () => {
    const workDir = await mkdtemp(path.join(dir, 'run-'));
    await writeFile(path.join(workDir, 'in.txt'), 'hello from the sandbox\n');
    return workDir;
  };

  it('converts in the warm listener, refuses paths outside the run, and stops a conversion at the run ' +
    'deadline', async () => {
    const { office, sandbox } = pools();
    await office.warm();
    const workDir = await runDir();
    const result = (await sandbox.run(officeRun(workDir), hooks())) as { path: string };
    expect(result.path).toBe(path.join(workDir, 'out', 'in.pdf'));
    expect((await runProcess('pdftotext', [result.path, '-'], { timeoutMs: 10_000 })).stdout).toContain(
      'hello from the sandbox',
    );
    expect(office.status()).toMatchObject({ conversions: 1, coldFallbacks: 0 });

    // The child is not trusted: a file outside its run's work dir is not converted for it.
    await expect(
      sandbox.run(officeRun(await runDir(), { options: { source: '/etc/hostname' } }), hooks()),
    ).rejects.toThrow(/outside the run's work directory/);
    expect(office.status().conversions).toBe(1);

    // The run's deadline reaches the listener: killed and replaced.
    const pid = office.status().listeners[0]!.pid;
    const hangDir = await runDir();
    // 100k pages of nothing: LibreOffice lays them out until it is killed.
    await writeFile(path.join(hangDir, 'hang.txt'), '\f'.repeat(100_000));
    await expect(
      sandbox.run(
        // Time for the conversion to reach the listener on a loaded machine: only then is it killed and replaced.
        officeRun(hangDir, { options: { source: path.join(hangDir, 'hang.txt') }, timeoutMs: 5_000 }),
        hooks(),
      ),
    ).rejects.toThrow('Timed out after 5 s');
    // The run settles at its deadline; the listener's replacement is counted as the kill lands.
    await vi.waitUntil(() => office.status().restarts === 1, { timeout: 10_000, interval: 20 });
    await vi.waitUntil(() => office.status().listeners[0]!.state === 'idle', { timeout: 60_000, interval: 50 });
    expect(office.status().listeners[0]!.pid).not.toBe(pid);
  }, 180_000);

  it('a pool fallen back to cold soffice answers "cold": the run converts with a soffice of its own', async () => {
    const { office, sandbox } = pools({ pythonPath: path.join(dir, 'no-such-python'), failuresBeforeFallback: 1 });
    await office.warm();
    expect(office.status().mode).toBe('cold');
    const result = (await sandbox.run(officeRun(await runDir()), hooks())) as { path: string };
    expect((await runProcess('pdftotext', [result.path, '-'], { timeoutMs: 10_000 })).stdout).toContain(
      'hello from the sandbox',
    );
    expect(office.status()).toMatchObject({ conversions: 0, coldFallbacks: 1 });
  }, 180_000);
});
