/**
 * DATA_DIR's file system full, on a real server process over HTTP, with DATA_DIR on a 64 MB tmpfs: a 100 MB upload
 * is answered 507 and leaves nothing behind; with the disk full, /readyz says the disk is low (not ready) and a tiny
 * PNG conversion is answered 507 (or its job fails with its credits back); once space is freed, the same conversion
 * is done and its output downloads with the right pixels, and /readyz is back to ok, without a restart.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, open, rm, statfs } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminWith,
  download,
  getJson,
  spawnServer,
  stopProcess,
  submitConvert,
  waitForJob,
  type ChildServer,
} from './helpers.js';

const MB = 1024 * 1024;
const MIN_FREE_MB = 16;

let mountPoint: string;
let mounted = false;
let server: ChildServer | undefined;
let key: string;
let env: Record<string, string>;

const freeMb = async () => {
  const { bavail, bsize } = await statfs(mountPoint);
  return (bavail * bsize) / MB;
};

/** Fills the file system to its last block with one file; returns its path. */
async function fillDisk(): Promise<string> {
  const filler = path.join(mountPoint, 'filler.bin');
  const file = await open(filler, 'w');
  try {
    for (const size of [MB, 4096]) {
      const chunk = Buffer.alloc(size, 1);
      try {
        for (;;) await file.write(chunk);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      }
    }
  } finally {
    await file.close().catch(() => undefined);
  }
  return filler;
}

const readyz = async () => {
  const res = await fetch(`${server!.url}/readyz`);
  return { status: res.status, body: (await res.json()) as { status: string; checks: Record<string, string> } };
};

const credits = async () =>
  (await getJson(`${server!.url}/api/v1/credits`, key)).body as { creditsUsed: number; creditsRemaining: number };

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('this test mounts a tmpfs: run it as root (as CI and docker do)');
  mountPoint = await mkdtemp(path.join(os.tmpdir(), 'transmute-disk-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', mountPoint]);
  mounted = true;
  env = { DATA_DIR: path.join(mountPoint, 'data'), DISK_MIN_FREE_MB: String(MIN_FREE_MB), WORKERS: '1' };
  const created = await adminWith(env, 'create-key', '--plan', 'enterprise');
  expect(created.code).toBe(0);
  key = created.result.key as string;
  server = await spawnServer(env);
}, 120_000);

afterAll(async () => {
  if (server) await stopProcess(server.process);
  if (mounted) execFileSync('umount', ['-l', mountPoint]);
  if (mountPoint) await rm(mountPoint, { recursive: true, force: true });
}, 60_000);

describe('DATA_DIR full', () => {
  let redPng: Buffer;
  beforeAll(async () => {
    redPng = await sharp({ create: { width: 32, height: 24, channels: 3, background: '#ff0000' } })
      .png()
      .toBuffer();
  });

  it('answers a 100 MB upload 507 with a clear error, and keeps nothing of it', { timeout: 120_000 }, async () => {
    expect((await readyz()).body.checks.disk).toBe('ok');
    const before = await freeMb();
    const big = await submitConvert(
      server!.url,
      key,
      { name: 'big.txt', data: Buffer.alloc(100 * MB, 'a') },
      {
        to: 'md',
      },
    );
    expect(big.status).toBe(507);
    expect(big.body).toEqual({ error: expect.stringMatching(/disk is full/), code: 'insufficient_storage' });
    expect(big.body.error).not.toMatch(/\/|ENOSPC/);
    // The partial upload is gone: the space is back.
    expect(await freeMb()).toBeGreaterThan(before - 2);
  });

  it('with the disk full: /readyz says low and not ready, a conversion is 507 or failed and refunded', {
    timeout: 120_000,
  }, async () => {
    const filler = await fillDisk();
    try {
      const low = await readyz();
      expect(low.status).toBe(503);
      expect(low.body.status).toBe('not ready');
      expect(low.body.checks.disk).toMatch(/^low: \d+ MB free$/);

      const spentBefore = (await credits()).creditsUsed;
      const small = await submitConvert(server!.url, key, { name: 'red.png', data: redPng }, { to: 'jpg' });
      if (small.status === 200) {
        const job = await waitForJob(server!.url, key, small.body.jobId as string);
        expect(job.status).toBe('failed');
        expect((await credits()).creditsUsed).toBe(spentBefore);
      } else {
        expect(small.status).toBe(507);
        expect(small.body.error).toMatch(/disk is full/);
      }
    } finally {
      await rm(filler, { force: true });
    }
  });

  it('recovers by itself once space is back: the conversion is done and its output is right', {
    timeout: 120_000,
  }, async () => {
    const ready = await readyz();
    expect(ready.body.checks.disk).toBe('ok');
    const accepted = await submitConvert(server!.url, key, { name: 'red.png', data: redPng }, { to: 'jpg' });
    expect(accepted.status).toBe(200);
    const job = await waitForJob(server!.url, key, accepted.body.jobId as string);
    expect(job).toMatchObject({ status: 'done' });
    const output = await download(job.downloadUrl!);
    expect(output.status).toBe(200);
    const { data, info } = await sharp(output.data).raw().toBuffer({ resolveWithObject: true });
    expect({ width: info.width, height: info.height, format: (await sharp(output.data).metadata()).format }).toEqual({
      width: 32,
      height: 24,
      format: 'jpeg',
    });
    // Red, within JPEG's loss.
    expect(data[0]!).toBeGreaterThan(230);
    expect(data[1]!).toBeLessThan(30);
    expect(data[2]!).toBeLessThan(30);
  });
});
