/**
 * The standard distribution (plugins/index.ts): every plugin each family module exports is in
 * it, and together they make one valid registry (no two families claim the same id, conversion
 * pair or op). The families' own tests register the family alone, since a family never imports
 * another.
 */
import { describe, expect, it } from 'vitest';
import { exportedPlugins } from '../core/contract/modules.js';
import { Registry } from '../core/registry/index.js';
import { standardPluginModules, standardPlugins } from './index.js';

describe('the standard distribution', () => {
  it('lists every plugin of every family module, and nothing else', async () => {
    const exported = (await Promise.all(standardPluginModules.map((module) => exportedPlugins(module)))).flat();
    expect(exported.map((plugin) => plugin.id).sort()).toEqual(standardPlugins.map((plugin) => plugin.id).sort());
  });

  it('is one valid registry', () => {
    expect(() => new Registry(standardPlugins)).not.toThrow();
  });
});
