/**
 * scripts/build-app.mjs, the compiled tree `npm start` runs: every production module and every
 * asset found through `import.meta.url` is where the compiled code looks for it, no test code is
 * shipped, and a second run with unchanged sources reuses the build.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers.js';

async function build(): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [path.join(ROOT, 'scripts/build-app.mjs')], {
    cwd: ROOT,
  });
  return stdout.trim();
}

describe('scripts/build-app.mjs', () => {
  it('compiles the sources beside their assets, and reuses a build of the same sources', async () => {
    const dir = await build();
    expect(path.basename(dir)).toMatch(/^app-[0-9a-f]{16}$/);
    for (const file of [
      'apps/server/main.js',
      'apps/worker/main.js',
      'core/engines/execution/sandbox/child.js',
      'plugins/image/index.js',
      'plugins/image/resize/run.js',
      // Assets the compiled modules find through import.meta.url.
      'core/engines/imagemagick-policy/policy.xml',
      'core/engines/pandoc-no-external.lua',
      'core/engines/ghostscript-cidfmap/cidfmap',
      'core/engines/execution/uno-bridge.py',
      'schema/schema.graphql',
    ])
      expect(existsSync(path.join(dir, file)), file).toBe(true);
    expect(realpathSync(path.join(dir, 'apps/web/dist'))).toBe(realpathSync(path.join(ROOT, 'apps/web/dist')));
    // Plain JavaScript: no type left for Node to choke on.
    expect(readFileSync(path.join(dir, 'core/contract/modules.js'), 'utf8')).not.toMatch(/: string\)/);
    // Tests and test support stay out.
    expect(existsSync(path.join(dir, 'core/contract/testing'))).toBe(false);
    expect(existsSync(path.join(dir, 'apps/server/multipart.test.js'))).toBe(false);

    expect(await build()).toBe(dir);
    expect(realpathSync(path.join(ROOT, '.build/app'))).toBe(realpathSync(dir));
  });
});
