/**
 * The layer table of docs/ARCHITECTURE.md, enforced: dependency-cruiser reads the import graph
 * of schema/, core/, plugins/ and apps/ (type-only imports included) and checks it against the
 * rules in .dependency-cruiser.cjs. Fails listing every violation as `from -> to (rule)`.
 *
 * The same rules also run over test/fixtures/layers/, a tiny tree with one import per rule, so a
 * rule whose pattern stops matching fails here instead of passing everything silently.
 */
import path from 'node:path';
import { cruise, type ICruiseOptions, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const LAYERS = ['schema', 'core', 'plugins', 'apps'];

let options: ICruiseOptions;
beforeAll(async () => {
  options = await extractDepcruiseOptions(path.join(ROOT, '.dependency-cruiser.cjs'));
});

async function violations(baseDir: string): Promise<{ cruised: number; found: string[] }> {
  const { output } = await cruise(LAYERS, { ...options, baseDir, validate: true });
  const { summary } = output as ICruiseResult;
  const found = summary.violations.map((v) => {
    const to = v.to.replace(/^.*?node_modules\//, 'node_modules/');
    const cycle = v.cycle?.length ? ` [cycle: ${[v.from, ...v.cycle.map((step) => step.name)].join(' -> ')}]` : '';
    return `${v.from} -> ${to} (${v.rule.name})${cycle}`;
  });
  return { cruised: summary.totalCruised, found };
}

describe('layers', () => {
  it('every import in schema, core, plugins and apps follows the layer table, with no cycles', async () => {
    const { cruised, found } = await violations(ROOT);
    // The graph really was read (a resolution or path mistake would pass vacuously).
    expect(cruised).toBeGreaterThan(150);
    expect(found, `layer violations:\n${found.join('\n')}`).toEqual([]);
  }, 60_000);

  it('every rule fires on the fixture tree, and nothing else does', async () => {
    const { found } = await violations(path.join(ROOT, 'test/fixtures/layers'));
    expect(found.sort()).toEqual(
      [
        'apps/server/index.ts -> ./missing.js (no-unresolvable)',
        'apps/web/main.ts -> core/services/leaf.ts (web-talks-http-only)',
        'apps/worker/index.ts -> apps/server/index.ts (apps-never-import-server)',
        'core/contract/index.ts -> core/services/leaf.ts (contract-imports-schema-only)',
        'core/contract/testing/index.ts -> core/registry/testing/fixtures.ts (kit-imports-no-tests)',
        'core/contract/testing/index.ts -> core/store/index.ts (conformance-kit-exception)',
        'core/contract/testing/index.ts -> plugins/index.ts (conformance-kit-exception)',
        'core/engines/index.ts -> core/queue/index.ts (engines-import-contract-and-schema-only)',
        'core/queue/index.ts -> core/services/leaf.ts (infrastructure-below-services)',
        'core/telemetry/index.ts -> core/services/leaf.ts (telemetry-imports-npm-only)',
        'core/webhooks/index.ts -> core/services/leaf.ts (webhooks-import-builtins-only)',
        'core/registry/index.ts -> node_modules/vitest/dist/index.js (production-imports-no-tests)',
        'core/services/cycle-a.ts -> core/services/cycle-b.ts (no-cycles) ' +
          '[cycle: core/services/cycle-a.ts -> core/services/cycle-b.ts -> core/services/cycle-a.ts]',
        'core/services/service.ts -> core/store/testing/suite.ts (production-imports-no-tests)',
        'core/services/types-a.ts -> core/services/types-b.ts (no-cycles) ' +
          '[cycle: core/services/types-a.ts -> core/services/types-b.ts -> core/services/types-a.ts]',
        'core/services/service.ts -> plugins/b/index.ts (services-never-apps-or-plugins)',
        'plugins/a/bad.ts -> plugins/b/index.ts (no-cross-family)',
        'plugins/a/bad.ts -> plugins/index.ts (family-never-imports-distribution)',
        'plugins/a/index.ts -> core/store/index.ts (plugins-import-contract-engines-schema)',
        'plugins/b/testing/fixtures.ts -> plugins/a/index.ts (no-cross-family)',
        'schema/index.ts -> core/services/leaf.ts (schema-imports-zod-only)',
      ].sort(),
    );
  }, 60_000);
});
