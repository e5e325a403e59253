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

/** The formats listing as built once, with its JSON text, and the engine check it was built from. */
interface CachedFormats {
  missing: string;
  formats: Formats;
  json: string;
}

export class CapabilityService {
  // The plugins are fixed once the registry is built; which engines are missing is not (checkEngines).
  private readonly tools: ReadonlyMap<string, ExtractionToolInfo>;
  private cached: CachedFormats | undefined;

  constructor(private readonly registry: Registry) {
    this.tools = new Map(extractionTools(registry).map((info) => [info.tool, info]));
  }

  /**
   * Every conversion (available plugins) and every operation with its option schema and availability.
   * Built once (each operation's JSON Schema is costly to derive) and rebuilt only when the engine
   * check changed what is missing; callers share the value and must not change it.
   */
  formats(): Formats {
    return this.cachedFormats().formats;
  }

  /** The formats listing as JSON text, serialised once (REST GET /api/v1/formats). */
  formatsJson(): string {
    return this.cachedFormats().json;
  }

  private cachedFormats(): CachedFormats {
    const missing = this.registry.plugins.map((plugin) => this.registry.missingEngines(plugin).join(',')).join(';');
    if (this.cached?.missing !== missing) {
      const formats = { conversions: this.registry.conversionTable(), operations: this.registry.operations() };
      this.cached = { missing, formats, json: JSON.stringify(formats) };
    }
    return this.cached;
  }

  /** Plugins an engine is missing for. */
  unavailable(): UnavailablePlugin[] {
    return this.formats()
      .operations.filter((o) => !o.available)
      .map((o) => ({ plugin: o.pluginId, missing: o.missingEngines }));
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
