/**
 * The layer rules of docs/ARCHITECTURE.md, checked by test/layers.test.ts inside `npm test`
 * (or by hand: `npx depcruise schema core plugins apps`).
 *
 *   schema/          zod and node builtins only
 *   core/contract/   schema and npm libraries (the plugin SDK: third parties depend on it)
 *   core/engines/    core/contract, schema and npm libraries
 *   core/telemetry/  npm libraries only (metrics and tracing: every layer above may record)
 *   core/webhooks/   node builtins only (the Standard Webhooks signer and verifier, published
 *                    as `transmute/webhooks` for receivers)
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
 * still a dependency on the other layer's vocabulary. They count for cycles too: a reader
 * following imports walks in circles whether or not the compiler erases one of them (shared
 * types go in a small types.ts both sides import).
 *
 * Test support follows one convention: a file is test support iff it is `*.test.ts` or lives
 * under a `testing/` folder (fixture builders, shared suites, child-process entries). test/,
 * bench/ and examples/ sit outside the product altogether. Test support may import helpers of
 * any layer, but no plugin family's tests import another family, and production code never
 * imports test support.
 *
 * One documented exception: core/contract/testing/, the conformance kit published for plugin
 * authors (`transmute/contract/testing`), builds a Registry over the plugins its caller names to
 * report collisions exactly as start-up would; it may import core/registry/ and vitest, but nothing
 * else above the contract (plugins/ included) and no other test support.
 */

/** Test support (exempt from the layer rules, not from no-cross-family, no-cycles). */
const TESTS = ['\\.test\\.ts$', '(^|/)testing/', '^(test|bench|examples)/'];
/** The conformance kit: test support published with the SDK (held to its own exception). */
const KIT = '^core/contract/testing/';
const TEST_RUNNERS = '(^|/)node_modules/(vitest|@vitest)/';
/** Everything that runs plugins or serves them: what the SDK and the engines must not know. */
const ABOVE_CONTRACT = '^(core/(registry|services|store|queue|blobs|engines)|apps|plugins)/';

/** A layer rule: production files under `from` (tests exempt) never import `to`. */
const layer = (name, from, to, comment) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from, pathNot: TESTS },
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
    ),
    {
      name: 'conformance-kit-exception',
      comment:
        'core/contract/testing/ may also read core/registry/ (collision check), nothing else above the contract ' +
        '(the plugins to check against come from its caller).',
      severity: 'error',
      from: { path: KIT, pathNot: '\\.test\\.ts$' },
      to: { path: ABOVE_CONTRACT, pathNot: ['^core/registry/'] },
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
      'core/telemetry/ (Prometheus metrics, OpenTelemetry tracing) imports npm libraries only: the layers record ' +
        'into it, and what it reads is handed to it.',
    ),
    {
      name: 'webhooks-import-builtins-only',
      comment:
        'core/webhooks/ is what webhook receivers import (transmute/webhooks): node builtins only, so it ' +
        'can be copied as it is.',
      severity: 'error',
      from: { path: '^core/webhooks/', pathNot: TESTS },
      to: { pathNot: '^core/webhooks/', dependencyTypesNot: ['core'] },
    },
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
      'Plugins import core/contract, core/engines and schema (and npm libraries), never services, registry, store, ' +
        'queue, blobs or apps.',
    ),
    {
      name: 'no-cross-family',
      comment:
        'A plugin family imports only its own folder, in tests too; what two families share moves into core/engines ' +
        'or core/contract.',
      severity: 'error',
      from: { path: '^plugins/([^/]+)/' },
      to: { path: '^plugins/[^/]+/', pathNot: '^plugins/$1/' },
    },
    layer(
      'family-never-imports-distribution',
      '^plugins/[^/]+/',
      '^plugins/index\\.ts$',
      'plugins/index.ts lists the families; a family never imports it (its tests may, to check it coexists with ' +
        'the rest).',
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
      'apps/web runs in the browser and reaches the server over HTTP (GraphQL) only: it imports no server-side ' +
        'module, not even schema/.',
    ),
    layer(
      'production-imports-no-tests',
      '',
      [...TESTS, TEST_RUNNERS],
      'Production code never loads test support (*.test.ts, testing/ folders, test/) or vitest.',
    ),
    {
      name: 'kit-imports-no-tests',
      comment: 'The conformance kit may use vitest but no test file or fixture of this repository.',
      severity: 'error',
      from: { path: KIT },
      to: { path: TESTS, pathNot: KIT },
    },
    {
      name: 'no-cycles',
      comment: 'No import cycles anywhere, type-only imports included: shared types go in a small types.ts.',
      severity: 'error',
      from: {},
      to: { circular: true },
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
