/**
 * Messages between the server and a sandbox process, over Node's IPC channel. What the child
 * sends is parsed with zod: a plugin runs untrusted input, so its process is not trusted either.
 */
import { z } from 'zod';
import type { PluginInput } from '../../contract/index.js';
import type { FormatId } from '../../../schema/index.js';

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
}

export interface AbortMessage {
  type: 'abort';
  runId: number;
  message: string;
}

export type ToChild = RunMessage | AbortMessage;

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

const runId = z.number().int();
export const fromChildSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('progress'), runId, percent: z.number() }),
  z.object({ type: z.literal('report'), runId, detected: z.number().int() }),
  z.object({ type: z.literal('log'), runId, level: z.enum(['debug', 'info', 'warn', 'error']), msg: z.string(), data: z.record(z.string(), z.unknown()).optional() }),
  z.object({
    type: z.literal('result'), runId,
    result: z.union([z.object({ path: z.string(), format: z.string() }), z.object({ row: z.record(z.string(), z.unknown()) })]),
  }),
  z.object({ type: z.literal('error'), runId, error: serializedErrorSchema }),
]);
export type FromChild = z.infer<typeof fromChildSchema>;

/** Environment variable carrying the child's start-up settings (JSON). */
export const SANDBOX_ENV = 'TRANSMUTE_SANDBOX';
export const sandboxSettingsSchema = z.object({
  /** Plugin modules to import once started, between runs, so first runs do not wait for them. */
  preload: z.array(z.string()).default([]),
  /** Engine path overrides, as configured in the server. */
  enginePaths: z.record(z.string(), z.string()).default({}),
});
export type SandboxSettings = z.infer<typeof sandboxSettingsSchema>;
