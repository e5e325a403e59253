/**
 * Plugin runs never execute on the thread that serves HTTP: they run in a pool of supervised Node
 * processes (warm, so a run does not pay for loading sharp, pdfjs or exceljs). The pool owns each
 * run's hard limits, whatever the plugin does:
 * - a wall-clock deadline: the run is asked to stop (its AbortSignal), and killed with every
 *   engine it started if it has not settled a moment later (a synchronous loop ignores signals);
 * - a memory cap over the process tree (the sandbox process plus its engines), sampled from /proc;
 *   past it the tree is killed at once. The V8 heap is capped too, and sandbox processes carry the
 *   highest OOM score, so the kernel's OOM killer takes a run, never the server.
 * A process that crashed or was killed is replaced; one that has grown is recycled (supervisor.ts
 * holds the processes: start, replacement, recycling, kill with children).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PluginError, type Logger, type PluginInput, type RunResult } from '../../../contract/index.js';
import { siblingFile } from '../../../contract/modules.js';
import type { FormatId } from '../../../../schema/index.js';
import type { OfficeConverter } from '../../libreoffice.js';
import type { DestinationPolicy } from '../../outbound.js';
import { confinementEnabled } from '../../confine.js';
import { fontSetup, type FontSetup } from '../../fonts.js';
import { killTree, pssSince, treeMemory, treePssOver, type TreeMemory } from '../process-tree.js';
import { Supervisor, type SupervisedInstance } from '../supervisor.js';
import { recordSandboxKill, type SandboxKillReason } from '../../../telemetry/metrics.js';
import { traceCarrier, withSpan } from '../../../telemetry/tracing.js';
import {
  SANDBOX_ENV,
  deserializeError,
  fromChildSchema,
  serializeError,
  type FromChild,
  type OfficeResultMessage,
  type RunMessage,
  type SandboxSettings,
} from './protocol.js';

export interface SandboxPoolOptions {
  /** The module exporting a plugin (the standard families and PLUGINS= modules). */
  moduleOf(pluginId: string): string | undefined;
  /** Modules a process imports once started, before it is asked to (first runs do not wait). */
  preload?: readonly string[];
  enginePaths?: Record<string, string>;
  /** The fonts set-up engines read (fonts.ts); default: this process's. */
  fonts?: FontSetup | undefined;
  /** Where runs may connect for a client (URL rendering). Default: public addresses only. */
  outbound?: DestinationPolicy;
  /**
   * The service's warm LibreOffice pool: runs' conversions are sent here over IPC (office-convert),
   * under the run's deadline, abort and memory cap. Without it, runs start cold soffice themselves.
   */
  office?: OfficeConverter;
  /** Processes at most, so runs at once; a run waits for a free process. */
  size: number;
  /**
   * Engines the runs start are jailed (confine.ts); default: as this process's runProcess calls (configureConfinement).
   */
  confine?: boolean;
  /** V8 heap cap of a sandbox process (the largest memory cap of any plugin). */
  heapMb: number;
  log: Logger;
  /** A process is replaced after this many runs... */
  recycleAfterRuns?: number;
  /** ...or when it holds more than this much memory (proportional set size) between runs. */
  recycleRssMb?: number;
  /** How often a running tree's memory is sampled. */
  memoryPollMs?: number;
  /** After a deadline or an interruption, how long a run gets to stop before it is killed. */
  killGraceMs?: number;
  startTimeoutMs?: number;
}

export interface SandboxRun {
  pluginId: string;
  inputs: PluginInput[];
  options: Record<string, unknown>;
  target: FormatId;
  workDir: string;
  timeoutMs: number;
  memoryMb: number;
}

export interface SandboxHooks {
  /** Shutdown: the run is interrupted (and killed if it does not stop). */
  signal?: AbortSignal;
  progress(percent: number): void;
  report(detected: number): void;
  log: Logger;
}

export interface SandboxStatus {
  size: number;
  processes: number;
  busy: number;
  waiting: number;
  /** Processes killed at a deadline or the memory cap, or that crashed, since start. */
  killed: number;
  recycled: number;
}

