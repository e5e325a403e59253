/** The embedded runtime of an API server and its DATA_DIR lock (apps/shared/data-dir-lock.ts). */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { lockDataDirForApi } from './data-dir-lock.js';
import { createRuntime } from './runtime.js';

const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

describe('createRuntime, embedded, serving the API', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'transmute-runtime-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('lets the DATA_DIR go when closing fails half-way', async () => {
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', WORKERS: '0', OFFICE_POOL_WARM: '0' });
    const runtime = await createRuntime({ config, log: silent, plugins: [], servesApi: true });
    expect(() => lockDataDirForApi(dataDir)).toThrow(/Another Transmute server is serving/);
    const close = runtime.store.close.bind(runtime.store);
    runtime.store.close = async () => {
      await close();
      throw new Error('closing failed');
    };
    await expect(runtime.close()).rejects.toThrow('closing failed');
    lockDataDirForApi(dataDir).release();
  });
});
