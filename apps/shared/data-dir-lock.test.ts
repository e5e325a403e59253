import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockDataDirForApi } from './data-dir-lock.js';

describe('lockDataDirForApi', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'transmute-lock-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('refuses a second API server on the DATA_DIR until the first releases it', () => {
    const first = lockDataDirForApi(dataDir);
    expect(() => lockDataDirForApi(dataDir)).toThrow(/Another Transmute server is serving/);
    first.release();
    lockDataDirForApi(dataDir).release();
  });

  it('holds against another process, and is free again once that process is gone', async () => {
    const lock = lockDataDirForApi(dataDir);
    const script = `import('${path.resolve('apps/shared/data-dir-lock.ts')}').then((m) => {
      try { m.lockDataDirForApi(process.argv[1]); console.log('locked'); } catch (e) { console.log('refused'); }
    })`;
    const other = () =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', '-e', script, dataDir]).then((r) => r.stdout.trim());
    expect(await other()).toBe('refused');
    lock.release();
    // The child took the lock and exited without releasing it: the system dropped it.
    expect(await other()).toBe('locked');
    lockDataDirForApi(dataDir).release();
  });
});