const MB = 1_000_000;
const STDERR_TAIL = 8 * 1024;
/** Nice value of sandbox processes (0 is the server's; 19 the lowest priority). */
const RUN_PRIORITY = 10;
const CHILD_ENTRY = siblingFile('./child', import.meta.url);
// Sandbox processes run what the server runs: the TypeScript sources through tsx, or the compiled
// tree without it (a TypeScript PLUGINS= module then registers tsx itself: core/contract/modules.ts).
const CHILD_LOADER = CHILD_ENTRY.endsWith('.ts')
  ? ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href]
  : [];

/**
 * The server's environment, less MALLOC_ARENA_MAX: `npm start` limits the API process's glibc
 * malloc arenas (fewer, less fragmented: README, "Memory of the API process"), while engines keep
 * the default, an arena per thread, which their worker threads need to allocate without contention.
 */
function sandboxEnv(): NodeJS.ProcessEnv {
  const { MALLOC_ARENA_MAX: _apiProcessOnly, ...env } = process.env;
  return env;
}

type Outcome = { ok: true; result: RunResult } | { ok: false; error: Error };

type OfficeRequest = Extract<FromChild, { type: 'office-convert' }>;

/** `file` (resolved through symlinks) when it is `dir` or lies inside it; the child asking is not trusted. */
async function inside(dir: string, file: string): Promise<string> {
  const [root, real] = await Promise.all([realpath(dir), realpath(file)]);
  const relative = path.relative(root, real);
  if (relative.startsWith('..') || path.isAbsolute(relative))
    throw new Error("office-convert: the path is outside the run's work directory");
  return real;
}

function memoryError(memoryMb: number): PluginError {
  return new PluginError(`The job exceeded the memory limit of ${memoryMb} MB`);
}

class SandboxProcess implements SupervisedInstance {
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  readonly exited: Promise<void>;
  /** The memory cap of the last run: the process may keep that much warm (a model) and is not recycled for it. */
  lastCapMb = 0;
  private gone = false;
  /** The tree's memory as last read between runs (rssBytes). */
  private idleMemory: TreeMemory | undefined;
  /** Plugin modules this process has imported: a run goes where its module is loaded already. */
  readonly modules = new Set<string>();
  private stderrTail = '';
  private onMessage?: (message: FromChild) => void;
  private onExit?: (code: number | null, signal: NodeJS.Signals | null) => void;
  private static nextRunId = 0;

