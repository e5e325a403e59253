/** The download-link secret: TOKEN_SECRET in config, or DATA_DIR/secret-key in embedded mode. */
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { SECRET_KEY_FILE, dataDirSecret } from './secret-key.js';

describe('TOKEN_SECRET', () => {
  it('is optional in embedded mode and must be at least 32 bytes when given', () => {
    expect(loadConfig({}).tokenSecret).toBeUndefined();
    expect(loadConfig({ TOKEN_SECRET: '' }).tokenSecret).toBeUndefined();
    expect(loadConfig({ TOKEN_SECRET: 's'.repeat(32) }).tokenSecret).toBe('s'.repeat(32));
    expect(() => loadConfig({ TOKEN_SECRET: 's'.repeat(31) })).toThrow(/TOKEN_SECRET: must be at least 32 bytes/);
  });

  it('is required in distributed mode, with a start-up error that says why', () => {
    expect(() => loadConfig({ MONGODB_URL: 'mongodb://db/transmute' })).toThrow(
      /TOKEN_SECRET: required when MONGODB_URL is set/,
    );
    expect(loadConfig({ MONGODB_URL: 'mongodb://db/transmute', TOKEN_SECRET: 's'.repeat(44) }).tokenSecret).toBe(
      's'.repeat(44),
    );
  });
});

describe('dataDirSecret', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = path.join(await mkdtemp(path.join(os.tmpdir(), 'transmute-secret-')), 'data');
  });
  afterEach(async () => {
    await rm(path.dirname(dataDir), { recursive: true, force: true });
  });

  it('creates a 256-bit secret readable by the owner only, and reuses it', async () => {
    const secret = await dataDirSecret(dataDir);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await stat(path.join(dataDir, SECRET_KEY_FILE))).mode & 0o777).toBe(0o600);
    expect(await dataDirSecret(dataDir)).toBe(secret);
    expect(await readdir(dataDir)).toEqual([SECRET_KEY_FILE]);
  });

  it('gives processes starting together on one DATA_DIR the same secret', async () => {
    const secrets = await Promise.all(Array.from({ length: 8 }, () => dataDirSecret(dataDir)));
    expect(new Set(secrets).size).toBe(1);
    expect(await readdir(dataDir)).toEqual([SECRET_KEY_FILE]);
  });

  it('refuses a file too short to be a secret', async () => {
    await dataDirSecret(dataDir);
    await writeFile(path.join(dataDir, SECRET_KEY_FILE), 'short\n');
    await expect(dataDirSecret(dataDir)).rejects.toThrow(/fewer than 32 bytes/);
  });
});
