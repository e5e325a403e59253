/**
 * Messages between the server and a sandbox process, over Node's IPC channel. What the child
 * sends is parsed with zod: a plugin runs untrusted input, so its process is not trusted either.
 */
import { z } from 'zod';
import { PluginError, type PluginInput } from '../../../contract/index.js';
import type { FormatId } from '../../../../schema/index.js';
import { officeEditsSchema } from '../../libreoffice.js';
import { EngineError } from '../../process.js';

export interface RunMessage {
  type: 'run';
  runId: number;
  pluginId: string;
  /** The module exporting the plugin, imported on first use. */
  module: string;
  inputs: PluginInput[];
  options: Record<string, unknown>;
  target: FormatId;
  workDir: string;
  /** Epoch ms: the run's deadline, for ctx.remainingMs() (the server enforces it). */
  deadline: number;
  /** W3C trace context of the server's sandbox.run span (when tracing is on): engine spans join the job's trace. */
  trace?: Record<string, string>;
}

export interface AbortMessage {
  type: 'abort';
  runId: number;
  message: string;
}

/** The server's answer to an office-convert request. */
export interface OfficeResultMessage {
  type: 'office-result';
  requestId: number;
  outcome:
    | { kind: 'done'; output?: string; lastStderrLine: string }
    /** No warm listener for it (pool disabled or fallen back): the run converts with a cold soffice itself. */
    | { kind: 'cold' }
    | { kind: 'error'; error: SerializedError };
}

export type ToChild = RunMessage | AbortMessage | OfficeResultMessage;

/** An error as it crosses the process boundary; EngineError fields are kept so messages stay precise. */
export const serializedErrorSchema = z.object({
  name: z.string(),
  message: z.string(),
  stack: z.string().optional(),
  reason: z.enum(['exit', 'timeout', 'aborted', 'missing']).optional(),
  command: z.string().optional(),
  exitCode: z.number().nullable().optional(),
  stderrTail: z.string().optional(),
});
export type SerializedError = z.infer<typeof serializedErrorSchema>;

export function serializeError(err: unknown): SerializedError {
  if (err instanceof EngineError) {
    return {
      name: err.name,
      message: err.message,
      stack: err.stack,
      reason: err.reason,
      command: err.command,
      exitCode: err.exitCode,
      stderrTail: err.stderrTail,
    };
  }
  if (err instanceof Error) return { name: err.name, message: err.message, stack: err.stack };
  return { name: 'Error', message: String(err) };
}

export function deserializeError(error: SerializedError): Error {
  if (error.name === 'PluginError') return new PluginError(error.message);
  if (error.name === 'EngineError' && error.reason && error.command) {
    return new EngineError(error.message, error.reason, error.command, error.exitCode ?? null, error.stderrTail ?? '');
  }
  const err = new Error(error.message);
  err.name = error.name;
  if (error.stack) err.stack = error.stack;
  return err;
}

const runId = z.number().int();
export const fromChildSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('progress'), runId, percent: z.number() }),
  z.object({ type: z.literal('report'), runId, detected: z.number().int() }),
  z.object({
    type: z.literal('log'),
    runId,
    level: z.enum(['debug', 'info', 'warn', 'error']),
    msg: z.string(),
    data: z.record(z.string(), z.unknown()).optional(),
  }),
  z.object({
    type: z.literal('result'),
    runId,
    result: z.union([
      z.object({ path: z.string(), format: z.string(), result: z.record(z.string(), z.unknown()).optional() }),
      z.object({ row: z.record(z.string(), z.unknown()) }),
    ]),
  }),
  z.object({ type: z.literal('error'), runId, error: serializedErrorSchema }),
  /** A LibreOffice conversion for the server's warm pool; the server checks the paths lie in the run's work dir. */
  z.object({
    type: z.literal('office-convert'),
    runId,
    requestId: z.number().int(),
    input: z.string(),
    convertTo: z.string().regex(/^[a-z0-9]+(?::|$)/i, 'starts with an output extension'),
    inputFilter: z.string().optional(),
    outDir: z.string(),
    password: z.string().optional(),
    edits: officeEditsSchema.optional(),
    timeoutMs: z.number().min(0),
  }),
]);
export type FromChild = z.infer<typeof fromChildSchema>;

/** Environment variable carrying the child's start-up settings (JSON). */
export const SANDBOX_ENV = 'TRANSMUTE_SANDBOX';
export const sandboxSettingsSchema = z.object({
  /** Plugin modules to import once started, between runs, so first runs do not wait for them. */
  preload: z.array(z.string()).default([]),
  /** Engine path overrides, as configured in the server. */
  enginePaths: z.record(z.string(), z.string()).default({}),
  /** LibreOffice conversions go to the server's warm pool (office-convert) instead of a cold soffice here. */
  officePool: z.boolean().default(false),
  /** Where runs may connect for a client (URL rendering): IMPORT_ALLOW_PRIVATE. */
  outbound: z.object({ allowPrivate: z.boolean() }).default({ allowPrivate: false }),
  /** Engines run confined (confine.ts), as in the server. */
  confine: z.boolean().default(false),
  /** The server's fontconfig file and the operator's fonts folder (fonts.ts); unset: the system's configuration. */
  fonts: z.object({ file: z.string(), fontsDir: z.string().optional() }).optional(),
});
export type SandboxSettings = z.infer<typeof sandboxSettingsSchema>;
