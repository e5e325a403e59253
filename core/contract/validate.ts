/**
 * Manifest validation, shared by the registry (at start-up) and the conformance kit (in a
 * plugin author's own tests), so a bad plugin fails the same way in both places.
 */
import { z } from 'zod';
import { CATEGORY_CREDIT_BASE, isBuiltinFormat, isFormatId, planIdSchema, registerFormat } from '../../schema/index.js';
import { extractionProblems } from './extraction.js';
import { debianPackages, type FormatDeclaration, type Plugin } from './index.js';

const KEBAB = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const FIELD = /^[a-z][a-zA-Z0-9]*$/;
const FORMAT_NAME = /^[a-z0-9]{1,16}$/;
const MIME = /^[a-z]+\/[a-z0-9][a-z0-9.+-]*$/;
const HOW_TO_DECLARE = "declare it in the manifest's `formats` (see examples/plugin/README.md)";

/** Problems with one declared format, without the plugin prefix. */
function formatDeclarationProblems(format: FormatDeclaration): string[] {
  const id = String(format?.id);
  const problems: string[] = [];
  if (!FORMAT_NAME.test(id)) problems.push(`format id '${id}' must be 1-16 lower-case letters or digits`);
  if (format.extension !== undefined && !FORMAT_NAME.test(format.extension))
    problems.push(`format '${id}': extension must be 1-16 lower-case letters or digits`);
  if (!Object.hasOwn(CATEGORY_CREDIT_BASE, format.category))
    problems.push(`format '${id}': unknown category '${String(format.category)}'`);
  if (!MIME.test(String(format.mime))) problems.push(`format '${id}': mime must be a media type such as text/plain`);
  if (format.creditBase !== undefined && ![1, 3, 10].includes(format.creditBase))
    problems.push(`format '${id}': creditBase must be 1, 3 or 10`);
  if (typeof format.sniff !== 'function') problems.push(`format '${id}': sniff(head) must be a function`);
  for (const name of new Set([id, format.extension ?? id])) {
    if (isBuiltinFormat(name)) problems.push(`format '${name}' is built in: use it without declaring it`);
  }
  return problems;
}

/**
 * Registers the formats the plugins declare (see FormatDeclaration), so every service knows them.
 * Returns the problems (invalid declarations, collisions with built-in or other plugins' formats);
 * a format with a problem is not registered.
 */
export function registerDeclaredFormats(plugins: readonly Plugin[]): string[] {
  const problems: string[] = [];
  for (const plugin of plugins) {
    for (const format of plugin.formats ?? []) {
      if (formatDeclarationProblems(format).length) continue; // reported by manifestProblems
      const { id, category, mime, extension, text, creditBase, sniff } = format;
      const problem = registerFormat(
        id,
        {
          category,
          mime,
          extension: extension ?? id,
          sniff: [],
          creditBase: creditBase ?? CATEGORY_CREDIT_BASE[category],
          detect: sniff,
          ...(text ? { text } : {}),
        },
        plugin.id,
      );
      if (problem) problems.push(`plugin '${plugin.id}': ${problem}`);
    }
  }
  return problems;
}

/** Problems with one manifest, each a sentence naming the plugin; empty when valid. */
export function manifestProblems(plugin: Plugin): string[] {
  const id = typeof plugin?.id === 'string' ? plugin.id : '<no id>';
  const problems: string[] = [];
  const say = (msg: string) => problems.push(`plugin '${id}': ${msg}`);

  if (!KEBAB.test(id)) say('id must be kebab-case');
  if (!['convert', 'tool', 'extract'].includes(plugin.kind))
    say(`kind must be convert, tool or extract (got '${String(plugin.kind)}')`);
  if (!plugin.title) say('title is required');
  if (plugin.kind === 'convert' && plugin.op !== undefined) say('a convert plugin has no op');
  if (plugin.kind !== 'convert' && (!plugin.op || !KEBAB.test(plugin.op))) say('op is required and must be kebab-case');
  if (!Array.isArray(plugin.inputs) || plugin.inputs.length === 0) say('inputs must list at least one format');
  if (plugin.formats !== undefined && !Array.isArray(plugin.formats))
    say('formats must be an array of format declarations');
  for (const format of Array.isArray(plugin.formats) ? plugin.formats : [])
    formatDeclarationProblems(format).forEach(say);
  const declared = new Set((Array.isArray(plugin.formats) ? plugin.formats : []).map((f) => f?.id));
  for (const format of [...(plugin.inputs ?? []), ...(plugin.outputs ?? [])]) {
    if (!isFormatId(format) && !declared.has(format)) say(`unknown format '${String(format)}': ${HOW_TO_DECLARE}`);
  }
  if (plugin.kind === 'convert' && !plugin.outputs?.length) say('a convert plugin must list its outputs');
  if (plugin.kind === 'tool' && plugin.outputs && plugin.outputs.length === 0)
    say('a tool has one fixed output format, several (`to` picks one) or none (in place)');
  if (!planIdSchema.safeParse(plugin.plan).success) say(`unknown plan '${String(plugin.plan)}'`);
  if (typeof plugin.run !== 'function') say('run must be a function');
  extractionProblems(plugin).forEach(say);

  if (!(plugin.options instanceof z.ZodObject)) say('options must be a zod object');
  else {
    for (const field of Object.keys(plugin.options.shape)) {
      if (!FIELD.test(field) || ['file', 'files', 'to', 'op'].includes(field))
        say(`option name '${field}' is not allowed`);
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
    if (!Number.isInteger(limits.concurrency) || limits.concurrency < 1)
      say('limits.concurrency must be a positive integer');
    if (limits.work && !(limits.work.max > 0 && typeof limits.work.measure === 'function'))
      say('limits.work needs a positive max and a measure function');
    if (limits.inputs && !(limits.inputs.min >= 1 && limits.inputs.max >= limits.inputs.min))
      say('limits.inputs must satisfy 1 <= min <= max');
  }
  if (!Array.isArray(plugin.licenses) || plugin.licenses.some((l) => typeof l !== 'string' || !l.trim())) {
    say('licenses must list the SPDX licences of the libraries it links (empty when it links none)');
  }
  const commands = new Set<string>();
  for (const engine of plugin.engines ?? []) {
    if (!engine.command || !debianPackages(engine).length || debianPackages(engine).some((pkg) => !pkg)) {
      say('each engine needs a command and its Debian package(s)');
    }
    if (typeof engine.license !== 'string' || !engine.license.trim())
      say(`engine '${engine.command}' needs its SPDX licence`);
    if (commands.has(engine.command))
      say(`engine '${engine.command}' is listed twice: list it once with all its packages`);
    commands.add(engine.command);
  }
  if (plugin.creditWeight !== undefined && !(plugin.creditWeight >= 1)) say('creditWeight must be at least 1');
  return problems;
}
