/**
 * A warm LibreOffice pool: up to N soffice listeners (`--accept=pipe,...`), each with its own
 * profile (two soffice on one profile silently write nothing) and its own long-lived UNO bridge
 * (uno-bridge.py under Debian's /usr/bin/python3, JSON lines over stdin/stdout), so a one-page
 * conversion costs tens of milliseconds instead of a cold soffice's second. One pool per service
 * process; sandbox processes reach it over IPC (sandbox/protocol.ts: office-convert).
 *
 * Supervised by supervisor.ts (as the sandbox pool and Chromium are): listeners start warm (or on
 * first demand), idle ones are pinged, a listener is recycled after `maxConversions` or past
 * `maxRssMb`, and one that crashed, hung past a conversion's deadline or was interrupted is killed
 * with its process group and replaced.
 * A conversion whose listener died under it is retried once on a fresh listener. When listeners
 * keep failing to start (no python3-uno, a broken soffice), a circuit breaker sends conversions
 * back to cold soffice in the calling process and tries a listener again later.
 *
 * Confinement (confine.ts): each listener lives in its own jail, seeing only its own folder
 * (profile, work, tmp), and its bridge in another that sees only that tmp, where soffice makes its
 * pipe socket. A conversion copies its input into the listener's work folder and moves the output
 * back into the run's folder: a listener never sees a job's folder, so one document cannot reach
 * another's.
 *
 * Memory: listeners live outside a run's process tree, so the run's memory cap is applied here to
 * what its conversion adds to the listener (the listener is killed past it), and the pool keeps
 * each idle listener under `maxRssMb` by recycling it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { PluginError, type Logger } from '../../contract/index.js';
import { confinementEnabled, jailedCommandMissing, jailedIf } from '../confine.js';
import {
  SOFFICE,
  UNO_BRIDGE_SCRIPT,
  UNO_PYTHON,
  WRONG_PASSWORD_LINE,
  convertToParts,
  expectedOutput,
  filterParts,
  prepareOfficeProfile,
  type LibreOfficeResult,
  type OfficeConversion,
  type OfficeConverter,
} from '../libreoffice.js';
import { resolveCommand } from '../paths.js';
import { EngineError, commandExists } from '../process.js';
import {
  isProcessAlive,
  killGroup,
  processTree,
  pssSince,
  treeMemory,
  treePssOver,
  type TreeMemory,
} from './process-tree.js';
import { Supervisor, type Lease, type SlotState, type SupervisedInstance } from './supervisor.js';
import { withSpan } from '../../telemetry/tracing.js';

export { UNO_PYTHON } from '../libreoffice.js';
const BRIDGE_SCRIPT = UNO_BRIDGE_SCRIPT;
const MB = 1_000_000;
const STDERR_TAIL = 4 * 1024;
/** Nice value of listeners: as low as sandbox runs, so HTTP answers first under load. */
const LISTENER_PRIORITY = 10;
const KILL_WAIT_MS = 5_000;
/** What a client reads when LibreOffice cannot read the file: the words a cold soffice prints. */
const LOAD_FAILED = 'Error: source file could not be loaded';
const STORE_FAILED = 'Error: the converted file could not be written';

export interface LibreOfficePoolOptions {
  /** Listeners at most; 0 disables the pool (every conversion starts a cold soffice). */
  size: number;
  /** A listener is replaced after this many conversions... */
  maxConversions?: number;
  /** ...or when it holds more than this much memory (proportional set size) after a conversion. */
  maxRssMb?: number;
  log: Logger;
  /** The interpreter that has python3-uno. */
  pythonPath?: string;
  /** Where the pool's private directory (listener profiles) is made; removed on close. */
  tmpDir?: string;
  /** How long a listener may take to start and accept its bridge. */
  startTimeoutMs?: number;
  /** Listener starts failing in a row before conversions fall back to cold soffice... */
  failuresBeforeFallback?: number;
  /** ...and how long the pool stays cold before it tries a listener again. */
  retryAfterMs?: number;
  /** How often idle listeners are pinged and measured... */
  healthCheckMs?: number;
  /** ...and how long a ping may take before the listener counts as hung. */
  pingTimeoutMs?: number;
  /** How often a converting listener's memory is sampled (when the conversion has a cap). */
  memoryPollMs?: number;
  /** Listeners run in jails (confine.ts); default: as this process's runProcess calls (configureConfinement). */
  confine?: boolean;
}