  constructor(
    settings: SandboxSettings,
    heapMb: number,
    startTimeoutMs: number,
    private readonly log: Logger,
    private readonly office?: OfficeConverter,
  ) {
    this.child = fork(CHILD_ENTRY, [], {
      execArgv: [...CHILD_LOADER, `--max-old-space-size=${heapMb}`],
      env: { ...sandboxEnv(), [SANDBOX_ENV]: JSON.stringify(settings) },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'advanced',
      // Its own process group: a terminal's Ctrl-C reaches the server, which then stops the pool.
      detached: true,
    });
    // Runs yield the CPU to the server: under load, HTTP answers first (engines inherit this).
    try {
      if (this.child.pid) os.setPriority(this.child.pid, RUN_PRIORITY);
    } catch {
      // not permitted here: runs share the CPU evenly
    }
    this.child.stdout!.resume();
    this.child
      .stderr!.setEncoding('utf8')
      .on('data', (chunk: string) => (this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL)));
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`sandbox process did not start within ${startTimeoutMs} ms`));
        void this.kill();
      }, startTimeoutMs);
      this.onMessage = (message) => {
        if (message.type !== 'ready') return;
        clearTimeout(timer);
        this.onMessage = undefined;
        resolve();
      };
      this.onExit = (code, signal) => {
        clearTimeout(timer);
        reject(
          new Error(
            `sandbox process exited on start (${signal ?? `code ${code}`}): ` +
              `${this.stderrTail.trim().split('\n').slice(-3).join(' | ')}`,
          ),
        );
      };
    });
    this.ready.catch(() => undefined);
    this.exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.on('message', (raw) => {
      const parsed = fromChildSchema.safeParse(raw);
      if (!parsed.success) {
        this.log.warn('sandbox sent an invalid message', { pid: this.child.pid });
        return;
      }
      this.onMessage?.(parsed.data);
    });
    this.child.on('error', (err) =>
      this.log.warn('sandbox process error', { pid: this.child.pid, error: err.message }),
    );
    this.child.on('exit', (code, signal) => {
      this.gone = true;
      this.onExit?.(code, signal);
    });
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /**
   * Run one plugin; settles with its result or the error to report. The memory cap applies to
   * what the run adds over `baselineBytes` (the idle process, which may hold a model a previous
   * run of the same family loaded), so one run is never charged for another's warm state.
   */
  execute(
    run: SandboxRun,
    module: string,
    hooks: SandboxHooks,
    baselineBytes: Promise<number>,
    options: Required<Pick<SandboxPoolOptions, 'memoryPollMs' | 'killGraceMs'>>,
  ): Promise<Outcome> {
    const runId = ++SandboxProcess.nextRunId;
    this.lastCapMb = run.memoryMb;
    this.modules.add(module);
    const deadline = Date.now() + run.timeoutMs;
    // Stops the run's LibreOffice conversions in the server's pool: at a limit, an interruption, or the run's end.
    const officeStop = new AbortController();
    let officeQueue = Promise.resolve();
    return new Promise<Outcome>((resolve) => {
      let failure: Error | undefined;
      let settled = false;
      let killTimer: NodeJS.Timeout | undefined;
      const finish = (outcome: Outcome) => {
        if (settled) return;
        settled = true;
        officeStop.abort();
        clearTimeout(deadlineTimer);
        clearTimeout(killTimer);
        clearInterval(memoryWatch);
        hooks.signal?.removeEventListener('abort', onShutdown);
        this.onMessage = undefined;
        this.onExit = undefined;
        // A limit that was hit wins over whatever the run said meanwhile.
        resolve(failure ? { ok: false, error: failure } : outcome);
      };
      /** Ask the run to stop, then kill it if it has not (cooperative), or kill it now. */
      const stop = (error: Error, cooperative: boolean, reason?: SandboxKillReason) => {
        if (failure || settled) return;
        failure = error;
        officeStop.abort();
        const kill = () => {
          if (reason) recordSandboxKill(reason);
          void this.kill();
        };
        if (!cooperative) return kill();
        if (this.child.connected) this.child.send({ type: 'abort', runId, message: error.message });
        killTimer = setTimeout(kill, options.killGraceMs);
      };
      const deadlineTimer = setTimeout(
        () => stop(new PluginError(`Timed out after ${Math.round(run.timeoutMs / 1000)} s`), true, 'deadline'),
        run.timeoutMs,
      );
      let sampling = false;
      const memoryWatch = setInterval(() => {
        if (sampling) return;
        sampling = true;
        void baselineBytes
          .then(async (baseline) => {
            const pss = await treePssOver(this.pid, run.memoryMb * MB, baseline);
            if (pss !== undefined) {
              hooks.log.warn('run over its memory cap: killed', {
                pssMb: Math.round(pss / MB),
                baselineMb: Math.round(baseline / MB),
                capMb: run.memoryMb,
              });
              stop(memoryError(run.memoryMb), false, 'memory');
            }
          })
          .finally(() => (sampling = false));
      }, options.memoryPollMs);
      const onShutdown = () => stop(new PluginError('The job was interrupted'), true);
      hooks.signal?.addEventListener('abort', onShutdown, { once: true });

      this.onMessage = (message) => {
        if (!('runId' in message) || message.runId !== runId) return;
        switch (message.type) {
          case 'progress':
            return hooks.progress(message.percent);
          case 'report':
            return hooks.report(message.detected);
          case 'log':
            return hooks.log[message.level](message.msg, message.data);
          case 'result':
            return finish({ ok: true, result: message.result as RunResult });
          case 'error':
            return finish({ ok: false, error: deserializeError(message.error) });
          case 'office-convert':
            // One conversion at a time per run: a run cannot take every listener.
            officeQueue = officeQueue
              .then(() => this.convertOffice(message, run, deadline, officeStop.signal))
              .catch((err: Error) => hooks.log.warn('office-convert could not be answered', { error: err.message }));
            return;
        }
      };
      // Killed here at a limit: `failure` says why. Otherwise the process died under the run.
      this.onExit = (code, signal) => {
        if (!failure) recordSandboxKill('crash');
        finish({ ok: false, error: failure ?? this.crashError(code, signal, run.memoryMb) });
      };

      if (this.gone || !this.child.connected)
        return finish({ ok: false, error: this.crashError(this.child.exitCode, this.child.signalCode, run.memoryMb) });
      const message: RunMessage = {
        type: 'run',
        runId,
        pluginId: run.pluginId,
        module,
        inputs: run.inputs,
        options: run.options,
        target: run.target,
        workDir: run.workDir,
        deadline,
        trace: traceCarrier(),
      };
      this.child.send(message);
    });
  }

  /** A run's LibreOffice conversion in the service's pool, answered to the run with office-result. */
  private async convertOffice(
    request: OfficeRequest,
    run: SandboxRun,
    deadline: number,
    signal: AbortSignal,
  ): Promise<void> {
    let outcome: OfficeResultMessage['outcome'];
    try {
      const result =
        this.office && !signal.aborted
          ? await this.office(
              {
                input: await inside(run.workDir, request.input),
                convertTo: request.convertTo,
                outDir: await inside(run.workDir, request.outDir),
                ...(request.inputFilter ? { inputFilter: request.inputFilter } : {}),
                ...(request.password ? { password: request.password } : {}),
                ...(request.edits ? { edits: request.edits } : {}),
              },
              {
                signal,
                timeoutMs: Math.max(0, Math.min(request.timeoutMs, deadline - Date.now())),
                memoryMb: run.memoryMb,
              },
            )
          : undefined;
      outcome = result
        ? { kind: 'done', lastStderrLine: result.lastStderrLine, ...(result.output ? { output: result.output } : {}) }
        : { kind: 'cold' };
    } catch (err) {
      outcome = { kind: 'error', error: serializeError(err) };
    }
    if (this.child.connected)
      this.child.send({ type: 'office-result', requestId: request.requestId, outcome } satisfies OfficeResultMessage);
  }

  /** Why the process died under a run, in words a client may see (the stderr tail is logged). */
  private crashError(code: number | null, signal: NodeJS.Signals | null, memoryMb: number): Error {
    this.log.warn('sandbox process died during a run', {
      pid: this.pid,
      code,
      signal,
      stderr: this.stderrTail.slice(-2000),
    });
    if (/heap out of memory|Reached heap limit/i.test(this.stderrTail)) return memoryError(memoryMb);
    // Nobody here sent SIGKILL (the pool records its own kills as the run's failure): the kernel did, out of memory.
    if (signal === 'SIGKILL') return memoryError(memoryMb);
    return new PluginError(`The converter crashed while processing the file (${signal ?? `exit code ${code}`})`);
  }

  /** Died (crash, kill): it must not serve another run. */
  get dead(): boolean {
    return this.gone;
  }

  async kill(): Promise<void> {
    // No pid (fork failed): nothing to kill, and killTree(-1) would signal every process of this user.
    if (this.gone || !this.child.pid) return;
    await killTree(this.pid);
  }

  /** Proportional memory of the process and its engines (shared pages split among their sharers). */
  async rssBytes(): Promise<number> {
    this.idleMemory = await treeMemory(this.pid);
    return this.idleMemory.pssBytes;
  }

  /**
   * What a run starting now is not charged for: the idle tree's memory, estimated from its last reading between runs
   * (the supervisor's, every few runs) by a stat per process, without walking page tables again (pssSince); read in
   * full when there is no reading yet.
   */
  baselineBytes(): Promise<number> {
    return this.idleMemory ? pssSince(this.pid, this.idleMemory) : this.rssBytes();
  }

  /** Start one process and wait until it is ready; killed if `signal` aborts first. */
  static async start(
    signal: AbortSignal,
    ...args: ConstructorParameters<typeof SandboxProcess>
  ): Promise<SandboxProcess> {
    const sandbox = new SandboxProcess(...args);
    const onAbort = () => void sandbox.kill();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await sandbox.ready;
      return sandbox;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }
}

