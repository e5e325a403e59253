/**
 * Prints the Debian packages the standard plugins declare, one per line, so setup installs
 * exactly what the enabled plugins need (the manifests are the single source of truth).
 */
import { standardPlugins } from '../plugins/index.js';

const packages = new Set(standardPlugins.flatMap((plugin) => plugin.engines.map((engine) => engine.debian)));
console.log([...packages].sort().join('\n'));
