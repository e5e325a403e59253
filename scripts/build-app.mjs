#!/usr/bin/env node
/**
 * Compiles the server, the worker and everything they import (apps, core, plugins, schema) to
 * JavaScript, one file per TypeScript file (no bundling), into .build/app-<hash>/ with the same
 * relative paths; prints that directory. `npm start` and `npm run worker` run the compiled files:
 * through tsx, the API process also kept tsx's module hooks thread and its transforms in memory
 * (README, "Memory of the API process").
 *
 * Assets found through `import.meta.url` (the ImageMagick policy, the pandoc Lua filter,
 * uno-bridge.py, schema.graphql) are copied beside the compiled files, and apps/web/dist is linked.
 *
 * <hash> is the digest of the sources: nothing is rebuilt when it already exists (a run then costs
 * the reading of the sources, well under a second), an edit makes a new directory (a process still
 * running the old code keeps its files), and processes building at once agree. .build/app links
 * to the latest build (the Docker image runs it); builds older than a day are removed.
 *
 * `node scripts/build-app.mjs`: builds if needed, prints the build's directory.
 */
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const buildRoot = join(root, '.build');
const SOURCE_DIRS = ['apps', 'core', 'plugins', 'schema'];
/** The web app is built by Vite (apps/web/dist, linked below), not here. */
const SKIPPED = new Set(['apps/web', 'node_modules']);
const DAY_MS = 24 * 60 * 60 * 1000;

/** Production files: tests, test support (testing/ folders) and docs are left out. */
function sourceFiles(dir, found = []) {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const file = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name !== 'testing' && !SKIPPED.has(file)) sourceFiles(file, found);
    } else if (entry.isFile() && !/\.test\.ts$|\.d\.ts$|\.md$/.test(entry.name)) {
      found.push(file);
    }
  }
  return found;
}

/** Builds the sources when no build of them exists; returns the build's directory. */
export async function buildApp() {
  const files = SOURCE_DIRS.flatMap((dir) => sourceFiles(dir)).sort();
  const hash = createHash('sha256');
  // The compiler and this script decide the output too.
  hash.update(readFileSync(fileURLToPath(import.meta.url)));
  hash.update(readFileSync(join(root, 'package-lock.json')));
  for (const file of files) hash.update(`\0${file}\0`).update(readFileSync(join(root, file)));
  const out = join(buildRoot, `app-${hash.digest('hex').slice(0, 16)}`);
  if (existsSync(out))
    utimesSync(out, new Date(), new Date()); // in use: not old
  else await build(files, out);
  link(out);
  removeOldBuilds(out);
  return out;
}

async function build(files, out) {
  // Built aside and renamed into place: a process starting meanwhile never sees half a build.
  const staging = `${out}.${process.pid}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  const { build: esbuild } = await import('esbuild');
  await esbuild({
    absWorkingDir: root,
    entryPoints: files.filter((file) => file.endsWith('.ts')),
    outdir: staging,
    outbase: '.',
    bundle: false,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // For `node --enable-source-maps` when a stack trace must point at the TypeScript.
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'error',
  });
  for (const file of files.filter((f) => !f.endsWith('.ts'))) {
    mkdirSync(dirname(join(staging, file)), { recursive: true });
    copyFileSync(join(root, file), join(staging, file));
  }
  // apps/server/web.ts serves ../web/dist; relative, so the link holds in a copied tree (Docker).
  mkdirSync(join(staging, 'apps/web'), { recursive: true });
  symlinkSync(relative(join(out, 'apps/web'), join(root, 'apps/web/dist')), join(staging, 'apps/web/dist'));
  try {
    renameSync(staging, out);
  } catch (err) {
    // Another process built the same sources first.
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(out)) throw err;
  }
}

/** .build/app -> the latest build, replaced in one rename. */
function link(out) {
  const temporary = join(buildRoot, `app.${process.pid}.link`);
  rmSync(temporary, { force: true });
  symlinkSync(relative(buildRoot, out), temporary);
  renameSync(temporary, join(buildRoot, 'app'));
}

function removeOldBuilds(current) {
  for (const name of readdirSync(buildRoot)) {
    const dir = join(buildRoot, name);
    if (!name.startsWith('app-') || dir === current) continue;
    try {
      if (Date.now() - statSync(dir).mtimeMs > DAY_MS) rmSync(dir, { recursive: true, force: true });
    } catch {
      // removed by another process meanwhile
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(`${await buildApp()}\n`);
