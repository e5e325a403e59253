/**
 * The layer rules of docs/ARCHITECTURE.md, checked by test/layers.test.ts inside `npm test`
 * (or by hand: `npx depcruise schema core plugins apps`).
 *
 *   schema/          zod and node builtins only
 *   core/contract/   schema and npm libraries (the plugin SDK: third parties depend on it)
 *   core/engines/    core/contract, schema and npm libraries
 *   core/telemetry/  npm libraries only (metrics and tracing: every layer above may record)
 *   core/registry/, core/store/, core/blobs/, core/queue/
 *                    never core/services, apps or plugins
 *   core/services/   core/*, schema: never apps or plugins
 *   plugins/<family>/ core/contract, core/engines, schema and its own family
 *                    (plugins/index.ts lists the families and may import them all)
 *   apps/            anything below; apps/worker, apps/cli and apps/shared never apps/server
 *   apps/web/        the browser app: npm libraries and itself only (the server over HTTP)
 *   everywhere       no cycles; production code never imports tests or test tooling; every
 *                    import resolves
 *
 * Type-only imports count for the layer rules (tsPreCompilationDeps: true): a type import is
 * still a dependency on the other layer's vocabulary. A cycle with an `import type` in it is
 * allowed: it is erased at run time (a module and a helper taking its types, for instance).
 *
 * Tests (*.test.ts, fixtures, the adapter contract suites) may import helpers of any layer, but
 * no plugin family's tests import another family, and nothing imports a test.
 *
 * One documented exception: core/contract/testing.ts, the conformance kit published for plugin
 * authors, builds a Registry over the standard plugins to report collisions exactly as start-up
 * would; it may import core/registry/ and (lazily) plugins/index.ts, and vitest.
 */

/** Files only tests load: exempt from the layer rules (not from no-cross-family, no-cycles). */
const TESTS = [
  '\\.test\\.ts$',
  '^(test|bench|examples)/',
  '(^|/)fixtures(/|\\.ts$)',
  '(^|/)testing/',
  '\\.fixture\\.ts$',
  '(^|/)test-[^/]+\\.ts$',
  '(^|/)testing/',
  '^core/(store|blobs)/contract(\\.ts$|/)',
  '^core/store/mongo/testing\\.ts$',
  '^core/queue/sqlite-backend/conformance\\.ts$',
];
/** The conformance kit: part of the SDK (held to core/contract's rule but for its exception). */
const KIT = '^core/contract/testing\\.ts$';
const TEST_RUNNERS = '(^|/)node_modules/(vitest|@vitest)/';
/** Everything that runs plugins or serves them: what the SDK and the engines must not know. */
const ABOVE_CONTRACT = '^(core/(registry|services|store|queue|blobs|engines)|apps|plugins)/';

/** A layer rule: production files under `from` (tests exempt) never import `to`. */
const layer = (name, from, to, comment, { exempt = [] } = {}) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from, pathNot: [...TESTS, ...exempt] },
  to: { path: to },
});

module.exports = {
  forbidden: [
    {
      name: 'schema-imports-zod-only',
      comment: 'schema/ holds the wire shapes: it imports zod and node builtins, nothing else.',
      severity: 'error',
      from: { path: '^schema/', pathNot: TESTS },
      to: { pathNot: ['^schema/', '(^|/)node_modules/zod/'], dependencyTypesNot: ['core'] },
    },
    layer(
      'contract-imports-schema-only',
      '^core/contract/',
      ABOVE_CONTRACT,
      'core/contract/ is the plugin SDK: schema and npm libraries, never the layers that run plugins.',
      { exempt: [KIT] },
    ),
    {
      name: 'conformance-kit-exception',
      comment:
        'core/contract/testing.ts may also read core/registry/ and plugins/index.ts (collision check), nothing else above the contract.',
      severity: 'error',
      from: { path: KIT },
      to: { path: ABOVE_CONTRACT, pathNot: ['^core/registry/', '^plugins/index\\.ts$'] },
    },
    layer(
      'engines-import-contract-and-schema-only',
      '^core/engines/',
      '^(core/(registry|services|store|queue|blobs)|apps|plugins)/',
      'core/engines/ wraps external programs for plugins: core/contract, schema and npm libraries.',
    ),
    layer(
      'telemetry-imports-npm-only',
      '^core/telemetry/',
      '^(schema|core/(?!telemetry/)|apps|plugins)',
      'core/telemetry/ (Prometheus metrics, OpenTelemetry tracing) imports npm libraries only: the layers record into it, and what it reads is handed to it.',
    ),
    layer(
      'infrastructure-below-services',
      '^core/(registry|store|blobs|queue)/',
      '^(core/services|apps|plugins)/',
      'core/registry, store, blobs and queue are below the services: never core/services, apps or plugins.',
    ),
    layer(
      'services-never-apps-or-plugins',
      '^core/services/',
      '^(apps|plugins)/',
      'core/services/ sees core/* and schema; surfaces and plugins are wired in by apps.',
    ),
    layer(
      'plugins-import-contract-engines-schema',
      '^plugins/',
      '^(core/(registry|services|store|queue|blobs)|apps)/',
      'Plugins import core/contract, core/engines and schema (and npm libraries), never services, registry, store, queue, blobs or apps.',
    ),
    {
      name: 'no-cross-family',
      comment:
        'A plugin family imports only its own folder, in tests too; what two families share moves into core/engines or core/contract.',
      severity: 'error',
      from: { path: '^plugins/([^/]+)/' },
      to: { path: '^plugins/[^/]+/', pathNot: '^plugins/$1/' },
    },
    layer(
      'family-never-imports-distribution',
      '^plugins/[^/]+/',
      '^plugins/index\\.ts$',
      'plugins/index.ts lists the families; a family never imports it (its tests may, to check it coexists with the rest).',
    ),
    layer(
      'apps-never-import-server',
      '^apps/(worker|cli|shared)/',
      '^apps/server/',
      'apps/worker, apps/cli and apps/shared run without HTTP: they never load apps/server.',
    ),
    layer(
      'web-talks-http-only',
      '^apps/web/',
      '^(schema|core|plugins|apps/(?!web/))',
      'apps/web runs in the browser and reaches the server over HTTP (GraphQL) only: it imports no server-side module, not even schema/.',
    ),
    layer(
      'production-imports-no-tests',
      '',
      [...TESTS, KIT, TEST_RUNNERS],
      'Production code never loads tests, fixtures, the contract suites, the conformance kit or vitest.',
      { exempt: [KIT] },
    ),
    {
      name: 'kit-imports-no-tests',
      comment: 'The conformance kit may use vitest but no test file or fixture of this repository.',
      severity: 'error',
      from: { path: KIT },
      to: { path: TESTS },
    },
    {
      name: 'no-cycles',
      comment: 'No import cycles anywhere. A cycle with an `import type` in it (erased at run time) is allowed.',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-unresolvable',
      comment: 'Every import resolves, so the rules above see the whole graph.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // Tests and tooling outside the four layer roots are read when reached, not cruised further.
    doNotFollow: { path: ['(^|/)node_modules/', '^(test|bench|examples)/'] },
    exclude: { path: '^(data|\\.tmp)/' },
    // NodeNext's './x.js' for './x.ts' is resolved by dependency-cruiser itself.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};
