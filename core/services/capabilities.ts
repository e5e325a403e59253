/**
 * What this server can do, from the registry, for every surface: the formats listing (REST GET
 * /api/v1/formats, GraphQL `formats`, tRPC `formats.list`), the plugins /readyz and the start-up
 * logs report unavailable, and the extraction endpoints each surface makes its routes from.
 */
import { extractionTools, type ExtractionToolInfo } from '../registry/extraction.js';
import type { OperationInfo, Registry } from '../registry/index.js';

export type { ExtractionToolInfo } from '../registry/extraction.js';

/** The formats listing (schema/wire.ts formatsSchema). */
export interface Formats {
  /** For each input format, the `to` values it converts to. */
  conversions: Record<string, string[]>;
  operations: OperationInfo[];
}

export interface UnavailablePlugin {
  plugin: string;
  /** The missing engines, each with its Debian package(s). */
  missing: string[];
}

export class CapabilityService {
  // The plugins are fixed once the registry is built; which engines are missing is not (checkEngines).
  private readonly tools: ReadonlyMap<string, ExtractionToolInfo>;

  constructor(private readonly registry: Registry) {
    this.tools = new Map(extractionTools(registry).map((info) => [info.tool, info]));
  }

  /** Every conversion (available plugins) and every operation with its option schema and availability. */
  formats(): Formats {
    return { conversions: this.registry.conversionTable(), operations: this.registry.operations() };
  }

  /** Plugins an engine is missing for. */
  unavailable(): UnavailablePlugin[] {
    return this.registry.operations().filter((o) => !o.available).map((o) => ({ plugin: o.pluginId, missing: o.missingEngines }));
  }

  /** The extraction endpoints: one per extract plugin, and the spec's tools without one. */
  extractionTools(): ExtractionToolInfo[] {
    return [...this.tools.values()];
  }

  extractionTool(tool: string): ExtractionToolInfo | undefined {
    return this.tools.get(tool);
  }

  /** The most files any extraction request takes. */
  maxExtractionFiles(): number {
    return Math.max(0, ...[...this.tools.values()].map((info) => info.maxFiles));
  }
}
