/**
 * A third-party plugin package for Transmute: CSV <-> TSV, in the shape of the standard plugins
 * (README "Extending"): one folder per plugin (csv-tsv/: manifest, options, run, tests), a family
 * descriptor in shared/, test files in testing/. It imports Transmute only through the package's
 * exports; load it with `PLUGINS=./examples/plugin/index.ts npm start` (the default export: the list).
 */
import type { Plugin } from 'transmute/contract';
import { csvTsvPlugin } from './csv-tsv/index.js';

export { tsv } from './shared/tsv.js';
export { csvTsvPlugin };

const examplePlugins: Plugin[] = [csvTsvPlugin];
export default examplePlugins;
