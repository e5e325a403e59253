/**
 * The one place that spawns external programs. Every run has a timeout and an AbortSignal,
 * runs in its own process group and is killed with its children, and keeps a bounded tail of
 * stderr for error messages. When confinement is on, it runs in a jail (confine.ts).
 */
import { spawn } from 'node:child_process';
import { access, constants, stat } from 'node:fs/promises';
import path from 'node:path';
import { BWRAP, engineSpawn, jailedCommandMissing } from './confine.js';
import { resolveCommand } from './paths.js';
import { killGroup } from './execution/process-tree.js';
import { failSpan, startSpan } from '../telemetry/tracing.js';

export interface RunOptions {
  signal?: AbortSignal;
  timeoutMs: number;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Called with each complete stderr line (ffmpeg progress, tesseract warnings...). */
  onStderrLine?: (line: string) => void;
  onStdoutLine?: (line: string) => void;
  /** Keep stdout in memory and return it (default true; off for programs that stream big output). */
  captureStdout?: boolean;
  /** Bytes written to stdin, then closed. */
  stdin?: string | Buffer;
  /** Files or folders the program reads besides the run's (its own configuration): seen read-only in its jail. */
  readable?: readonly string[];
}

export interface RunOutput {
  stdout: string;
  stderr: string;
}

export type EngineFailureReason = 'exit' | 'timeout' | 'aborted' | 'missing';

export class EngineError extends Error {
  override readonly name = 'EngineError';
  constructor(
    message: string,
    readonly reason: EngineFailureReason,
    readonly command: string,
    readonly exitCode: number | null,
    readonly stderrTail: string,
  ) {
    super(message);
  }
}

const STDERR_TAIL_BYTES = 8 * 1024;

const STDOUT_LIMIT_BYTES = 64 * 1024 * 1024;

function lineSplitter(onLine: (line: string) => void) {
  let pending = '';
  return {
    push(chunk: string) {
      pending += chunk;
      const parts = pending.split(/\r\n|\n|\r/);
      pending = parts.pop() ?? '';
      for (const line of parts) onLine(line);
    },
    flush() {
      if (pending) onLine(pending);
      pending = '';
    },
  };
}

/**
 * Run `command args` to completion; throws EngineError on non-zero exit, timeout or abort.
 * `command` is the engine's name (pdftotext, gs...): its configured path override is executed,
 * while messages keep the name (a server path means nothing to a client).
 */
export function runProcess(command: string, args: readonly string[], options: RunOptions): Promise<RunOutput> {
  // The program's name only: arguments hold file paths.
  const span = startSpan(`engine ${command}`, {
    'process.executable.name': command,
    'transmute.timeout_ms': options.timeoutMs,
  });
  return spawnAndWait(command, args, options).then(
    (output) => {
      span.setAttribute('process.exit.code', 0);
      span.end();
      return output;
    },
    (err: unknown) => {
      if (err instanceof EngineError) {
        span.setAttribute('transmute.engine.failure', err.reason);
        if (err.exitCode !== null) span.setAttribute('process.exit.code', err.exitCode);
      }
      failSpan(span, err);
      span.end();
      throw err;
    },
  );
}

function spawnAndWait(command: string, args: readonly string[], options: RunOptions): Promise<RunOutput> {
  const { signal, timeoutMs } = options;
  return new Promise<RunOutput>((resolve, reject) => {
    if (signal?.aborted) {
      reject(new EngineError(`${command} was not started: aborted`, 'aborted', command, null, ''));
      return;
    }
    // Ghostscript without -dSAFER lets a PostScript or PDF input read and write any file it can reach.
    if (command === 'gs' && !args.includes('-dSAFER')) {
      reject(new EngineError('gs was not started: it runs with -dSAFER only', 'exit', command, null, ''));
      return;
    }
    // In a jail (confine.ts) when confinement is on: no network, only the run's folders.
    const spawned = engineSpawn(resolveCommand(command), args, options);
    const child = spawn(spawned.file, spawned.args, {
      cwd: options.cwd,
      env: spawned.env,
      // Own process group, so the whole tree can be killed (soffice, gs and ocrmypdf fork).
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stdoutBytes = 0;
    let stderrTail = '';
    let settled = false;
    let failure: { reason: EngineFailureReason; message: string } | undefined;
    const captureStdout = options.captureStdout ?? true;

    const errLines = options.onStderrLine ? lineSplitter(options.onStderrLine) : undefined;
    const outLines = options.onStdoutLine ? lineSplitter(options.onStdoutLine) : undefined;
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      outLines?.push(chunk);
      if (captureStdout && stdoutBytes < STDOUT_LIMIT_BYTES) {
        stdout += chunk;
        stdoutBytes += chunk.length;
      }
    });
    child.stderr.on('data', (chunk: string) => {
      errLines?.push(chunk);
      stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_BYTES);
    });

    const stop = (reason: EngineFailureReason, message: string) => {
      if (failure) return;
      failure = { reason, message };
      killGroup(child.pid);
    };
    const timer = setTimeout(
      () => stop('timeout', `${command} timed out after ${Math.round(timeoutMs / 1000)} s`),
      timeoutMs,
    );
    const onAbort = () => stop('aborted', `${command} was aborted`);
    signal?.addEventListener('abort', onAbort, { once: true });

    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      // Children the program left behind die with the group.
      killGroup(child.pid);
      fn();
    };

    child.on('error', (err: NodeJS.ErrnoException) => {
      finish(() =>
        reject(
          err.code === 'ENOENT'
            ? new EngineError(`${command} is not installed`, 'missing', command, null, '')
            : new EngineError(`${command} could not start: ${err.message}`, 'exit', command, null, ''),
        ),
      );
    });
    child.on('close', (code) => {
      errLines?.flush();
      outLines?.flush();
      finish(() => {
        if (failure) reject(new EngineError(failure.message, failure.reason, command, code, stderrTail));
        else if (code !== 0 && spawned.file === BWRAP && jailedCommandMissing(stderrTail)) {
          reject(new EngineError(`${command} is not installed`, 'missing', command, null, ''));
        } else if (code !== 0) {
          const lastLine = stderrTail.trim().split('\n').pop() ?? '';
          reject(
            new EngineError(
              `${command} exited with code ${code}${lastLine ? `: ${lastLine}` : ''}`,
              'exit',
              command,
              code,
              stderrTail,
            ),
          );
        } else resolve({ stdout, stderr: stderrTail });
      });
    });

    child.stdin.on('error', () => {
      // the program closed stdin early; its exit status tells the story
    });
    if (options.stdin !== undefined) child.stdin.end(options.stdin);
    else child.stdin.end();
  });
}

/** Whether `command` (through its path override, if any) is an executable on PATH or at the path given. */
export async function commandExists(command: string): Promise<boolean> {
  const executable = resolveCommand(command);
  const candidates = executable.includes('/')
    ? [executable]
    : (process.env.PATH ?? '')
        .split(path.delimiter)
        .filter(Boolean)
        .map((dir) => path.join(dir, executable));
  for (const candidate of candidates) {
    try {
      await access(candidate, constants.X_OK);
      // A directory is "executable" too.
      if ((await stat(candidate)).isFile()) return true;
    } catch {
      // try the next directory
    }
  }
  return false;
}
