/**
 * The soak's cluster: PostgreSQL and s3rver (test/servers/), two API processes (WORKERS=0) and two workers, as
 * test/scale-out.e2e.test.ts starts them, except that every process reaches PostgreSQL and S3 through its own
 * TcpProxy (one per link), so the injector can delay or cut one link. Each node keeps its DATA_DIR and (APIs) its
 * port across restarts, as a restarted container with its volume would. Logs go to files under the soak's root.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT, SERVER_ENV, SERVER_NODE_FLAGS, SLOW_TEXT_PLUGIN, compiledApp, freePort, sleep } from '../helpers.js';
import { startPostgres, type PostgresTestServer } from '../servers/postgres.js';
import { startS3Server, type S3TestServer } from '../servers/s3.js';
import { TcpProxy } from './tcp-proxy.js';

export type Role = 'api' | 'worker';

export interface SoakNode {
  name: string;
  role: Role;
  dataDir: string;
  /** APIs: the fixed port and URL clients use, the same after a restart. */
  port: number;
  url: string;
  pgProxy: TcpProxy;
  s3Proxy: TcpProxy;
  process: ChildProcess | null;
  /** Paused with SIGSTOP. */
  stopped: boolean;
  log: WriteStream;
  starts: number;
  /** The harness is ending this process (kill -9, SIGTERM): its exit is no crash. */
  expectExit: boolean;
  /** startNode is waiting for it: an exit now is a failed start, which startNode reports. */
  starting: boolean;
  reviving: boolean;
}

/** A product process that exited by itself while it ran. */
export interface Crash {
  node: string;
  pid: number | undefined;
  exit: string;
  at: number;
  /** Its last words on stderr (an uncaught error's message and stack), so a violation says why it ended. */
  stderr: string;
}

/** Stderr kept per process for a crash's cause: the last this many characters. */
const STDERR_KEPT = 4000;