/** stopped: not started yet (listeners start on demand until warmed); down: failed to start, retried later. */
export type ListenerState = SlotState;

export interface OfficePoolStatus {
  /** pool: listeners in use; cold: fallen back to cold soffice (see fallbackReason); disabled: OFFICE_POOL_SIZE=0. */
  mode: 'pool' | 'cold' | 'disabled';
  size: number;
  listeners: Array<{ state: ListenerState; pid?: number; conversions: number; rssMb: number }>;
  /**
   * Since start: conversions done in listeners, listeners replaced after a crash, hang or abort, recycled, conversions
   * retried, sent cold.
   */
  conversions: number;
  restarts: number;
  recycled: number;
  retried: number;
  coldFallbacks: number;
  fallbackReason?: string;
}

interface BridgeAnswer {
  id?: number;
  ready?: boolean;
  ok?: boolean;
  stage?: 'load' | 'password' | 'store' | 'bridge';
  error?: string;
}

/** The listener or its bridge exited (or could not start): the conversion may be retried elsewhere. */
class ListenerDied extends Error {}

const ROOT_PREFIX = 'transmute-office-';
/** Where LibreOffice makes a pipe's socket (`OSL_PIPE_<uid>_<name>`); a killed soffice leaves it. */
const PIPE_DIR = '/tmp';
const pipeSocket = (pipeDir: string, pipeName: string) =>
  path.join(pipeDir, `OSL_PIPE_${process.getuid?.() ?? 0}_${pipeName}`);

/**
 * A listener's folder: its profile, the files of the conversion in progress, and its /tmp (the pipe socket) when
 * jailed.
 */
function listenerFolders(dir: string) {
  return { dir, profile: path.join(dir, 'profile'), work: path.join(dir, 'work'), tmp: path.join(dir, 'tmp') };
}
type ListenerFolders = ReturnType<typeof listenerFolders>;

/** Move a finished file out of a listener's folder (which may sit on another device). */
async function moveFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await copyFile(from, to);
    await rm(from, { force: true });
  }
}

/**
 * What pools of processes that are gone left behind (killed with SIGKILL, close() never ran):
 * profile directories (hundreds of KB each) and pipe sockets. Both names carry the owner's pid.
 */
async function removeOrphans(tmpDir: string): Promise<void> {
  const owned = [
    { dir: tmpDir, pattern: new RegExp(`^${ROOT_PREFIX}(\\d+)-`) },
    { dir: PIPE_DIR, pattern: new RegExp(`^OSL_PIPE_\\d+_${ROOT_PREFIX}(\\d+)-`) },
  ];
  for (const { dir, pattern } of owned) {
    for (const entry of await readdir(dir).catch(() => [] as string[])) {
      const owner = Number(pattern.exec(entry)?.[1]);
      if (owner && !isProcessAlive(owner)) await rm(path.join(dir, entry), { recursive: true, force: true });
    }
  }
}

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/** One soffice listener and its UNO bridge, each in a process group of its own. */
class Listener implements SupervisedInstance {
  conversions = 0;
  rssMb = 0;
  /** soffice's memory as last read between conversions (rssBytes). */
  private memory: TreeMemory | undefined;
  readonly exited: Promise<void>;
  private markExited!: () => void;
  private readonly answers = new Map<number, { resolve(answer: BridgeAnswer): void; reject(err: Error): void }>();
  private nextId = 0;
  private death: Error | undefined;
  private stderrTail = '';
  private onReady?: () => void;

