/**
 * A sandbox process whose server is gone ends by itself: it must not outlive the server (an orphan holding memory,
 * its engines and a CPU), however the server went, even while the sandbox was still starting.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { isProcessAlive } from '../process-tree.js';
import { SANDBOX_ENV, type RunMessage } from './protocol.js';
import { SANDBOX_FIXTURES } from './testing/pool-testbed.js';

const CHILD = path.join(import.meta.dirname, 'child.ts');
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const started: ChildProcess[] = [];

/** The sandbox process as the pool starts it (pipes for its output, an IPC channel), with `settings`. */
function sandbox(settings: Record<string, unknown> = {}): ChildProcess {
  const child = fork(CHILD, [], {
    execArgv: ['--import', TSX],
    env: { ...process.env, [SANDBOX_ENV]: JSON.stringify(settings) },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    serialization: 'advanced',
    detached: true,
  });
  started.push(child);
  return child;
}

const exited = (child: ChildProcess, ms: number) =>
  new Promise<number | string | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode ?? child.signalCode);
    const timer = setTimeout(() => resolve('still running'), ms);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(code ?? signal);
    });
  });

afterEach(() => {
  for (const child of started.splice(0)) if (child.pid && isProcessAlive(child.pid)) child.kill('SIGKILL');
});

it('ends when the server goes away while it is still starting', { timeout: 60_000 }, async () => {
  const child = sandbox({ preload: [SANDBOX_FIXTURES] });
  // Gone before the sandbox finished starting (a server that failed its own start, or was killed then).
  await new Promise((resolve) => setTimeout(resolve, 50));
  child.disconnect();
  expect(await exited(child, 30_000)).toBe(0);
});

it('ends when a stray error comes after its server (and the pipes it writes to) went away', {
  timeout: 60_000,
}, async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-sandbox-orphan-'));
  try {
    const child = sandbox();
    await new Promise<void>((resolve) =>
      child.on('message', (m: { type?: string }) => m.type === 'ready' && resolve()),
    );
    const run: RunMessage = {
      type: 'run',
      runId: 1,
      pluginId: 'sandbox-crash',
      module: SANDBOX_FIXTURES,
      inputs: [],
      options: {},
      target: 'md',
      workDir: dir,
      deadline: Date.now() + 30_000,
    };
    child.send(run);
    // The server's ends of the sandbox's output close, as when the server dies: its writes there fail (EPIPE).
    child.stdout!.destroy();
    child.stderr!.destroy();
    expect(await exited(child, 30_000)).toBe(70);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
