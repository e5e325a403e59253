/**
 * The lint gate (issue 23): Biome's format and lint checks over the whole tree (`biome ci .` with
 * biome.json), inside `npm test`, so a finding fails CI like any failing test and is counted in
 * its summary. Fix locally with `npx biome check --write <files>` (or `npm run lint`).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIOME = path.join(ROOT, 'node_modules/.bin/biome');

it('biome ci finds nothing to format and no lint finding in the whole tree', async () => {
  const { code, output } = await promisify(execFile)(BIOME, ['ci', '.', '--colors=off', '--max-diagnostics=none'], {
    cwd: ROOT,
    maxBuffer: 256 * 1024 * 1024,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, output: `${stdout}${stderr}` }),
    (err: { code?: number | string; stdout?: string; stderr?: string }) => ({
      code: err.code ?? 'failed',
      output: `${err.stdout ?? ''}${err.stderr ?? ''}`,
    }),
  );
  expect(code, `biome ci reported findings:\n${output}`).toBe(0);
}, 300_000);
