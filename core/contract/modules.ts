/**
 * Plugin modules: a module's default export (or its `plugins` export) is a plugin or an array of
 * plugins. The server's registry loads them by specifier, and the sandbox processes that run
 * plugins import the module of the plugin they are asked to run, so a third-party plugin is one
 * importable module.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Plugin } from './index.js';

/**
 * The file `name` beside the module at `base` (its import.meta.url) with the same extension:
 * `name.ts` when the sources run through tsx (tests, tsx), `name.js` in the compiled tree that
 * `npm start` runs (scripts/build-app.mjs).
 */
export function siblingFile(name: string, base: string): string {
  return fileURLToPath(new URL(`${name}${path.extname(new URL(base).pathname)}`, base));
}

/** Whether this process runs the TypeScript sources (through tsx or vitest), not the compiled tree. */
const runsTypeScript = import.meta.url.endsWith('.ts');
let typeScriptLoader: Promise<void> | undefined;

/**
 * Imports a plugin module. A TypeScript one (PLUGINS=./my-plugin.ts) in a process running the
 * compiled tree registers tsx's loader first: only then, since its hooks thread costs memory.
 */
async function importPluginModule(specifier: string): Promise<Record<string, unknown>> {
  const url = moduleUrl(specifier);
  if (!runsTypeScript && /\.[cm]?tsx?$/.test(url)) {
    typeScriptLoader ??= import('tsx/esm/api').then(({ register }) => {
      register();
    });
    await typeScriptLoader;
  }
  return (await import(url)) as Record<string, unknown>;
}

/** A specifier as `import()` takes it: relative paths resolve against the working directory. */
export function moduleUrl(specifier: string): string {
  return specifier.startsWith('.') || specifier.startsWith('/')
    ? pathToFileURL(path.resolve(specifier)).href
    : specifier;
}

export async function loadPluginModules(specifiers: readonly string[]): Promise<Plugin[]> {
  const loaded: Plugin[] = [];
  for (const specifier of specifiers) {
    const mod = (await importPluginModule(specifier)) as { default?: Plugin | Plugin[]; plugins?: Plugin[] };
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
  const mod = await importPluginModule(specifier);
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
