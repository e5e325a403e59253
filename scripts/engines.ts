/**
 * Prints the Debian packages the standard plugins declare, one per line, so setup installs
 * exactly what the enabled plugins need (the manifests are the single source of truth), plus
 * bubblewrap, which confines them all.
 */
import { debianPackages } from '../core/contract/index.js';
import { CONFINEMENT_DEBIAN_PACKAGE } from '../core/engines/confine.js';
import { standardPlugins } from '../plugins/index.js';

// bwrap confines every engine (core/engines/confine.ts): the service refuses to start without it unless
// ENGINE_SANDBOX=off.
const packages = new Set([
  ...standardPlugins.flatMap((plugin) => plugin.engines.flatMap(debianPackages)),
  CONFINEMENT_DEBIAN_PACKAGE,
]);
console.log([...packages].sort().join('\n'));
