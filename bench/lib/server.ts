/**
 * The real server for a benchmark: the compiled `apps/server/main.ts` in a child process (as `npm start`
 * runs it: test/helpers.ts spawnServer) with its own DATA_DIR under .tmp/, product defaults except what a row sets, and
 * an Enterprise key whose limits do not throttle the measurement (set with `admin set-limits`).
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../apps/shared/config.js';
import { ROOT, admin, freePort, spawnServer, type ChildServer } from '../../test/helpers.js';

/** Far above what any row sends: 200 pollers make well over 3,000 requests a minute. */
const BENCH_RPM = 100_000_000;
const BENCH_CREDITS = 1_000_000_000;

export interface BenchServer {
  url: string;
  key: string;
  dataDir: string;
  pid: number;
  stop(): Promise<void>;
}

export async function benchDataDir(name: string): Promise<string> {
  await mkdir(path.join(ROOT, '.tmp'), { recursive: true });
  return mkdtemp(path.join(ROOT, '.tmp', `bench-${name}-`));
}

/** An Enterprise account with one key and unthrottled limits in `dataDir`'s database. */
export async function benchKey(dataDir: string): Promise<string> {
  const created = await admin(dataDir, 'create-key', '--plan', 'enterprise');
  if (created.code !== 0) throw new Error(`admin create-key failed: ${JSON.stringify(created.result)}`);
  const limits = await admin(
    dataDir,
    'set-limits',
    '--account',
    created.result.accountId,
    '--credits',
    String(BENCH_CREDITS),
    '--rpm',
    String(BENCH_RPM),
  );
  if (limits.code !== 0) throw new Error(`admin set-limits failed: ${JSON.stringify(limits.result)}`);
  return created.result.key;
}

export async function startBenchServer(name: string, env: Record<string, string> = {}): Promise<BenchServer> {
  const dataDir = await benchDataDir(name);
  const key = await benchKey(dataDir);
  // spawnServer's test default polls every 50 ms; benchmarks measure the product's default.
  const defaults = loadConfig({ DATA_DIR: dataDir });
  let server: ChildServer;
  try {
    server = await spawnServer({
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      QUEUE_POLL_MS: String(defaults.queuePollMs),
      ...env,
    });
  } catch (err) {
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: server.url,
    key,
    dataDir,
    pid: server.process.pid!,
    async stop() {
      await server.kill('SIGTERM');
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Resident memory of one process (not its children), from /proc. */
export async function rssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  if (!kb) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) * 1024;
}

/**
 * The baseline server (bench/fixtures/trivial-server.ts) in its own process, once it answers; `nodeArgs`: extra Node
 * options (e.g. `--cpu-prof`).
 */
export async function startTrivialServer(
  nodeArgs: readonly string[] = [],
): Promise<{ url: string; pid: number; stop(): void }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [...nodeArgs, '--import', 'tsx', path.join(ROOT, 'bench/fixtures/trivial-server.ts'), String(port)],
    { stdio: 'inherit' },
  );
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`the trivial server exited with ${child.exitCode}`);
    if (
      await fetch(`${url}/trivial`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (attempt > 300) throw new Error('the trivial server did not start in 30 s');
    await sleep(100);
  }
  return { url, pid: child.pid!, stop: () => void child.kill('SIGTERM') };
}
