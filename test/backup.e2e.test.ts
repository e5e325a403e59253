/**
 * Backup and restore of the embedded mode through the admin CLI, around real server processes: accounts, keys, jobs
 * and history made over HTTP, `backup DIR` while the server runs (and a job is being accepted), `restore DIR` refused
 * on a running service's DATA_DIR and on a non-empty one, then filling a fresh DATA_DIR; a server started on it finds
 * the accounts, the old API key still authenticates, history and credits are intact, and unexpired outputs download
 * with their content.
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
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

const CSV = 'city,note\r\nZürich,backed up and restored\r\n';
const root: string[] = [];
const servers: ChildServer[] = [];

const tempDir = async (name: string) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), `transmute-${name}-`));
  root.push(dir);
  return dir;
};

afterAll(async () => {
  await Promise.all(servers.map((server) => stopProcess(server.process)));
  await Promise.all(root.map((dir) => rm(dir, { recursive: true, force: true })));
}, 60_000);

let redPng: Buffer;
beforeAll(async () => {
  redPng = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#ff0000' } })
    .png()
    .toBuffer();
});

async function isRedJpeg(data: Buffer): Promise<boolean> {
  const { data: pixels, info } = await sharp(data).raw().toBuffer({ resolveWithObject: true });
  const [r, g, b] = [pixels[0]!, pixels[1]!, pixels[2]!];
  return info.width === 40 && info.height === 30 && r > 230 && g < 30 && b < 30;
}

it('backs up a running embedded service and restores it into a fresh DATA_DIR, keys and outputs intact', {
  timeout: 300_000,
}, async () => {
  const dataDir = path.join(await tempDir('backup-source'), 'data');
  const env = { DATA_DIR: dataDir, WORKERS: '1' };
  const pro = await adminWith(env, 'create-key', '--plan', 'pro', '--email', 'backup@example.com');
  const free = await adminWith(env, 'create-key', '--plan', 'free');
  expect([pro.code, free.code]).toEqual([0, 0]);
  const key = pro.result.key as string;
  const api = await spawnServer(env);
  servers.push(api);

  const image = await submitConvert(api.url, key, { name: 'red.png', data: redPng }, { to: 'jpg' });
  const note = await submitConvert(api.url, key, { name: 'cities.csv', data: CSV }, { to: 'json' });
  expect([image.status, note.status]).toEqual([200, 200]);
  const jobs = [image.body.jobId as string, note.body.jobId as string];
  for (const id of jobs) expect(await waitForJob(api.url, key, id)).toMatchObject({ status: 'done' });
  const history = (await getJson(`${api.url}/api/v1/history`, key)).body;
  expect(history.total).toBe(2);
  const credits = (await getJson(`${api.url}/api/v1/credits`, key)).body;
  const keys = (await adminWith(env, 'list-keys', '--account', pro.result.accountId)).result;
  const account = (await adminWith(env, 'find-account', '--email', 'backup@example.com')).result;

  // Backed up while the server runs and a job is being accepted.
  const backupDir = path.join(await tempDir('backup'), 'copy');
  const [backup, during] = await Promise.all([
    adminWith(env, 'backup', backupDir),
    submitConvert(api.url, key, { name: 'during.csv', data: CSV }, { to: 'json' }),
  ]);
  expect(during.status).toBe(200);
  expect(backup.code).toBe(0);
  expect(backup.result).toMatchObject({ backup: backupDir, missingBlobs: 0, secretKey: true });
  expect(backup.result.blobs).toBeGreaterThanOrEqual(2);
  expect((await stat(backupDir)).mode & 0o777).toBe(0o700);
  expect(await adminWith(env, 'backup', backupDir)).toMatchObject({
    code: 1,
    result: { error: expect.stringMatching(/not empty/) },
  });

  // A restore onto the running service's DATA_DIR is refused, saying why.
  expect(await adminWith(env, 'restore', backupDir)).toMatchObject({
    code: 1,
    result: { error: expect.stringMatching(/server is running .*stop the service/) },
  });
  await waitForJob(api.url, key, during.body.jobId as string);
  await stopProcess(api.process);
  expect(await adminWith(env, 'restore', backupDir)).toMatchObject({
    code: 1,
    result: { error: expect.stringMatching(/not empty/) },
  });

  const restoredDir = path.join(await tempDir('backup-restored'), 'data');
  const restoredEnv = { DATA_DIR: restoredDir, WORKERS: '1' };
  const restore = await adminWith(restoredEnv, 'restore', backupDir);
  expect(restore.code).toBe(0);
  expect(restore.result).toMatchObject({
    restored: restoredDir,
    from: backupDir,
    blobs: backup.result.blobs,
    secretKey: true,
  });
  expect(await readdir(restoredDir)).toEqual(expect.arrayContaining(['transmute.db', 'blobs', 'secret-key']));

  const restored = await spawnServer(restoredEnv);
  servers.push(restored);
  // The old key authenticates; the account's credits and history are as they were at the backup.
  const after = await getJson(`${restored.url}/api/v1/credits`, key);
  expect(after.status).toBe(200);
  expect(after.body.creditsUsed).toBeGreaterThanOrEqual(credits.creditsUsed);
  const restoredHistory = (await getJson(`${restored.url}/api/v1/history`, key)).body;
  expect(restoredHistory.history.map((h: { jobId: string }) => h.jobId)).toEqual(
    expect.arrayContaining(history.history.map((h: { jobId: string }) => h.jobId)),
  );
  expect((await adminWith(restoredEnv, 'list-keys', '--account', pro.result.accountId)).result).toEqual(keys);
  expect((await adminWith(restoredEnv, 'find-account', '--email', 'backup@example.com')).result).toEqual(account);

  // Unexpired outputs download, with their content.
  const [imageJob, noteJob] = await Promise.all(jobs.map((id) => waitForJob(restored.url, key, id)));
  const picture = await download(imageJob!.downloadUrl!);
  expect(picture.status).toBe(200);
  expect(await isRedJpeg(picture.data)).toBe(true);
  const text = await download(noteJob!.downloadUrl!);
  expect(text.status).toBe(200);
  expect(JSON.parse(text.data.toString('utf8'))).toEqual([{ city: 'Zürich', note: 'backed up and restored' }]);

  // And it works on: a new job on the restored service.
  const next = await submitConvert(restored.url, key, { name: 'red.png', data: redPng }, { to: 'jpg' });
  const done = await waitForJob(restored.url, key, next.body.jobId as string);
  expect(await isRedJpeg((await download(done.downloadUrl!)).data)).toBe(true);
});
