/**
 * The extraction endpoints of a registry: one per `extract` plugin, from its manifest, plus the
 * spec's tools that no plugin provides (their endpoints answer "not installed" past the plan gate).
 * Every surface makes its routes, mutations and procedures from this list.
 */
import { z } from 'zod';
import {
  FEATURE_MIN_PLAN,
  SPEC_EXTRACTION_TOOLS,
  extractionRowSchemas,
  type Feature,
  type FormatId,
  type PlanId,
} from '../../schema/index.js';
import type { Plugin } from '../contract/index.js';
import type { Registry } from './index.js';

export interface ExtractionToolInfo {
  /** The tool's name: the plugin's op, the path segment of /api/<tool>. */
  tool: string;
  title: string;
  /** The plugin behind it; null for a spec tool with no plugin installed. */
  pluginId: string | null;
  inputs: FormatId[];
  maxFiles: number;
  /** Lowest paid plan. */
  plan: PlanId;
  /** For the spec's tools: the plan feature their refusals name (e.g. "Transcription requires ..."). */
  feature: Feature | null;
  /** Whether a Free key gets one free call with one file. */
  freeTrial: boolean;
  /** Totals added to each poll answer: name -> the row field summed. */
  summary: Record<string, { sum: string }>;
  /** JSON Schema (input) of the tool's fields beside `files`. */
  options: unknown;
  /** The zod of one poll row (the manifest's `extraction.row`; a spec tool not installed: the spec's row). */
  row: z.ZodObject | null;
}

/** The spec's row of a spec tool (schema/wire.ts); null for another tool. */
const specRow = (tool: string): z.ZodObject | null =>
  (extractionRowSchemas as Record<string, z.ZodObject>)[tool] ?? null;

function fromPlugin(plugin: Plugin): ExtractionToolInfo {
  const tool = plugin.op!;
  const spec = (SPEC_EXTRACTION_TOOLS as Record<string, { feature: Feature }>)[tool];
  const endpoint = plugin.extraction!;
  return {
    tool,
    title: plugin.title,
    pluginId: plugin.id,
    inputs: [...plugin.inputs],
    maxFiles: endpoint.maxFiles,
    plan: plugin.plan,
    feature: spec?.feature ?? null,
    freeTrial: endpoint.freeTrial ?? true,
    summary: { ...endpoint.summary },
    options: z.toJSONSchema(plugin.options, { io: 'input' }),
    // A plugin serving a spec tool without a row of its own keeps the spec's (the schema stays the same).
    row: endpoint.row ?? specRow(tool),
  };
}

/** The spec's tools first, in the spec's order, then the others in the order the plugins were loaded. */
export function extractionTools(registry: Registry): ExtractionToolInfo[] {
  const plugins = registry.plugins.filter((plugin) => plugin.kind === 'extract');
  const spec = Object.entries(SPEC_EXTRACTION_TOOLS).map(([tool, limits]): ExtractionToolInfo => {
    const plugin = plugins.find((p) => p.op === tool);
    if (plugin) return fromPlugin(plugin);
    const fields = 'fields' in limits ? limits.fields : z.object({});
    return {
      tool,
      title: 'title' in limits ? limits.title : tool,
      pluginId: null,
      inputs: [],
      maxFiles: limits.maxFiles,
      plan: FEATURE_MIN_PLAN[limits.feature],
      feature: limits.feature,
      freeTrial: true,
      summary: {},
      options: z.toJSONSchema(fields, { io: 'input' }),
      row: specRow(tool),
    };
  });
  const others = plugins.filter((plugin) => !Object.hasOwn(SPEC_EXTRACTION_TOOLS, plugin.op!)).map(fromPlugin);
  return [...spec, ...others];
}