  private constructor(
    readonly soffice: ChildProcess,
    readonly bridge: ChildProcess,
    private readonly pipeName: string,
    readonly folders: ListenerFolders,
    private readonly jailed: boolean,
  ) {
    this.exited = new Promise<void>((resolve) => (this.markExited = resolve));
  }

  static async start(options: {
    folders: ListenerFolders;
    jailed: boolean;
    pipeName: string;
    python: string;
    startTimeoutMs: number;
    signal: AbortSignal;
  }): Promise<Listener> {
    const { folders, jailed } = options;
    await Promise.all([
      prepareOfficeProfile(folders.profile),
      mkdir(folders.work, { recursive: true }),
      mkdir(folders.tmp, { recursive: true }),
    ]);
    // HOME too: nothing is written to the service user's home.
    const env = { ...process.env, HOME: folders.profile };
    const connect = `pipe,name=${options.pipeName}`;
    const sofficeArgs = [
      `-env:UserInstallation=${pathToFileURL(folders.profile).href}`,
      '--headless',
      '--invisible',
      '--nocrashreport',
      '--nodefault',
      '--nologo',
      '--nofirststartwizard',
      '--norestore',
      '--nolockcheck',
      `--accept=${connect};urp;StarOffice.ComponentContext`,
    ];
    // Jailed, each sees the listener's tmp folder as /tmp: the pipe socket is where both look for it.
    const sofficeSpawn = jailedIf(jailed, resolveCommand(SOFFICE.command), sofficeArgs, {
      writable: [folders.dir],
      tmpDir: folders.tmp,
      cwd: folders.work,
      env,
    });
    const soffice = spawn(sofficeSpawn.file, sofficeSpawn.args, {
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: sofficeSpawn.env,
    });
    if (!soffice.pid) {
      const error = await new Promise<Error>((resolve) => soffice.once('error', resolve));
      throw new ListenerDied(
        (error as NodeJS.ErrnoException).code === 'ENOENT'
          ? `${sofficeSpawn.file} is not installed`
          : `soffice could not start: ${error.message}`,
      );
    }
    // A jailed bridge cannot see soffice's process group (another pid namespace): 0 = none to kill;
    // the listener's jail dies with the server by itself (bwrap --die-with-parent).
    const bridgeArgs = [
      '-u',
      BRIDGE_SCRIPT,
      connect,
      String(options.startTimeoutMs / 1000),
      String(jailed ? 0 : soffice.pid),
    ];
    const bridgeSpawn = jailedIf(jailed, options.python, bridgeArgs, {
      writable: [],
      readable: [BRIDGE_SCRIPT],
      tmpDir: folders.tmp,
      cwd: '/tmp',
      env,
    });
    const bridge = spawn(bridgeSpawn.file, bridgeSpawn.args, {
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: bridgeSpawn.env,
    });
    const listener = new Listener(soffice, bridge, options.pipeName, folders, jailed);
    try {
      await listener.ready(options.startTimeoutMs, options.signal);
    } catch (err) {
      await listener.kill();
      throw err;
    }
    await listener.deprioritize();
    return listener;
  }

