/**
 * The registry: validates every plugin manifest at start-up and builds the capability index
 * that every surface reads (conversions, ops, extractors, option schemas, engines).
 */
import { z } from 'zod';
import { FORMATS, canonicalFormat, type FormatId, type PlanId } from '../../schema/index.js';
import { debianPackages, type EngineRequirement, type Plugin } from '../contract/index.js';
import { pluginLicenses } from '../contract/licenses.js';
import { manifestProblems, registerDeclaredFormats } from '../contract/validate.js';
import { commandExists } from '../engines/process.js';

export class RegistryError extends Error {
  override readonly name = 'RegistryError';
}

/** The plugin that serves a request and the target it runs with (RunContext.target). */
export type Resolution = { ok: true; plugin: Plugin; target: FormatId } | { ok: false; error: string };

export interface OperationInfo {
  pluginId: string;
  kind: Plugin['kind'];
  op?: string;
  title: string;
  inputs: FormatId[];
  outputs: FormatId[];
  plan: PlanId;
  options: unknown;
  available: boolean;
  missingEngines: string[];
  /** SPDX licences of what it links and runs (PLUGIN_LICENSES filters on them). */
  licenses: string[];
}

const pairKey = (from: FormatId, to: FormatId) => `${from}>${to}`;
const opKey = (op: string, input: FormatId) => `${op}@${input}`;

export class Registry {
  private readonly conversions = new Map<string, Plugin>();
  private readonly tools = new Map<string, Plugin>();
  private readonly extractors = new Map<string, Plugin>();
  private readonly byId = new Map<string, Plugin>();
  private missing = new Map<string, string[]>();

  constructor(readonly plugins: readonly Plugin[]) {
    // Declared formats first, so a plugin may take a format another plugin declares.
    const problems = [...registerDeclaredFormats(plugins), ...plugins.flatMap((p) => manifestProblems(p))];
    const claim = (index: Map<string, Plugin>, key: string, plugin: Plugin, what: string) => {
      const owner = index.get(key);
      if (owner) problems.push(`plugin '${plugin.id}': ${what} is already provided by '${owner.id}'`);
      else index.set(key, plugin);
    };
    for (const plugin of problems.length ? [] : plugins) {
      claim(this.byId, plugin.id, plugin, 'id');
      if (plugin.kind === 'convert') {
        for (const from of plugin.inputs) {
          for (const to of plugin.outputs ?? []) {
            // A format to itself only from a plugin made for that alone (pdf-to-pdfa: a PDF to PDF/A).
            const rewrite = from === to && plugin.inputs.length === 1 && plugin.outputs?.length === 1;
            if ((from !== to || rewrite) && (plugin.supports?.(from, to) ?? true))
              claim(this.conversions, pairKey(from, to), plugin, `conversion ${from} -> ${to}`);
          }
        }
      } else if (plugin.kind === 'tool') {
        for (const input of plugin.inputs)
          claim(this.tools, opKey(plugin.op!, input), plugin, `op '${plugin.op}' on ${input}`);
      } else claim(this.extractors, plugin.op!, plugin, `extraction tool '${plugin.op}'`);
    }
    if (problems.length) throw new RegistryError(`Invalid plugins:\n  ${problems.join('\n  ')}`);
  }

  /** Look up which engines are installed; plugins missing one are reported unavailable. */
  async checkEngines(): Promise<void> {
    const present = new Map<string, boolean>();
    for (const engine of this.engines()) present.set(engine.command, await commandExists(engine.command));
    this.missing = new Map(
      this.plugins.map((p) => [
        p.id,
        p.engines
          .filter((e) => !present.get(e.command))
          .map((e) => `${e.command} (Debian ${debianPackages(e).join(', ')})`),
      ]),
    );
  }

  missingEngines(plugin: Plugin): string[] {
    return this.missing.get(plugin.id) ?? [];
  }

  /** Every distinct engine the plugins declare. */
  engines(): EngineRequirement[] {
    const seen = new Map<string, EngineRequirement>();
    for (const plugin of this.plugins) for (const engine of plugin.engines) seen.set(engine.command, engine);
    return [...seen.values()].sort((a, b) => a.command.localeCompare(b.command));
  }

  plugin(id: string): Plugin | undefined {
    return this.byId.get(id);
  }

