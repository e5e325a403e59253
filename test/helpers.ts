/**
 * End-to-end harness: a real server (real store, queue, engines) on a random port with its own
 * data dir, and small HTTP helpers. No mocks: tests talk HTTP to it like any client.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { openAsBlob } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import type { Plugin } from '../core/contract/index.js';
import type { Clock } from '../core/services/clock.js';
import type { JobStatus, PlanId } from '../schema/index.js';
import { loadConfig } from '../apps/shared/config.js';
import { startServer as startRunningServer, type RunningServer } from '../apps/server/server.js';

export const ROOT = path.resolve(import.meta.dirname, '..');
/**
 * The test-only plugin module (loaded with PLUGINS=, like any third-party plugin, so sandbox processes load it too).
 */
export const SLOW_TEXT_PLUGIN = path.join(ROOT, 'test/fixtures/plugins/slow-text.ts');

export interface TestServer {
  url: string;
  dataDir: string;
  server: RunningServer;
  /** A new account on `plan` with one key; returns the key. */
  createKey(plan?: PlanId, options?: { overageEnabled?: boolean }): Promise<string>;
  /** Like createKey, with the account id too. */
  createAccount(plan?: PlanId, options?: { overageEnabled?: boolean }): Promise<{ key: string; accountId: string }>;
  close(): Promise<void>;
}

export interface StartOptions {
  /** The registry's plugins (default: the standard distribution); extra plugin modules go in env PLUGINS. */
  plugins?: readonly Plugin[];
  clock?: Clock;
  env?: Record<string, string>;
  dataDir?: string;
}

/** Start the embedded server in this process (HTTP + workers). */
export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'transmute-test-')));
  const server = await onAFreePort(async (port) => {
    const config = loadConfig({
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      QUEUE_POLL_MS: '50',
      QUEUE_LOCK_MS: '5000',
      SHUTDOWN_GRACE_MS: '2000',
      // Many test servers run at once and most convert no office file: listeners start on first use.
      OFFICE_POOL_WARM: '0',
      ...options.env,
    });
    return startRunningServer(config, {
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.plugins ? { plugins: options.plugins } : {}),
    });
  });
  const url = server.url;
  const createAccount = async (plan: PlanId = 'pro', opts: { overageEnabled?: boolean } = {}) => {
    const account = await server.runtime.services.accounts.createAccount({
      plan,
      overageEnabled: opts.overageEnabled ?? false,
    });
    const { key } = await server.runtime.services.accounts.createKey(account.id);
    return { key, accountId: account.id };
  };
  return {
    url,
    dataDir,
    server,
    createAccount,
    createKey: async (plan, opts) => (await createAccount(plan, opts)).key,
    async close() {
      await server.close();
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export type FileSource = string | { name: string; data: Buffer | string };

async function toBlob(file: FileSource): Promise<{ blob: Blob; name: string }> {
  if (typeof file === 'string') return { blob: await openAsBlob(file), name: path.basename(file) };
  return {
    blob: new Blob([new Uint8Array(typeof file.data === 'string' ? Buffer.from(file.data) : file.data)]),
    name: file.name,
  };
}

export function authHeaders(key: string | undefined): Record<string, string> {
  return key ? { authorization: `Bearer ${key}` } : {};
}

/** POST /api/v1/convert with one file and the given fields; returns status and parsed JSON. */
export async function submitConvert(
  url: string,
  key: string | undefined,
  file: FileSource,
  fields: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const form = new FormData();
  const { blob, name } = await toBlob(file);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', blob, name);
  const res = await fetch(`${url}/api/v1/convert`, { method: 'POST', body: form, headers: authHeaders(key) });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

export async function getJson(
  url: string,
  key: string | undefined,
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(url, { headers: authHeaders(key) });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/**
 * Poll GET /api/v1/jobs/{id} until done or failed: quickly at first, then backing off to one poll
 * a second, as a client should (a Free key has 30 requests a minute).
 */
export async function waitForJob(url: string, key: string, jobId: string, timeoutMs = 60_000): Promise<JobStatus> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 50; ; delay = Math.min(1000, delay * 1.5)) {
    const { status, body } = await getJson(`${url}/api/v1/jobs/${jobId}`, key);
    if (status !== 200) throw new Error(`poll answered ${status}: ${JSON.stringify(body)}`);
    if (body.status === 'done' || body.status === 'failed') return body as JobStatus;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${body.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, delay));
  }
}

/** GET a download URL; returns the bytes and headers. */
export async function download(downloadUrl: string): Promise<{ status: number; data: Buffer; headers: Headers }> {
  const res = await fetch(downloadUrl);
  return { status: res.status, data: Buffer.from(await res.arrayBuffer()), headers: res.headers };
}

/**
 * The whole client flow: submit, poll to done, download. Throws with the server's message if
 * any step fails. `outputPath` holds the downloaded file (in a temp dir) for engines to inspect.
 */
export async function convertAndDownload(
  url: string,
  key: string,
  file: FileSource,
  fields: Record<string, string>,
  timeoutMs = 60_000,
): Promise<{ job: JobStatus; data: Buffer; outputPath: string; filename: string }> {
  const submitted = await submitConvert(url, key, file, fields);
  if (submitted.status !== 200)
    throw new Error(`convert answered ${submitted.status}: ${JSON.stringify(submitted.body)}`);
  const job = await waitForJob(url, key, submitted.body.jobId, timeoutMs);
  if (job.status !== 'done') throw new Error(`job failed: ${job.error}`);
  const got = await download(job.downloadUrl!);
  if (got.status !== 200) throw new Error(`download answered ${got.status}`);
  const filename = /filename="([^"]+)"/.exec(got.headers.get('content-disposition') ?? '')?.[1] ?? 'output';
  const dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-out-'));
  const outputPath = path.join(dir, filename);
  await writeFile(outputPath, got.data);
  return { job, data: got.data, outputPath, filename };
}