  private ready(timeoutMs: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => fail(new ListenerDied(`the listener did not start within ${Math.round(timeoutMs / 1000)} s`)),
        timeoutMs,
      );
      const onAbort = () => fail(new ListenerDied('the office pool is closed'));
      signal.addEventListener('abort', onAbort, { once: true });
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.onReady = undefined;
      };
      const fail = (err: Error) => {
        done();
        reject(err);
      };
      this.onReady = () => {
        done();
        resolve();
      };
      this.wire((err) => fail(err));
      if (signal.aborted) onAbort();
    });
  }

  /** Listen to both processes: answers from the bridge, and the death of either. */
  private wire(onStartFailure: (err: Error) => void): void {
    const tail = (chunk: string) => (this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL));
    this.soffice.stderr!.setEncoding('utf8').on('data', tail);
    this.bridge.stderr!.setEncoding('utf8').on('data', tail);
    this.bridge.stdin!.on('error', () => undefined); // it died: its exit says so
    createInterface({ input: this.bridge.stdout! }).on('line', (line) => {
      let answer: BridgeAnswer;
      try {
        answer = JSON.parse(line) as BridgeAnswer;
      } catch {
        return;
      }
      if (answer.ready) return this.onReady?.();
      const waiting = answer.id === undefined ? undefined : this.answers.get(answer.id);
      if (!waiting) return;
      this.answers.delete(answer.id!);
      waiting.resolve(answer);
    });
    const died = (what: string) => (code: number | null, signal: NodeJS.Signals | null) => {
      // In a jail, a missing program is bwrap's failure to run it (spawn's ENOENT otherwise).
      if (jailedCommandMissing(this.stderrTail)) {
        const missing =
          what === 'soffice' ? 'soffice is not installed' : 'the python with python3-uno is not installed';
        return this.die(new ListenerDied(missing), onStartFailure);
      }
      const detail = this.stderrTail
        .trim()
        .split('\n')
        .filter((l) => !/javaldx/.test(l))
        .slice(-2)
        .join(' | ');
      this.die(
        new ListenerDied(`${what} exited (${signal ?? `code ${code}`})${detail ? `: ${detail}` : ''}`),
        onStartFailure,
      );
    };
    this.soffice.on('exit', died('soffice'));
    this.bridge.on('exit', died('the UNO bridge'));
    this.soffice.on('error', (err) => this.die(new ListenerDied(`soffice: ${err.message}`), onStartFailure));
    this.bridge.on('error', (err) =>
      this.die(
        new ListenerDied(
          (err as NodeJS.ErrnoException).code === 'ENOENT'
            ? 'the python with python3-uno is not installed'
            : `the UNO bridge: ${err.message}`,
        ),
        onStartFailure,
      ),
    );
  }

  private die(err: Error, onStartFailure: (err: Error) => void): void {
    if (this.death) return;
    this.death = err;
    // One half without the other is useless: take both down.
    killGroup(this.soffice.pid);
    killGroup(this.bridge.pid);
    for (const waiting of this.answers.values()) waiting.reject(err);
    this.answers.clear();
    if (this.onReady) onStartFailure(err);
    this.markExited();
  }

  get alive(): boolean {
    return !this.death;
  }

  get pid(): number | undefined {
    return this.soffice.pid;
  }

  /** Send one request; settles with the bridge's answer, or rejects with ListenerDied. */
  request(message: Record<string, unknown>): Promise<BridgeAnswer> {
    if (this.death) return Promise.reject(this.death);
    const id = ++this.nextId;
    return new Promise<BridgeAnswer>((resolve, reject) => {
      this.answers.set(id, { resolve, reject });
      this.bridge.stdin!.write(`${JSON.stringify({ ...message, id })}\n`);
    });
  }

  /** The supervisor's health check. */
  async ping(): Promise<void> {
    await this.request({ op: 'ping' });
  }

  /** Proportional memory of soffice's process tree (shared pages split among their sharers). */
  async rssBytes(): Promise<number> {
    this.memory = this.soffice.pid ? await treeMemory(this.soffice.pid) : undefined;
    const bytes = this.memory?.pssBytes ?? 0;
    this.rssMb = Math.round(bytes / MB);
    return bytes;
  }

  /**
   * What a conversion starting now is not charged for: the listener's memory, estimated from its last reading
   * between conversions (pssSince: a stat per process instead of walking soffice's page tables on the conversion's
   * clock); read in full when there is none.
   */
  baselineBytes(): Promise<number> {
    return this.memory && this.soffice.pid ? pssSince(this.soffice.pid, this.memory) : this.rssBytes();
  }

  /** Its memory (PSS) when a conversion has added more than `limitBytes` to `baselineBytes`, else undefined. */
  async memoryOver(limitBytes: number, baselineBytes: number): Promise<number | undefined> {
    return this.soffice.pid ? treePssOver(this.soffice.pid, limitBytes, baselineBytes) : undefined;
  }

  /** Kill both process groups and wait for both processes to be gone. */
  async kill(): Promise<void> {
    const gone = [this.soffice, this.bridge].map((child) =>
      exited(child) || !child.pid
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            // A process stuck in the kernel may outlive SIGKILL for a while: do not wait forever.
            const timer = setTimeout(resolve, KILL_WAIT_MS);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
          }),
    );
    killGroup(this.soffice.pid);
    killGroup(this.bridge.pid);
    await Promise.all(gone);
    await rm(pipeSocket(this.jailed ? this.folders.tmp : PIPE_DIR, this.pipeName), { force: true });
  }

  /** Listeners yield the CPU like sandbox runs and are the OOM killer's choice before the server. */
  private async deprioritize(): Promise<void> {
    const pids = [
      ...(this.soffice.pid ? await processTree(this.soffice.pid) : []).map((p) => p.pid),
      ...(this.bridge.pid ? [this.bridge.pid] : []),
    ];
    for (const pid of pids) {
      try {
        os.setPriority(pid, LISTENER_PRIORITY);
      } catch {
        // not permitted here: listeners share the CPU evenly
      }
      await writeFile(`/proc/${pid}/oom_score_adj`, '1000').catch(() => undefined);
    }
  }
}