  /**
   * Which plugin serves `from` -> `target` (conversion) or `op` on `from` (tool). The target is parsed already
   * (core/services/targets.ts: jpeg is named jpg); an op that needs none is given ''.
   */
  resolve({ from, target, op }: { from: FormatId; target: string; op?: string }): Resolution {
    if (op) {
      const plugin = this.tools.get(opKey(op, from));
      if (!plugin) {
        const known = [...this.tools.values()].some((p) => p.op === op);
        return { ok: false, error: known ? `Op '${op}' does not accept ${from} files` : `Unknown op '${op}'` };
      }
      // An op that always answers in one format (structure: JSON) may leave `to` out or name that format.
      if (plugin.targetOptional && plugin.outputs?.length === 1 && (!target || target === plugin.outputs[0]))
        return this.usable(plugin, plugin.outputs[0]!);
      if (!target) return { ok: false, error: "Missing 'to': the output format, e.g. to=webp" };
      // An op with several outputs (thumbnail): `to` picks one, whatever the input.
      if (plugin.outputs && plugin.outputs.length > 1) {
        if (!plugin.outputs.includes(target as FormatId))
          return { ok: false, error: `With op '${op}', 'to' must be one of ${plugin.outputs.join(', ')}` };
        return this.usable(plugin, target as FormatId);
      }
      // A .jpeg upload may be asked for as jpg (or jpeg, parsed as jpg): the same format.
      if (target !== canonicalFormat(from))
        return { ok: false, error: `With op '${op}', 'to' must equal the input format (${from})` };
      return this.usable(plugin, plugin.outputs?.[0] ?? from);
    }
    const plugin = this.conversions.get(pairKey(from, target as FormatId));
    if (!plugin) return { ok: false, error: `Unsupported conversion: ${from} -> ${target}` };
    return this.usable(plugin, target as FormatId);
  }

  extractor(tool: string): Resolution {
    const plugin = this.extractors.get(tool);
    return plugin
      ? this.usable(plugin, 'json')
      : { ok: false, error: `The ${tool} tool is not installed on this server` };
  }

  private usable(plugin: Plugin, target: FormatId): Resolution {
    const missing = this.missingEngines(plugin);
    if (missing.length)
      return { ok: false, error: `${plugin.title} is not available on this server: missing ${missing.join(', ')}` };
    return { ok: true, plugin, target };
  }

  /** The capability index for /api/v1/formats, OpenAPI, GraphQL and tRPC. */
  operations(): OperationInfo[] {
    return this.plugins.map((plugin) => {
      const pairs = plugin.kind === 'convert' ? [...this.conversions.entries()].filter(([, p]) => p === plugin) : [];
      const missing = this.missingEngines(plugin);
      return {
        pluginId: plugin.id,
        kind: plugin.kind,
        ...(plugin.op ? { op: plugin.op } : {}),
        title: plugin.title,
        inputs: [...plugin.inputs],
        outputs:
          plugin.kind === 'convert'
            ? [...new Set(pairs.map(([key]) => key.split('>')[1] as FormatId))]
            : [...(plugin.outputs ?? [])],
        plan: plugin.plan,
        options: z.toJSONSchema(plugin.options, { io: 'input' }),
        available: missing.length === 0,
        missingEngines: missing,
        licenses: pluginLicenses(plugin),
      };
    });
  }

  /** For each input format, the `to` values it converts to (available plugins only). */
  conversionTable(): Record<string, string[]> {
    const table: Record<string, string[]> = {};
    for (const [key, plugin] of this.conversions) {
      if (this.missingEngines(plugin).length) continue;
      const [from, to] = key.split('>') as [FormatId, FormatId];
      table[from] ??= [];
      table[from].push(to);
    }
    for (const list of Object.values(table)) list.sort();
    return table;
  }

  /** Every op name with the input formats it accepts. */
  opNames(): string[] {
    return [...new Set([...this.tools.values()].map((p) => p.op!))].sort();
  }

  /** Formats the registry can read, for format listings. */
  knownInputFormats(): FormatId[] {
    return [...new Set(this.plugins.flatMap((p) => p.inputs))].sort(
      (a, b) => FORMATS[a].category.localeCompare(FORMATS[b].category) || a.localeCompare(b),
    );
  }
}
