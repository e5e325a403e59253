/**
 * `node --import ./record-imports.mjs`: when IMPORT_GRAPH_FILE is set, every module resolution
 * of this process (not of the processes it forks) is appended to that file as
 * `<importer URL>\t<resolved URL>`, so a test can tell what the process loaded and through what.
 */
import { register } from 'node:module';

if (process.env.IMPORT_GRAPH_FILE) {
  register('./record-imports-hooks.mjs', import.meta.url, { data: { file: process.env.IMPORT_GRAPH_FILE } });
}
