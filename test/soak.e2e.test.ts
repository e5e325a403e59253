/**
 * The fault-injection soak (test/soak/, docs/SCALE-OUT.md) at the size CI affords: `npm run soak -- --minutes 3`,
 * 2 APIs and 2 workers on PostgreSQL + S3 under load and random faults, then the invariant check. Its seed is
 * printed first, so a failure here can be replayed with `npm run soak -- --minutes 3 --seed S --keep`.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from './helpers.js';

it('3 minutes of mixed load under random faults: 0 invariant violations', { timeout: 40 * 60_000 }, async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/soak/main.ts'), '--minutes', '3'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    process.stdout.write(chunk);
  });
  // Bounded: the soak ends itself (drain and webhook waits are bounded); this is the backstop.
  const killer = setTimeout(() => child.kill('SIGKILL'), 38 * 60_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(killer);
  const lines = out.trim().split('\n');
  expect(lines[0]).toMatch(/^seed=\d+$/);
  const violations = lines.filter((line) => line.startsWith('VIOLATION'));
  expect(violations, out.slice(-4000)).toEqual([]);
  expect(lines.at(-1)).toBe('0 invariant violations');
  expect(code).toBe(0);
});
