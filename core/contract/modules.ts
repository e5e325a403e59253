/**
 * Plugin modules: a module's default export (or its `plugins` export) is a plugin or an array of
 * plugins. The server's registry loads them by specifier, and the sandbox processes that run
 * plugins import the module of the plugin they are asked to run, so a third-party plugin is one
 * importable module.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from './index.js';

/** A specifier as `import()` takes it: relative paths resolve against the working directory. */
export function moduleUrl(specifier: string): string {
  return specifier.startsWith('.') || specifier.startsWith('/')
    ? pathToFileURL(path.resolve(specifier)).href
    : specifier;
}

export async function loadPluginModules(specifiers: readonly string[]): Promise<Plugin[]> {
  const loaded: Plugin[] = [];
  for (const specifier of specifiers) {
    const mod = (await import(moduleUrl(specifier))) as { default?: Plugin | Plugin[]; plugins?: Plugin[] };
    const exported = mod.default ?? mod.plugins;
    if (!exported) throw new Error(`Plugin module ${specifier} exports no default plugin (or plugins array)`);
    loaded.push(...(Array.isArray(exported) ? exported : [exported]));
  }
  return loaded;
}

function isPlugin(value: unknown): value is Plugin {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Plugin).id === 'string' &&
    typeof (value as Plugin).run === 'function'
  );
}

/** Every plugin a module exports, under any name, alone or in arrays. */
export async function exportedPlugins(specifier: string): Promise<Plugin[]> {
  const mod = (await import(moduleUrl(specifier))) as Record<string, unknown>;
  const found = new Map<string, Plugin>();
  for (const value of Object.values(mod))
    for (const item of Array.isArray(value) ? value : [value]) if (isPlugin(item)) found.set(item.id, item);
  return [...found.values()];
}

/** Which module exports each plugin id (the first module that does). */
export async function pluginModules(specifiers: readonly string[]): Promise<Map<string, string>> {
  const byId = new Map<string, string>();
  for (const specifier of specifiers)
    for (const plugin of await exportedPlugins(specifier)) if (!byId.has(plugin.id)) byId.set(plugin.id, specifier);
  return byId;
}
