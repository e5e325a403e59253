/**
 * Helpers every plugin family needs around its run: the one input of a single-file run, and a
 * wall-clock limit that scales with the input's size (so a small file gets a verdict in seconds
 * and a large one the time it needs).
 */
import { MB } from '../../schema/index.js';
import type { PluginInput } from './types.js';

/**
 * The one input of a single-file run. The registry enforces the count (limits.inputs), so
 * anything else is a bug in the caller, not a client error.
 */
export function singleInput(inputs: readonly PluginInput[]): PluginInput {
  const [input] = inputs;
  if (!input || inputs.length !== 1) throw new Error(`expected exactly one input, got ${inputs.length}`);
  return input;
}

/** Size of all inputs together, in bytes. */
export function totalBytes(inputs: readonly PluginInput[]): number {
  return inputs.reduce((sum, input) => sum + input.bytes, 0);
}

export interface ScaledTimeout {
  /** What any input gets, however small: the engine's start-up and a normal small file. */
  baseMs: number;
  /** Added per MB (10^6 bytes) of all inputs together. */
  perMbMs: number;
  /** Ceiling, whatever the size. Default 6 hours. */
  maxMs?: number;
}

const DEFAULT_MAX_TIMEOUT_MS = 6 * 3600_000;

/** A `limits.timeoutMs` function: `baseMs + perMbMs` per MB of input, at most `maxMs`. */
export function scaledTimeout({
  baseMs,
  perMbMs,
  maxMs = DEFAULT_MAX_TIMEOUT_MS,
}: ScaledTimeout): (inputs: readonly PluginInput[]) => number {
  return (inputs) => Math.min(maxMs, baseMs + Math.ceil((totalBytes(inputs) / MB) * perMbMs));
}