export class SandboxPool {
  private readonly processes: Supervisor<SandboxProcess>;
  private readonly settings: SandboxSettings;
  private readonly limits: Required<Pick<SandboxPoolOptions, 'memoryPollMs' | 'killGraceMs'>>;

  constructor(private readonly options: SandboxPoolOptions) {
    this.settings = {
      preload: [...(options.preload ?? [])],
      enginePaths: options.enginePaths ?? {},
      officePool: options.office !== undefined,
      outbound: options.outbound ?? { allowPrivate: false },
      confine: options.confine ?? confinementEnabled(),
    };
    const fonts = options.fonts ?? fontSetup();
    if (fonts) this.settings.fonts = fonts;
    this.limits = { memoryPollMs: options.memoryPollMs ?? 200, killGraceMs: options.killGraceMs ?? 1_000 };
    const recycleRssMb = options.recycleRssMb ?? 600;
    this.processes = new Supervisor<SandboxProcess>({
      name: 'sandbox',
      size: options.size,
      log: options.log,
      start: (_slot, signal) =>
        SandboxProcess.start(
          signal,
          this.settings,
          options.heapMb,
          options.startTimeoutMs ?? 60_000,
          options.log,
          options.office,
        ),
      maxUses: options.recycleAfterRuns ?? 200,
      // Larger than the recycle threshold, or than the cap of the run it just did (a model that run may keep warm).
      maxRssMb: (sandbox) => Math.max(recycleRssMb, sandbox.lastCapMb),
      // A process with a browser is a tree of a dozen processes: read every 10 runs or 30 s, not after each.
      measureEvery: { uses: 10, ms: 30_000 },
    });
  }