/** A server in a child process (for kill -9 and multi-process tests). */
export interface ChildServer {
  url: string;
  process: ChildProcess;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * `start` on a port freePort() found, again on another one while the port was taken meanwhile (EADDRINUSE):
 * between the probe and the server's listen, any outgoing connection of this machine may pick it.
 */
async function onAFreePort<T>(start: (port: number) => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort());
    } catch (err) {
      if ((err as NodeJS.ErrnoException)?.code !== 'EADDRINUSE' || attempt >= attempts) throw err;
    }
  }
}

/** A port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** How long a spawned server may take to answer /healthz (generous: a loaded CI machine starts slowly). */
const STARTUP_MS = 60_000;

/**
 * The V8 flags `npm start` and the Docker image give the server (package.json, docker/Dockerfile):
 * young-generation semi-spaces of 2 MB instead of 16 keep the API process some 40 MB smaller
 * (README, "Memory of the API process"). Every test that spawns the API server passes them and SERVER_ENV, so it
 * runs as it ships; test/server-process.test.ts keeps package.json and the Dockerfile in step with both.
 */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=2'] as const;
/** The environment `npm start` adds: two glibc malloc arenas (README, "Memory of the API process"). */
export const SERVER_ENV = { MALLOC_ARENA_MAX: '2' } as const;

/**
 * The compiled tree `npm start` and `npm run worker` run (scripts/build-app.mjs), built from the
 * sources as they are now: an edit since the last build is compiled first (well under a second),
 * so a spawned process never runs stale code.
 */
export async function compiledApp(entry: 'apps/server/main.js' | 'apps/worker/main.js'): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [path.join(ROOT, 'scripts/build-app.mjs')], {
    cwd: ROOT,
  });
  return path.join(stdout.trim(), entry);
}

