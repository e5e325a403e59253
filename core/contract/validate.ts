/**
 * Manifest validation, shared by the registry (at start-up) and the conformance kit (in a
 * plugin author's own tests), so a bad plugin fails the same way in both places.
 */
import { z } from 'zod';
import { isFormatId, planIdSchema } from '../../schema/index.js';
import { debianPackages, type Plugin } from './index.js';

const KEBAB = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const FIELD = /^[a-z][a-zA-Z0-9]*$/;

/** Problems with one manifest, each a sentence naming the plugin; empty when valid. */
export function manifestProblems(plugin: Plugin): string[] {
  const id = typeof plugin?.id === 'string' ? plugin.id : '<no id>';
  const problems: string[] = [];
  const say = (msg: string) => problems.push(`plugin '${id}': ${msg}`);

  if (!KEBAB.test(id)) say('id must be kebab-case');
  if (!['convert', 'tool', 'extract'].includes(plugin.kind)) say(`kind must be convert, tool or extract (got '${String(plugin.kind)}')`);
  if (!plugin.title) say('title is required');
  if (plugin.kind === 'convert' && plugin.op !== undefined) say('a convert plugin has no op');
  if (plugin.kind !== 'convert' && (!plugin.op || !KEBAB.test(plugin.op))) say('op is required and must be kebab-case');
  if (!Array.isArray(plugin.inputs) || plugin.inputs.length === 0) say('inputs must list at least one format');
  for (const format of [...(plugin.inputs ?? []), ...(plugin.outputs ?? [])]) {
    if (!isFormatId(format)) say(`unknown format '${String(format)}'`);
  }
  if (plugin.kind === 'convert' && !plugin.outputs?.length) say('a convert plugin must list its outputs');
  if (plugin.kind === 'tool' && plugin.outputs && plugin.outputs.length !== 1) say('a tool has one fixed output format or none (in place)');
  if (!planIdSchema.safeParse(plugin.plan).success) say(`unknown plan '${String(plugin.plan)}'`);
  if (typeof plugin.run !== 'function') say('run must be a function');

  if (!(plugin.options instanceof z.ZodObject)) say('options must be a zod object');
  else {
    for (const field of Object.keys(plugin.options.shape)) {
      if (!FIELD.test(field) || ['file', 'files', 'to', 'op'].includes(field)) say(`option name '${field}' is not allowed`);
    }
    try {
      z.toJSONSchema(plugin.options, { io: 'input' });
    } catch (err) {
      say(`options cannot be described as JSON Schema (${(err as Error).message})`);
    }
  }

  const limits = plugin.limits;
  if (!limits) say('limits are required');
  else {
    if (typeof limits.timeoutMs === 'number' && !(limits.timeoutMs > 0)) say('limits.timeoutMs must be positive');
    if (!Number.isInteger(limits.concurrency) || limits.concurrency < 1) say('limits.concurrency must be a positive integer');
    if (limits.inputs && !(limits.inputs.min >= 1 && limits.inputs.max >= limits.inputs.min)) say('limits.inputs must satisfy 1 <= min <= max');
  }
  const commands = new Set<string>();
  for (const engine of plugin.engines ?? []) {
    if (!engine.command || !debianPackages(engine).length || debianPackages(engine).some((pkg) => !pkg)) {
      say('each engine needs a command and its Debian package(s)');
    }
    if (commands.has(engine.command)) say(`engine '${engine.command}' is listed twice: list it once with all its packages`);
    commands.add(engine.command);
  }
  if (plugin.creditWeight !== undefined && !(plugin.creditWeight >= 1)) say('creditWeight must be at least 1');
  return problems;
}