  /** Start processes ahead of the first runs (errors are logged; a run would start one again). */
  warm(count = this.options.size): void {
    void this.processes.warm(count);
  }

  /** Run a plugin in a sandbox process under the run's deadline and memory cap. */
  async run(run: SandboxRun, hooks: SandboxHooks): Promise<RunResult> {
    const module = this.options.moduleOf(run.pluginId);
    if (!module) throw new Error(`no module is known for plugin '${run.pluginId}': load it with PLUGINS=`);
    // A run goes where its module is loaded already.
    const lease = await withSpan('sandbox.acquire', {}, () =>
      this.processes.acquire(undefined, (sandbox) => sandbox.modules.has(module)),
    );
    const sandbox = lease.instance;
    let outcome: Outcome;
    try {
      // The baseline is read as the run starts: the run does not wait for it.
      outcome = await sandbox.execute(run, module, hooks, sandbox.baselineBytes(), this.limits);
    } finally {
      // Killed at a limit, or crashed: replaced (and counted as killed).
      const dead = sandbox.dead;
      const released = withSpan('sandbox.release', {}, () =>
        lease.release(dead ? { broken: 'killed or crashed under a run' } : {}),
      );
      // A live process is measured for recycling (its whole tree, a browser's too) while the
      // result is stored; the next run waits for the lease, this run's answer does not.
      if (dead) await released;
      else released.catch((err: Error) => this.options.log.warn('sandbox release failed', { error: err.message }));
    }
    if (!outcome.ok) throw outcome.error;
    return outcome.result;
  }

  status(): SandboxStatus {
    const status = this.processes.status();
    const processes = status.instances.filter((i) => i.state !== 'stopped' && i.state !== 'down').length;
    return {
      size: this.options.size,
      processes,
      busy: processes - status.instances.filter((i) => i.state === 'idle').length,
      waiting: status.waiting,
      killed: status.restarts,
      recycled: status.recycled,
    };
  }

  async close(): Promise<void> {
    await this.processes.close();
  }
}
