/**
 * The one plugin shape, checked on the files themselves:
 *
 *   plugins/<family>/index.ts              the family list only
 *   plugins/<family>/shared/               what the family shares (family.ts: its descriptor)
 *   plugins/<family>/testing/              test support only
 *   plugins/<family>/<plugin>/index.ts     the manifest (a named export), the only place `definePlugin(` appears
 *   plugins/<family>/<plugin>/run.ts       the run code, loaded by the manifest's `run` with `await import('./run.js')`
 *
 * A manifest's static imports (followed through the repository) reach no engine library, so the API
 * server, the worker and the CLI read every manifest without loading sharp, exceljs or pdfjs.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGINE_LIBRARIES } from '../test/testing/plugin-shape.js';

const PLUGINS = import.meta.dirname;
const ROOT = path.dirname(PLUGINS);

/** Folders of a family that are not plugins. */
const FAMILY_FOLDERS = new Set(['shared', 'testing']);
/** Names that mark a file as test support (it belongs in a testing/ folder). */
const TEST_SUPPORT = /^(fixtures?|testing|test-.+|.+\.fixtures?|.+-fixtures?)\.ts$/;

const families = readdirSync(PLUGINS).filter((name) => statSync(path.join(PLUGINS, name)).isDirectory());

function filesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .map((file) => path.join(dir, file))
    .filter((file) => file.endsWith('.ts') && statSync(file).isFile());
}

const relative = (file: string) => path.relative(ROOT, file);

/** A manifest's place: plugins/<family>/<plugin>/index.ts, <plugin> being neither shared nor testing. */
function isManifestPath(file: string): boolean {
  const parts = path.relative(PLUGINS, file).split(path.sep);
  return parts.length === 3 && parts[2] === 'index.ts' && !FAMILY_FOLDERS.has(parts[1]!);
}

/** Specifiers of the imports and re-exports that load at run time (`import type` is erased). */
function staticImports(source: string): string[] {
  const specifiers: string[] = [];
  for (const match of source.matchAll(/^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm)) {
    if (!match[2]) specifiers.push(match[3]!);
  }
  return specifiers;
}

function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Engine libraries that importing `file` loads, with the chain of repository files that leads to each. */
function engineLibrariesReached(file: string): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  const walk = (current: string, chain: string[]) => {
    if (seen.has(current)) return;
    seen.add(current);
    for (const specifier of staticImports(readFileSync(current, 'utf8'))) {
      if (specifier.startsWith('.')) {
        const target = path.resolve(path.dirname(current), specifier.replace(/\.js$/, '.ts'));
        walk(target, [...chain, relative(target)]);
      } else if (ENGINE_LIBRARIES.includes(packageOf(specifier))) {
        found.push(`${specifier} via ${chain.join(' -> ')}`);
      }
    }
  };
  walk(file, [relative(file)]);
  return found;
}

describe('the plugin shape', () => {
  it.each(families)('%s: a family index.ts that defines no plugin', (family) => {
    const index = path.join(PLUGINS, family, 'index.ts');
    expect(() => statSync(index), `${relative(index)} is missing`).not.toThrow();
    expect(readFileSync(index, 'utf8')).not.toContain('definePlugin(');
  });

  it.each(families)('%s: definePlugin( only in <plugin>/index.ts, as a named export', (family) => {
    const misplaced = filesUnder(path.join(PLUGINS, family))
      .filter((file) => readFileSync(file, 'utf8').includes('definePlugin('))
      .filter((file) => !isManifestPath(file))
      .map(relative);
    expect(misplaced).toEqual([]);
    const manifests = filesUnder(path.join(PLUGINS, family)).filter(isManifestPath);
    expect(manifests.length).toBeGreaterThan(0);
    for (const manifest of manifests) {
      const source = readFileSync(manifest, 'utf8');
      expect(source, `${relative(manifest)} defines no plugin`).toContain('definePlugin(');
      expect(source, `${relative(manifest)} has a default export`).not.toMatch(/^export default/m);
    }
  });

  it.each(families)('%s: every plugin folder has its manifest', (family) => {
    const folders = readdirSync(path.join(PLUGINS, family)).filter(
      (name) => !FAMILY_FOLDERS.has(name) && statSync(path.join(PLUGINS, family, name)).isDirectory(),
    );
    const withoutManifest = folders.filter((name) => {
      try {
        return !readFileSync(path.join(PLUGINS, family, name, 'index.ts'), 'utf8').includes('definePlugin(');
      } catch {
        return true;
      }
    });
    expect(withoutManifest).toEqual([]);
  });

  it.each(families)('%s: manifests load their run code lazily, and no engine library', (family) => {
    for (const manifest of filesUnder(path.join(PLUGINS, family)).filter(isManifestPath)) {
      const eager = staticImports(readFileSync(manifest, 'utf8')).filter((s) => /(^|\/)run(\.[jt]s)?$/.test(s));
      expect(eager, `${relative(manifest)} imports its run code statically`).toEqual([]);
      expect(engineLibrariesReached(manifest)).toEqual([]);
    }
    expect(engineLibrariesReached(path.join(PLUGINS, family, 'index.ts'))).toEqual([]);
  });

  it.each(families)('%s: test support lives in testing/', (family) => {
    const outside = filesUnder(path.join(PLUGINS, family))
      .filter((file) => TEST_SUPPORT.test(path.basename(file)))
      .filter((file) => !path.relative(PLUGINS, file).split(path.sep).includes('testing'))
      .map(relative);
    expect(outside).toEqual([]);
  });

  it('checks what it should: a manifest importing ./run.js or sharp is caught', () => {
    expect(staticImports("import { run } from './run.js';\nimport type { X } from './run.js';")).toEqual(['./run.js']);
    expect(staticImports("export { a } from './run.js';\nimport sharp from 'sharp';")).toEqual(['./run.js', 'sharp']);
    expect(staticImports("const run = async () => (await import('./run.js')).go();")).toEqual([]);
    expect(isManifestPath(path.join(PLUGINS, 'image', 'resize', 'index.ts'))).toBe(true);
    expect(isManifestPath(path.join(PLUGINS, 'image', 'shared', 'index.ts'))).toBe(false);
    expect(TEST_SUPPORT.test('test-fixtures.ts') && TEST_SUPPORT.test('docx.fixture.ts')).toBe(true);
    expect(TEST_SUPPORT.test('run.ts')).toBe(false);
  });
});
