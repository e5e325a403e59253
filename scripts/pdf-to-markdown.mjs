#!/usr/bin/env node
/**
 * Starts the pdf-to-markdown CLI (plugins/markdown/pdf-to-markdown/cli.ts) compiled to one ES module in
 * .build/, so a small PDF is converted in well under a second: starting tsx and compiling the sources on
 * every run cost more than the conversion. The build (esbuild, which tsx ships, about 0.1 s) is
 * redone whenever a source it was made from is newer than it, so an edit never runs stale code.
 */
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const out = join(root, '.build', 'pdf-to-markdown.mjs');
const inputsFile = `${out}.inputs.json`;

function stale() {
  if (!existsSync(out) || !existsSync(inputsFile)) return true;
  const built = statSync(out).mtimeMs;
  return JSON.parse(readFileSync(inputsFile, 'utf8')).some(
    (input) => !existsSync(join(root, input)) || statSync(join(root, input)).mtimeMs > built,
  );
}

if (stale()) {
  const { buildSync } = await import('esbuild');
  const { metafile } = buildSync({
    absWorkingDir: root,
    entryPoints: ['plugins/markdown/pdf-to-markdown/cli.ts'],
    // Built aside and renamed into place: two runs starting at once never load a half-written file.
    outfile: `${out}.${process.pid}.mjs`,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    metafile: true,
    logLevel: 'error',
  });
  writeFileSync(`${inputsFile}.${process.pid}`, JSON.stringify(Object.keys(metafile.inputs)));
  renameSync(`${out}.${process.pid}.mjs`, out);
  renameSync(`${inputsFile}.${process.pid}`, inputsFile);
}
await import(pathToFileURL(out).href);