function timeoutError(timeoutMs: number): EngineError {
  return new EngineError(
    `soffice timed out after ${Math.round(timeoutMs / 1000)} s`,
    'timeout',
    SOFFICE.command,
    null,
    '',
  );
}

function abortError(): EngineError {
  return new EngineError('soffice was aborted', 'aborted', SOFFICE.command, null, '');
}

export class LibreOfficePool {
  /** The listeners; none with size 0 (every conversion is left to cold soffice). */
  private readonly listeners: Supervisor<Listener> | undefined;
  private readonly closing = new AbortController();
  private readonly settings: Required<Omit<LibreOfficePoolOptions, 'log' | 'tmpDir' | 'size' | 'confine'>>;
  private root: Promise<string> | undefined;
  private fallback: { reason: string; timer?: NodeJS.Timeout } | undefined;
  /** Listeners started so far: each pipe gets a name of its own. */
  private generation = 0;
  private readonly counters = { conversions: 0, retried: 0, coldFallbacks: 0 };

  constructor(private readonly options: LibreOfficePoolOptions) {
    this.settings = {
      maxConversions: options.maxConversions ?? 200,
      maxRssMb: options.maxRssMb ?? 1_000,
      pythonPath: options.pythonPath ?? UNO_PYTHON,
      startTimeoutMs: options.startTimeoutMs ?? 60_000,
      failuresBeforeFallback: options.failuresBeforeFallback ?? 3,
      retryAfterMs: options.retryAfterMs ?? 60_000,
      healthCheckMs: options.healthCheckMs ?? 30_000,
      pingTimeoutMs: options.pingTimeoutMs ?? 10_000,
      memoryPollMs: options.memoryPollMs ?? 250,
    };
    if (options.size < 1) return;
    this.listeners = new Supervisor<Listener>({
      name: 'office',
      size: options.size,
      log: options.log,
      start: (slot, signal) => this.startListener(slot, signal),
      maxUses: this.settings.maxConversions,
      maxRssMb: this.settings.maxRssMb,
      rssBytes: (listener) => listener.rssBytes(),
      // Each reading walks soffice's page tables (about as much CPU as the rest of the service's part of a warm
      // conversion): every 10 conversions or 30 s, not after each. A conversion's own growth meets its memory cap.
      measureEvery: { uses: 10, ms: 30_000 },
      // A listener that goes is replaced at once, and one that did not start is tried again after a backoff.
      replaceAtOnce: true,
      retryStarts: true,
      healthCheckMs: this.settings.healthCheckMs,
      pingTimeoutMs: this.settings.pingTimeoutMs,
      onStartFailure: (err, inARow) => {
        if (inARow >= this.settings.failuresBeforeFallback)
          this.fallBack(`LibreOffice listeners failed to start ${inARow} times in a row (${err.message})`);
        // The breaker's probe failed: stay cold until the next one.
        else if (this.fallback) this.fallBack(`a listener still does not start (${err.message})`);
      },
      onStarted: () => {
        if (this.fallback) this.recover();
      },
    });
  }

