/**
 * Prints the Debian packages the standard plugins declare, one per line, so setup installs
 * exactly what the enabled plugins need (the manifests are the single source of truth).
 */
import { debianPackages } from '../core/contract/index.js';
import { standardPlugins } from '../plugins/index.js';

const packages = new Set(standardPlugins.flatMap((plugin) => plugin.engines.flatMap(debianPackages)));
console.log([...packages].sort().join('\n'));
