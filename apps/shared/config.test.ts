import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, trustProxySetting } from './config.js';

describe('TRUST_PROXY', () => {
  it('trusts no proxy unless told: a client could otherwise choose its own address', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(trustProxySetting('')).toBe(false);
    expect(trustProxySetting('false')).toBe(false);
    expect(trustProxySetting('0')).toBe(false);
  });

  it("takes every hop or the proxies' addresses", () => {
    expect(trustProxySetting('true')).toBe(true);
    expect(trustProxySetting(' 10.0.0.0/8,127.0.0.1 ')).toBe('10.0.0.0/8,127.0.0.1');
  });
});

describe('scale-out settings', () => {
  const secret = { TOKEN_SECRET: 'x'.repeat(44) };

  it('PostgreSQL mode needs a bucket and the shared token secret, and excludes MongoDB', () => {
    expect(() => loadConfig({ POSTGRES_URL: 'postgres://db/transmute', ...secret })).toThrow(
      /S3_BUCKET: required when POSTGRES_URL is set/,
    );
    expect(() => loadConfig({ POSTGRES_URL: 'postgres://db/transmute', S3_BUCKET: 'files' })).toThrow(
      /TOKEN_SECRET: required when POSTGRES_URL is set/,
    );
    expect(() =>
      loadConfig({ POSTGRES_URL: 'postgres://db/t', MONGODB_URL: 'mongodb://db/t', S3_BUCKET: 'files', ...secret }),
    ).toThrow(/not both/);
    expect(() => loadConfig({ POSTGRES_URL: 'mysql://db/t', S3_BUCKET: 'files', ...secret })).toThrow(/postgres:\/\//);
    expect(() => loadConfig({ S3_BUCKET: 'files', S3_ACCESS_KEY_ID: 'id' })).toThrow(/go together/);
  });

  it('reads the bucket settings, empty meaning unset', () => {
    const config = loadConfig({
      POSTGRES_URL: 'postgresql://u:p@db:5432/transmute',
      S3_BUCKET: 'files',
      S3_ENDPOINT: 'http://minio:9000',
      S3_ACCESS_KEY_ID: 'id',
      S3_SECRET_ACCESS_KEY: 'secret',
      S3_FORCE_PATH_STYLE: '1',
      MONGODB_URL: '',
      ...secret,
    });
    expect(config.postgresUrl).toBe('postgresql://u:p@db:5432/transmute');
    expect(config.s3).toEqual({
      bucket: 'files',
      region: 'us-east-1',
      endpoint: 'http://minio:9000',
      forcePathStyle: true,
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
    });
    expect(loadConfig({ S3_BUCKET: '', POSTGRES_URL: '' }).s3).toBeUndefined();
    expect(loadConfig({ S3_BUCKET: 'files' }).s3).toEqual({
      bucket: 'files',
      region: 'us-east-1',
      forcePathStyle: false,
    });
  });
});

describe('engine paths', () => {
  it("read each engine's override, and CHROMIUM_PATH under its name from before the headless shell", () => {
    expect(loadConfig({ GS_PATH: '/opt/gs/bin/gs' }).enginePaths).toMatchObject({ gs: '/opt/gs/bin/gs' });
    expect(loadConfig({ CHROMIUM_PATH: '/opt/chromium' }).enginePaths).toMatchObject({
      'chromium-headless-shell': '/opt/chromium',
    });
    const both = { CHROMIUM_PATH: '/opt/old', CHROMIUM_HEADLESS_SHELL_PATH: '/opt/shell' };
    expect(loadConfig(both).enginePaths).toMatchObject({ 'chromium-headless-shell': '/opt/shell' });
  });
});

describe('FONTS_DIR', () => {
  it('is an existing folder, made absolute; empty or unset means the installed fonts only', () => {
    expect(loadConfig({}).fontsDir).toBeUndefined();
    expect(loadConfig({ FONTS_DIR: '' }).fontsDir).toBeUndefined();
    expect(loadConfig({ FONTS_DIR: 'core' }).fontsDir).toBe(path.resolve('core'));
    expect(() => loadConfig({ FONTS_DIR: '/nonexistent/fonts' })).toThrow(/FONTS_DIR: must be an existing folder/);
    expect(() => loadConfig({ FONTS_DIR: 'package.json' })).toThrow(/FONTS_DIR: must be an existing folder/);
  });
});

describe('RETENTION_S', () => {
  it("keeps files the spec's hour less a purge interval by default, shorter when told, never longer", () => {
    expect(loadConfig({}).retentionMs).toBe(59 * 60_000);
    expect(loadConfig({ RETENTION_S: '90' }).retentionMs).toBe(90_000);
    expect(() => loadConfig({ RETENTION_S: '3600' })).toThrow(/RETENTION_S/);
    expect(() => loadConfig({ RETENTION_S: '5' })).toThrow(/RETENTION_S/);
  });
});

describe('UPLOAD_IDLE_S and UPLOAD_MAX_S', () => {
  it('bound a request body: a minute without a byte, 45 minutes whole, by default', () => {
    expect(loadConfig({})).toMatchObject({ uploadIdleMs: 60_000, uploadMaxMs: 45 * 60_000 });
    expect(loadConfig({ UPLOAD_IDLE_S: '5', UPLOAD_MAX_S: '90' })).toMatchObject({
      uploadIdleMs: 5000,
      uploadMaxMs: 90_000,
    });
    expect(() => loadConfig({ UPLOAD_IDLE_S: '0' })).toThrow(/UPLOAD_IDLE_S/);
  });

  it("refuses a deadline past which an upload no job took could outlive the spec's hour", () => {
    expect(loadConfig({ UPLOAD_MAX_S: '3120' }).uploadMaxMs).toBe(3120_000);
    expect(() => loadConfig({ UPLOAD_MAX_S: '3121' })).toThrow(
      /UPLOAD_MAX_S: must be at most 3120: an upload no job took must still be deleted within the hour/,
    );
  });
});