  /** Start every listener now (rather than on first demand); settles when each start has. */
  async warm(): Promise<void> {
    if (!this.listeners || this.closed) return;
    if (!(await commandExists(SOFFICE.command))) return this.fallBack('soffice is not installed');
    await this.listeners.warm();
  }

  /** The pool as an OfficeConverter: undefined means "convert cold yourself" (disabled or fallen back). */
  readonly convert: OfficeConverter = async (conversion, { signal, timeoutMs, memoryMb }) => {
    if (!this.listeners) return undefined;
    // The output is named with it: an extension, never a path.
    const { extension } = convertToParts(conversion.convertTo);
    if (!/^[a-z0-9]+$/i.test(extension)) throw new Error(`not an output extension: ${JSON.stringify(extension)}`);
    const deadline = Date.now() + timeoutMs;
    for (let attempt = 1; ; attempt++) {
      const lease = await withSpan('office.acquire', {}, () =>
        this.acquire(this.listeners!, deadline, timeoutMs, signal),
      );
      if (!lease) {
        this.counters.coldFallbacks++;
        return undefined;
      }
      try {
        return await this.convertOn(lease, conversion, { deadline, timeoutMs, signal, memoryMb });
      } catch (err) {
        if (!(err instanceof ListenerDied)) throw err;
        if (attempt > 1) {
          throw new EngineError(
            `soffice crashed twice: ${err.message}`,
            'exit',
            SOFFICE.command,
            null,
            'Error: LibreOffice crashed while converting this file',
          );
        }
        this.counters.retried++;
        this.options.log.warn('office pool: a listener died under a conversion; retrying once on a fresh listener', {
          error: err.message,
        });
      } finally {
        // Given back already, unless the conversion failed before it reached the listener.
        void lease.release();
      }
    }
  };

  status(): OfficePoolStatus {
    const supervised = this.listeners?.status();
    const instances = this.listeners?.instances() ?? [];
    return {
      mode: !this.listeners ? 'disabled' : this.fallback ? 'cold' : 'pool',
      size: supervised?.size ?? 0,
      listeners: (supervised?.instances ?? []).map((slot, at) => ({
        state: slot.state,
        ...(slot.pid ? { pid: slot.pid } : {}),
        conversions: instances[at]?.conversions ?? 0,
        rssMb: instances[at]?.rssMb ?? 0,
      })),
      conversions: this.counters.conversions,
      restarts: supervised?.restarts ?? 0,
      recycled: supervised?.recycled ?? 0,
      retried: this.counters.retried,
      coldFallbacks: this.counters.coldFallbacks,
      ...(this.fallback ? { fallbackReason: this.fallback.reason } : {}),
    };
  }

  /** Stop every listener and its bridge (with their process groups) and remove the profiles. */
  async close(): Promise<void> {
    this.closing.abort();
    clearTimeout(this.fallback?.timer);
    // Starts under way see the abort and kill what they started.
    await this.listeners?.close();
    if (this.root) await rm(await this.root, { recursive: true, force: true });
  }

  private get closed(): boolean {
    return this.closing.signal.aborted;
  }

