/**
 * A sandbox process: runs one plugin at a time for the server over IPC, importing each plugin's
 * module the first time it is asked for. The server owns the deadline and the memory cap and kills this process (and
 * the engines it started) past them; here a run only has to honour its AbortSignal when it can.
 */
import { writeFileSync } from 'node:fs';
import { PluginError, type Plugin, type RunContext, type RunResult } from '../../../contract/index.js';
import { exportedPlugins } from '../../../contract/modules.js';
import { registerDeclaredFormats } from '../../../contract/validate.js';
import { useOfficeConverter, type OfficeConverter } from '../../libreoffice.js';
import { EngineError } from '../../process.js';
import { configureOutboundPolicy } from '../../outbound.js';
import { configureEnginePaths } from '../../paths.js';
import { configureConfinement, withEngineScope } from '../../confine.js';
import { useFontSetup } from '../../fonts.js';
import { killTree } from '../process-tree.js';
import { flushTraces, startTracing, withRemoteParent } from '../../../telemetry/tracing.js';
import {
  SANDBOX_ENV,
  deserializeError,
  sandboxSettingsSchema,
  serializeError,
  type FromChild,
  type OfficeResultMessage,
  type ToChild,
} from './protocol.js';

function send(message: FromChild): void {
  // The server went away mid-run: nothing to tell; 'disconnect' below ends this process.
  if (process.connected) process.send!(message);
}

// Under memory pressure the kernel's OOM killer must pick a run, never the server: this score is
// inherited by every engine this process starts.
try {
  writeFileSync('/proc/self/oom_score_adj', '1000');
} catch {
  // not Linux, or /proc is read-only: the server's watchdog still applies the cap
}

// Engine calls are traced from here when the server traces (the variable is inherited).
await startTracing('transmute-sandbox');

const settings = sandboxSettingsSchema.parse(JSON.parse(process.env[SANDBOX_ENV] ?? '{}'));
// The same binaries as the server (<COMMAND>_PATH overrides).
configureEnginePaths(settings.enginePaths);
configureOutboundPolicy(settings.outbound);
configureConfinement(settings.confine);
if (settings.fonts) useFontSetup(settings.fonts);
const modules = new Map<string, Promise<Plugin[]>>();
function load(module: string): Promise<Plugin[]> {
  if (!modules.has(module)) {
    modules.set(
      module,
      exportedPlugins(module).then((plugins) => {
        // Formats a plugin declares exist here as in the server (the registry checked them there).
        registerDeclaredFormats(plugins);
        return plugins;
      }),
    );
  }
  return modules.get(module)!;
}
let current: { runId: number; controller: AbortController } | undefined;

/** LibreOffice conversions waiting for the server's warm pool, by request id. */
const officeRequests = new Map<number, (outcome: OfficeResultMessage['outcome']) => void>();
let lastOfficeRequest = 0;
/** Ask the server's pool; a 'cold' answer (no warm listener) makes libreOfficeConvert start its own soffice. */
const viaServerPool: OfficeConverter = (conversion, { signal, timeoutMs }) => {
  const run = current;
  if (!run) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const requestId = ++lastOfficeRequest;
    // The server hears of an abort first (it sent it) and stops the conversion; here the run just stops waiting.
    const onAbort = () => {
      officeRequests.delete(requestId);
      reject(new EngineError('soffice was aborted', 'aborted', 'soffice', null, ''));
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    officeRequests.set(requestId, (outcome) => {
      officeRequests.delete(requestId);
      signal?.removeEventListener('abort', onAbort);
      if (outcome.kind === 'cold') resolve(undefined);
      else if (outcome.kind === 'error') reject(deserializeError(outcome.error));
      else resolve({ output: outcome.output, lastStderrLine: outcome.lastStderrLine });
    });
    send({ type: 'office-convert', runId: run.runId, requestId, ...conversion, timeoutMs });
  });
};
if (settings.officePool) useOfficeConverter(viaServerPool);
/** Idle time before the process imports the next plugin family it may be asked for. */
const PRELOAD_IDLE_MS = 1_000;

async function run(message: Extract<ToChild, { type: 'run' }>): Promise<void> {
  const { runId } = message;
  const controller = new AbortController();
  current = { runId, controller };
  clearTimeout(preloadTimer);
  try {
    const plugin = (await load(message.module)).find((p) => p.id === message.pluginId);
    if (!plugin) throw new Error(`plugin '${message.pluginId}' is not exported by ${message.module}`);
    const log = (level: 'debug' | 'info' | 'warn' | 'error') => (msg: string, data?: Record<string, unknown>) =>
      send({ type: 'log', runId, level, msg, ...(data ? { data } : {}) });
    const ctx: RunContext = {
      target: message.target,
      workDir: message.workDir,
      signal: controller.signal,
      progress: (percent) => send({ type: 'progress', runId, percent }),
      report: (r) => send({ type: 'report', runId, detected: r.detected }),
      log: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
      remainingMs: () => Math.max(0, message.deadline - Date.now()),
    };
    // Engines this run starts see its work folder and its inputs (blobs may live elsewhere), nothing else.
    const scope = { writable: [message.workDir], readable: message.inputs.map((input) => input.path) };
    const result: RunResult = await withEngineScope(scope, () =>
      withRemoteParent(message.trace, () => plugin.run(message.inputs, message.options as never, ctx)),
    );
    send({ type: 'result', runId, result });
  } catch (err) {
    send({ type: 'error', runId, error: serializeError(err) });
  } finally {
    current = undefined;
    preloadWhenIdle();
    // This process may be killed or recycled at any time: its spans leave after each run.
    void flushTraces();
  }
}

process.on('message', (message: ToChild) => {
  if (message.type === 'run') void run(message);
  else if (message.type === 'abort' && current?.runId === message.runId)
    current.controller.abort(new PluginError(message.message));
  else if (message.type === 'office-result') officeRequests.get(message.requestId)?.(message.outcome);
});

/** Ends this process once, with the engines it started: later calls (errors while it ends) change nothing. */
let ending = false;
function end(code: number): void {
  if (ending) return;
  ending = true;
  void killTree(process.pid, { keepRoot: true }).finally(() => process.exit(code));
}
// Our output goes to pipes the server reads: once it is gone, a write fails (EPIPE) and, unheard, that failure is an
// uncaught error, whose report is another write: a loop that never let the process end (an orphan at full CPU).
process.stdout.on('error', () => undefined);
process.stderr.on('error', () => undefined);
// A stray error from a plugin's callbacks leaves this process in an unknown state: exit (the
// server fails the run in progress, logs this stderr and starts a fresh process).
const die = (err: unknown) => {
  if (ending) return;
  process.stderr.write(`sandbox: uncaught ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  end(70);
};
process.on('uncaughtException', die);
process.on('unhandledRejection', die);
// The server is gone (even killed with SIGKILL): take the engines this process started with it. Gone before this
// line ran (the server died while this process started), 'disconnect' was emitted already: end now.
process.on('disconnect', () => end(0));
if (!process.connected) end(0);

// Warm up while idle, one module at a time, so a run never waits behind a module it does not need.
const toPreload = [...settings.preload];
let preloadTimer: NodeJS.Timeout | undefined;
function preloadWhenIdle(delayMs = PRELOAD_IDLE_MS): void {
  clearTimeout(preloadTimer);
  if (!toPreload.length) return;
  preloadTimer = setTimeout(() => {
    if (current) return;
    void load(toPreload.shift()!)
      .catch(() => undefined)
      .finally(() => preloadWhenIdle(0));
  }, delayMs);
}

send({ type: 'ready' });
preloadWhenIdle();