/** `nodeArgs`: extra Node options for the server process alone (e.g. an `--import` hook). */
export async function spawnServer(
  env: Record<string, string>,
  { nodeArgs = [], app }: { nodeArgs?: readonly string[]; app?: string } = {},
): Promise<ChildServer> {
  const main = app ?? (await compiledApp('apps/server/main.js'));
  if (env.PORT) return spawnServerOn(env.PORT, env, nodeArgs, main);
  return onAFreePort((port) => spawnServerOn(String(port), env, nodeArgs, main));
}

/** Whether something listens on, or holds, `port` on 127.0.0.1 now. */
function portTaken(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'EADDRINUSE'));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(false)));
  });
}

async function spawnServerOn(
  port: string,
  env: Record<string, string>,
  nodeArgs: readonly string[],
  main: string,
): Promise<ChildServer> {
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...nodeArgs, main], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...SERVER_ENV,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      QUEUE_POLL_MS: '50',
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      OFFICE_POOL_WARM: '0',
      ...env,
      PORT: port,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + STARTUP_MS;
  for (;;) {
    if (child.exitCode !== null) {
      // Marked EADDRINUSE when another socket took the port meanwhile, so onAFreePort tries another.
      const exited: NodeJS.ErrnoException = new Error(`server exited with ${child.exitCode}`);
      if (await portTaken(Number(port))) exited.code = 'EADDRINUSE';
      throw exited;
    }
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not start in ${STARTUP_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    process: child,
    kill: (signal = 'SIGKILL') =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}

/** Run the admin CLI; returns its one JSON line parsed. */
export async function admin(dataDir: string, ...args: string[]): Promise<any> {
  return adminWith({ DATA_DIR: dataDir }, ...args);
}

/** Run the admin CLI with `env` (POSTGRES_URL, S3_*...); returns its one JSON line parsed. */
export async function adminWith(env: Record<string, string>, ...args: string[]): Promise<any> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/cli/main.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const lines = out.trim().split('\n');
  return { code, result: JSON.parse(lines[lines.length - 1]!) };
}

/** A clock tests can move. */
export class TestClock implements Clock {
  constructor(private current = new Date()) {}
  now() {
    return new Date(this.current);
  }
  set(at: Date | string) {
    this.current = new Date(at);
  }
  advance(ms: number) {
    this.current = new Date(this.current.getTime() + ms);
  }
}

// Worker processes (`npm run worker`), for the multi-process tests.

export interface LogLine {
  /** pino's number: 30 info, 40 warn, 50 error. */
  level: number;
  msg?: string;
  jobId?: string;
  pid?: number;
}

export interface ChildWorker {
  process: ChildProcess;
  logs: LogLine[];
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Rate limits count in fixed wall-clock minutes (core/services/rate-limit.ts). A test that counts
 * requests within one window starts early enough in a minute to finish in it: a burst that
 * straddled a boundary would see the count reset half-way.
 */
export async function withinOneRateWindow(neededMs = 25_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < neededMs) await sleep(left + 100);
}

export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(200);
  }
}

/** Starts `npm run worker` in a child process and waits until it takes jobs. */
export async function spawnWorker(env: Record<string, string>): Promise<ChildWorker> {
  const child = spawn(process.execPath, [await compiledApp('apps/worker/main.js')], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', QUEUE_POLL_MS: '50', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const logs: LogLine[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (!line.startsWith('{')) return;
    const entry = JSON.parse(line) as LogLine;
    logs.push(entry);
    // Warnings and errors reach the run's output, as a server's do (its stderr is inherited).
    if (entry.level >= 40) process.stderr.write(`${line}\n`);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await waitUntil(
    () => {
      if (child.exitCode !== null) throw new Error(`worker exited with ${child.exitCode} while starting`);
      return logs.some((l) => l.msg === 'worker running');
    },
    60_000,
    'the worker to start',
  );
  return { process: child, logs, exited };
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(15_000).then(() => child.kill('SIGKILL'))]);
}