  private rootDir(): Promise<string> {
    this.root ??= (async () => {
      const tmpDir = this.options.tmpDir ?? os.tmpdir();
      await removeOrphans(tmpDir);
      return mkdtemp(path.join(tmpDir, `${ROOT_PREFIX}${process.pid}-`));
    })();
    return this.root;
  }

  /** A listener for one conversion; undefined when it should run cold (fallen back, or none can start). */
  private async acquire(
    listeners: Supervisor<Listener>,
    deadline: number,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<Lease<Listener> | undefined> {
    if (this.closed || signal?.aborted) throw abortError();
    if (this.fallback) return undefined;
    const timeout = AbortSignal.timeout(Math.max(0, deadline - Date.now()));
    try {
      return await listeners.acquire(signal ? AbortSignal.any([signal, timeout]) : timeout);
    } catch {
      if (this.closed || signal?.aborted) throw abortError();
      if (timeout.aborted) throw timeoutError(timeoutMs);
      // No listener can be had (they fail to start, or the breaker opened meanwhile): convert cold.
      return undefined;
    }
  }

  private async convertOn(
    lease: Lease<Listener>,
    conversion: OfficeConversion,
    limits: { deadline: number; timeoutMs: number; signal?: AbortSignal; memoryMb?: number },
  ): Promise<LibreOfficeResult> {
    const listener = lease.instance;
    const { extension, filter, filterOptions } = convertToParts(conversion.convertTo);
    const inputFilter = conversion.inputFilter ? filterParts(conversion.inputFilter) : undefined;
    // The listener sees only its own folder: the input is copied in (its name kept: soffice
    // detects by extension), and the output moved out under soffice's name once written.
    const folder = path.join(listener.folders.work, randomUUID());
    try {
      const input = path.join(folder, path.basename(conversion.input));
      await withSpan('office.stage_in', {}, async () => {
        await mkdir(folder);
        await copyFile(conversion.input, input);
      });
      return await this.convertIn(lease, { ...conversion, input }, path.join(folder, `out.${extension}`), limits, {
        filter,
        filterOptions,
        inputFilter,
      });
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }

  private async convertIn(
    lease: Lease<Listener>,
    conversion: OfficeConversion,
    scratch: string,
    limits: { deadline: number; timeoutMs: number; signal?: AbortSignal; memoryMb?: number },
    {
      filter,
      filterOptions,
      inputFilter,
    }: { filter: string; filterOptions: string; inputFilter: { name: string; options: string } | undefined },
  ): Promise<LibreOfficeResult> {
    const listener = lease.instance;
    const baseline = limits.memoryMb ? await withSpan('office.baseline', {}, () => listener.baselineBytes()) : 0;
    let failure: Error | undefined;
    const stop = (error: Error) => {
      if (failure) return;
      failure = error;
      void listener.kill();
    };
    const timer = setTimeout(() => stop(timeoutError(limits.timeoutMs)), Math.max(0, limits.deadline - Date.now()));
    const onAbort = () => stop(abortError());
    limits.signal?.addEventListener('abort', onAbort, { once: true });
    if (limits.signal?.aborted) onAbort();
    let sampling = false;
    const memoryWatch = limits.memoryMb
      ? setInterval(() => {
          if (sampling) return;
          sampling = true;
          void listener.memoryOver(limits.memoryMb! * MB, baseline).then((pss) => {
            sampling = false;
            if (pss !== undefined) {
              this.options.log.warn('office pool: a conversion went over its memory cap: listener killed', {
                pssMb: Math.round(pss / MB),
                baselineMb: Math.round(baseline / MB),
                capMb: limits.memoryMb,
              });
              stop(new PluginError(`The job exceeded the memory limit of ${limits.memoryMb} MB`));
            }
          });
        }, this.settings.memoryPollMs)
      : undefined;
    let answer: BridgeAnswer;
    try {
      answer = await withSpan('office.listener', {}, () =>
        listener.request({
          op: 'convert',
          input: conversion.input,
          output: scratch,
          inputFilter: inputFilter?.name ?? '',
          inputFilterOptions: inputFilter?.options ?? '',
          exportFilter: filter,
          exportFilterOptions: filterOptions,
          ...(conversion.password ? { password: conversion.password } : {}),
          ...(conversion.edits ? { edits: conversion.edits } : {}),
        }),
      );
      // Stopped (deadline, abort, memory) as the answer came: the listener is being killed all the same.
      if (failure) throw failure;
      if (answer.stage === 'bridge') throw new ListenerDied(`the UNO bridge lost its listener: ${answer.error ?? ''}`);
    } catch (err) {
      // Replaced (unless the breaker or close() took the listener already).
      void lease.release({
        broken: failure ? `the conversion stopped: ${failure.message}` : `the listener died: ${(err as Error).message}`,
      });
      await rm(scratch, { force: true });
      throw failure ?? err;
    } finally {
      clearTimeout(timer);
      clearInterval(memoryWatch);
      limits.signal?.removeEventListener('abort', onAbort);
    }
    listener.conversions++;
    this.counters.conversions++;
    void lease.release();
    if (!answer.ok) {
      this.options.log.debug('office pool: LibreOffice could not convert the file', {
        stage: answer.stage,
        error: answer.error,
      });
      await rm(scratch, { force: true });
      const line =
        answer.stage === 'password' ? WRONG_PASSWORD_LINE : answer.stage === 'load' ? LOAD_FAILED : STORE_FAILED;
      return { output: undefined, lastStderrLine: line };
    }
    const output = expectedOutput(conversion);
    await withSpan('office.stage_out', {}, async () => {
      await mkdir(conversion.outDir, { recursive: true });
      await moveFile(scratch, output);
    });
    return { output, lastStderrLine: '' };
  }

  /** One listener for the supervisor, in the slot's folder; a failed start leaves no half-written profile. */
  private async startListener(slot: number, signal: AbortSignal): Promise<Listener> {
    const folders = listenerFolders(path.join(await this.rootDir(), `listener-${slot}`));
    try {
      const listener = await Listener.start({
        folders,
        jailed: this.options.confine ?? confinementEnabled(),
        pipeName: `transmute-office-${process.pid}-${slot}-${++this.generation}-${randomUUID().slice(0, 8)}`,
        python: this.settings.pythonPath,
        startTimeoutMs: this.settings.startTimeoutMs,
        signal,
      });
      if (!listener.alive) {
        await listener.kill();
        throw new ListenerDied('the listener died as it started');
      }
      await listener.rssBytes();
      return listener;
    } catch (err) {
      await rm(folders.dir, { recursive: true, force: true });
      throw err;
    }
  }

  /** The circuit breaker opens: conversions run cold soffice until a listener starts again. */
  private fallBack(reason: string): void {
    if (!this.fallback)
      this.options.log.error('office pool: falling back to cold soffice', {
        reason,
        retryInMs: this.settings.retryAfterMs,
      });
    clearTimeout(this.fallback?.timer);
    const timer = setTimeout(() => this.probe(), this.settings.retryAfterMs).unref();
    this.fallback = { reason, timer };
    this.listeners?.suspend(reason);
  }

  /** Half-open: one listener tries to start; if it does, the pool is back (recover). */
  private probe(): void {
    if (this.closed || !this.fallback) return;
    void commandExists(SOFFICE.command).then((installed) => {
      if (this.closed || !this.fallback) return;
      // Still missing: wait for the next probe, without a failed start in the log every minute.
      if (!installed) return this.fallBack('soffice is not installed');
      this.listeners?.probe();
    });
  }

  private recover(): void {
    this.options.log.info('office pool: a listener started again; leaving the cold fallback', {
      was: this.fallback?.reason,
    });
    clearTimeout(this.fallback?.timer);
    this.fallback = undefined;
    this.listeners?.resume();
  }
}
