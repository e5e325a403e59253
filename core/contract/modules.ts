/**
 * Plugin modules: a module's default export (or its `plugins` export) is a plugin or an array of
 * plugins. The server's registry and the sandbox processes that run plugins load the same
 * modules by specifier, so a third-party plugin is one importable module.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from './index.js';

/** A specifier as `import()` takes it: relative paths resolve against the working directory. */
export function moduleUrl(specifier: string): string {
  return specifier.startsWith('.') || specifier.startsWith('/') ? pathToFileURL(path.resolve(specifier)).href : specifier;
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
