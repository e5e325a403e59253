/**
 * Download links are stored as hashes only: a done job's downloadUrl works and is the same at
 * every poll (across a restart too), yet no byte of the data dir (SQLite file, WAL, blobs) holds
 * its token; 15 minutes after completion the poll shows no link and the URL is refused.
 */
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock, download, getJson, startServer, submitConvert, waitForJob, type TestServer } from './helpers.js';

async function allFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

describe('download links in the database', () => {
  const clock = new TestClock(new Date('2027-03-01T09:00:00Z'));
  let dataDir: string;
  let server: TestServer;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'transmute-links-'));
    server = await startServer({ clock, dataDir });
  });
  afterAll(async () => {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('serve a working link that no file in the data dir contains, then expire it after 15 minutes', {
    timeout: 120_000,
  }, async () => {
    const key = await server.createKey('pro');
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#00ff00' } })
      .png()
      .toBuffer();
    const accepted = await submitConvert(server.url, key, { name: 'green.png', data: png }, { to: 'webp' });
    expect(accepted.status).toBe(200);
    const jobId: string = accepted.body.jobId;
    const job = await waitForJob(server.url, key, jobId);
    expect(job).toMatchObject({ status: 'done', expiresIn: 900 });
    const token = /\/api\/download\/([A-Za-z0-9_-]{43})$/.exec(job.downloadUrl!)![1]!;
    expect((await getJson(`${server.url}/api/v1/jobs/${jobId}`, key)).body).toEqual(job);

    // A leaked data dir: the database, its WAL, blobs. The job is there; its token is not.
    const files = await allFiles(dataDir);
    expect(files.map((f) => path.basename(f))).toEqual(expect.arrayContaining(['transmute.db', 'secret-key']));
    const database = Buffer.concat(
      await Promise.all(files.filter((f) => path.basename(f).startsWith('transmute.db')).map((f) => readFile(f))),
    );
    expect(database.includes(jobId), 'the search reads the job rows').toBe(true);
    for (const file of files) expect((await readFile(file)).includes(token), `token found in ${file}`).toBe(false);
    expect((await stat(path.join(dataDir, 'secret-key'))).mode & 0o777).toBe(0o600);

    for (let i = 0; i < 2; i++) {
      const got = await download(job.downloadUrl!);
      expect(got.status).toBe(200);
      expect((await sharp(got.data).metadata()).format).toBe('webp');
    }

    // Another process on this DATA_DIR (here: the server restarted) derives the same link.
    await server.close();
    server = await startServer({ clock, dataDir });
    const again = await getJson(`${server.url}/api/v1/jobs/${jobId}`, key);
    expect(again.body).toEqual({ ...job, downloadUrl: job.downloadUrl!.replace(/^http:\/\/[^/]+/, server.url) });
    expect((await download(again.body.downloadUrl)).status).toBe(200);

    clock.advance(15 * 60_000);
    try {
      expect((await getJson(`${server.url}/api/v1/jobs/${jobId}`, key)).body).toEqual({ status: 'done' });
      expect((await download(again.body.downloadUrl)).status).toBe(404);
    } finally {
      clock.advance(-15 * 60_000);
    }
  });
});