/** The error a crashed process printed (its first line and the next stack frames), in one line. */
export function crashCause(stderr: string): string {
  const lines = stderr.split('\n').map((line) => line.trim());
  const first = lines.findIndex((line) => /^(\w*Error|error)(:| \[)/.test(line));
  if (first === -1) return lines.filter(Boolean).slice(-3).join(' | ') || 'nothing on stderr';
  const frames = lines.slice(first + 1).filter((line) => line.startsWith('at ') && !line.includes('node:internal'));
  return [lines[first], ...frames.slice(0, 4)].join(' | ');
}

export interface ClusterSettings {
  lockMs: number;
  retentionS: number;
  uploadMaxS: number;
  workersPerNode: number;
}

const STARTUP_MS = 120_000;

export class Cluster {
  postgres!: PostgresTestServer;
  s3!: S3TestServer;
  databaseUrl = '';
  bucket = '';
  nodes: SoakNode[] = [];
  readonly crashes: Crash[] = [];
  /** Restart a crashed process, as an orchestrator's restart policy would (on while the soak runs). */
  supervise = false;
  private apiMain = '';
  private workerMain = '';

  constructor(
    readonly root: string,
    readonly settings: ClusterSettings,
  ) {}

  static async create(settings: ClusterSettings): Promise<Cluster> {
    const root = await mkdtemp('/tmp/transmute-soak-');
    return new Cluster(root, settings);
  }

  get apis(): SoakNode[] {
    return this.nodes.filter((node) => node.role === 'api');
  }

  get workers(): SoakNode[] {
    return this.nodes.filter((node) => node.role === 'worker');
  }

  /** Environment every process shares (its own proxies' ports are added per node). */
  baseEnv(): Record<string, string> {
    return {
      MONGODB_URL: '',
      TOKEN_SECRET: 'soak-test-secret-0123456789abcdef0123456789abcdef',
      PLUGINS: SLOW_TEXT_PLUGIN,
      QUEUE_POLL_MS: '500',
      QUEUE_LOCK_MS: String(this.settings.lockMs),
      SHUTDOWN_GRACE_MS: '10000',
      RETENTION_S: String(this.settings.retentionS),
      UPLOAD_MAX_S: String(this.settings.uploadMaxS),
      WEBHOOKS_ALLOW_PRIVATE: '1',
      OFFICE_POOL_WARM: '0',
      OFFICE_POOL_SIZE: '1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    };
  }

  /** Environment of `node`: PostgreSQL and S3 through its proxies. */
  nodeEnv(node: SoakNode): Record<string, string> {
    const database = new URL(this.databaseUrl);
    database.port = String(node.pgProxy.port);
    return {
      ...this.baseEnv(),
      ...this.s3.env(this.bucket),
      S3_ENDPOINT: `http://127.0.0.1:${node.s3Proxy.port}`,
      POSTGRES_URL: database.toString(),
      DATA_DIR: node.dataDir,
      WORKERS: node.role === 'api' ? '0' : String(this.settings.workersPerNode),
      // Workers log each job's start and end (info); APIs only what went wrong (their info is every request).
      LOG_LEVEL: node.role === 'api' ? 'warn' : 'info',
      ...(node.role === 'api' ? { PORT: String(node.port), PUBLIC_URL: node.url, HOST: '127.0.0.1' } : {}),
    };
  }

  /** Direct environment (no proxy), for the admin CLI and the checker. */
  directEnv(): Record<string, string> {
    return {
      ...this.baseEnv(),
      ...this.s3.env(this.bucket),
      POSTGRES_URL: this.databaseUrl,
      DATA_DIR: path.join(this.root, 'admin'),
    };
  }

  async start(nodes: { apis: number; workers: number }): Promise<void> {
    [this.postgres, this.s3] = await Promise.all([startPostgres(), startS3Server()]);
    this.databaseUrl = await this.postgres.createDatabase();
    this.bucket = await this.s3.newBucket();
    this.apiMain = await compiledApp('apps/server/main.js');
    this.workerMain = await compiledApp('apps/worker/main.js');
    await mkdir(path.join(this.root, 'admin'), { recursive: true });
    await mkdir(path.join(this.root, 'logs'), { recursive: true });
    const s3Port = Number(new URL(this.s3.endpoint).port);
    const make = async (role: Role, index: number): Promise<SoakNode> => {
      const name = `${role}-${index}`;
      const dataDir = path.join(this.root, name);
      await mkdir(dataDir, { recursive: true });
      const pgProxy = new TcpProxy(`${name}->postgres`, this.postgres.port);
      const s3Proxy = new TcpProxy(`${name}->s3`, s3Port);
      await Promise.all([pgProxy.start(), s3Proxy.start()]);
      const port = role === 'api' ? await freePort() : 0;
      return {
        name,
        role,
        dataDir,
        port,
        url: `http://127.0.0.1:${port}`,
        pgProxy,
        s3Proxy,
        process: null,
        stopped: false,
        log: createWriteStream(path.join(this.root, 'logs', `${name}.log`), { flags: 'a' }),
        starts: 0,
        expectExit: false,
        starting: false,
        reviving: false,
      };
    };
    for (let i = 0; i < nodes.apis; i++) this.nodes.push(await make('api', i));
    for (let i = 0; i < nodes.workers; i++) this.nodes.push(await make('worker', i));
    // The first process migrates the schema; the others find it made.
    await this.startWithRetries(this.nodes[0]!);
    await Promise.all(this.nodes.slice(1).map((node) => this.startWithRetries(node)));
  }

  /** A start that failed (a loaded machine's connect timeout) is tried again, a bounded number of times. */
  private async startWithRetries(node: SoakNode): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.startNode(node);
      } catch (err) {
        if (attempt >= 5) throw err;
        await sleep(2000 * attempt);
      }
    }
  }

  /** Starts `node` and waits until it serves (API: /healthz) or takes jobs (worker: its log says so). */
  async startNode(node: SoakNode): Promise<void> {
    const main = node.role === 'api' ? this.apiMain : this.workerMain;
    const child = spawn(process.execPath, node.role === 'api' ? [...SERVER_NODE_FLAGS, main] : [main], {
      cwd: ROOT,
      env: { ...process.env, ...SERVER_ENV, ...this.nodeEnv(node) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    node.process = child;
    node.stopped = false;
    node.expectExit = false;
    node.starting = true;
    node.starts++;
    node.log.write(`--- start ${node.starts} pid ${child.pid} at ${new Date().toISOString()}\n`);
    let running = false;
    createInterface({ input: child.stdout! }).on('line', (line) => {
      node.log.write(`${line}\n`);
      if (line.includes('"worker running"')) running = true;
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      node.log.write(chunk);
      stderr = (stderr + chunk.toString()).slice(-STDERR_KEPT);
    });
    child.once('exit', (code, signal) => {
      node.log.write(`--- exit ${code ?? signal} pid ${child.pid} at ${new Date().toISOString()}\n`);
      if (node.process !== child || node.expectExit || node.starting) return;
      const crash = { node: node.name, pid: child.pid, exit: String(code ?? signal), at: Date.now(), stderr };
      this.crashes.push(crash);
      // Its last words may still be in the pipe at 'exit': all read at 'close'.
      child.once('close', () => {
        crash.stderr = stderr;
      });
      if (this.supervise) void this.revive(node);
    });
    try {
      const deadline = Date.now() + STARTUP_MS;
      for (let round = 0; ; round++) {
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`${node.name} exited with ${child.exitCode ?? child.signalCode} while starting`);
        if (node.role === 'worker' && running) return;
        if (node.role === 'api') {
          const ok = await fetch(`${node.url}/healthz`, { signal: AbortSignal.timeout(2000) }).then(
            (res) => res.ok,
            () => false,
          );
          if (ok) return;
        }
        if (Date.now() > deadline) {
          node.expectExit = true;
          child.kill('SIGKILL');
          throw new Error(`${node.name} did not start in ${STARTUP_MS / 1000} s`);
        }
        await sleep(Math.min(100 + round * 50, 500));
      }
    } finally {
      node.starting = false;
    }
  }

  /** Starts a crashed node again, a bounded number of times. */
  private async revive(node: SoakNode): Promise<void> {
    if (node.reviving) return;
    node.reviving = true;
    try {
      for (let attempt = 1; attempt <= 10 && this.supervise && !this.isAlive(node); attempt++) {
        await sleep(1000 * attempt);
        if (this.isAlive(node) || node.starting) return;
        await this.startNode(node).catch(() => undefined);
      }
    } finally {
      node.reviving = false;
    }
  }

  isAlive(node: SoakNode): boolean {
    const child = node.process;
    return Boolean(child && child.exitCode === null && child.signalCode === null);
  }

  async kill9(node: SoakNode): Promise<void> {
    const child = node.process;
    if (!child || !this.isAlive(node)) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    node.expectExit = true;
    child.kill('SIGKILL');
    await Promise.race([exited, sleep(10_000)]);
    node.stopped = false;
  }

  pause(node: SoakNode): void {
    if (!this.isAlive(node)) return;
    node.process!.kill('SIGSTOP');
    node.stopped = true;
  }

  resume(node: SoakNode): void {
    if (node.process && this.isAlive(node)) node.process.kill('SIGCONT');
    node.stopped = false;
  }

  /** SIGTERM, then SIGKILL after the grace and a margin. */
  async stopNode(node: SoakNode): Promise<void> {
    const child = node.process;
    if (!child || !this.isAlive(node)) return;
    if (node.stopped) this.resume(node);
    node.expectExit = true;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(25_000)]);
    if (this.isAlive(node)) {
      child.kill('SIGKILL');
      await Promise.race([exited, sleep(5_000)]);
    }
  }

  /** Pids of the product's processes alive now. */
  livePids(): number[] {
    return this.nodes.flatMap((node) => (this.isAlive(node) && node.process?.pid ? [node.process.pid] : []));
  }

  async stopAll(): Promise<void> {
    this.supervise = false;
    await Promise.all(this.nodes.map((node) => this.stopNode(node)));
  }

  async close(): Promise<void> {
    await this.stopAll();
    await Promise.all(this.nodes.flatMap((node) => [node.pgProxy.close(), node.s3Proxy.close()]));
    await Promise.all(this.nodes.map((node) => new Promise((resolve) => node.log.end(resolve))));
    await Promise.all([this.postgres?.stop(), this.s3?.stop()]);
  }
}
