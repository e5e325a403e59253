/**
 * Export to S3-compatible storage over HTTP, against a real s3rver started
 * here and read back with the AWS SDK: a conversion's output lands with the right bytes and the
 * status carries {status, location, etag}; a pipeline's final output too; bad credentials fail
 * the export with the S3 error and keep the download link; refused endpoints are a 400 at
 * submit; the credentials are nowhere in the data dir. A 200 MB output goes up in flat memory
 * (the server in a child process, its peak RSS read from /proc). A batch's ZIP lands once every
 * job has finished (REST, GraphQL and tRPC), with the outputs the batch download gives. An export
 * whose holder died (kill -9: its lease passed) is failed when a server starts, never left pending.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imagePlugins } from '../plugins/image/index.js';
import { mediaPlugins } from '../plugins/media/index.js';
import { ABANDONED_EXPORT } from '../core/services/exports.js';
import {
  admin,
  authHeaders,
  download,
  freePort,
  getJson,
  spawnServer,
  startServer,
  type TestServer,
  waitForJob,
} from './helpers.js';

const S3rver = createRequire(import.meta.url)('s3rver');
const BUCKET = 'exports';
const SECRET = 'S3RVER';

async function submit(
  url: string,
  key: string,
  fields: Record<string, string>,
  file: { name: string; data: Buffer } | { name: string; path: string },
) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const blob =
    'data' in file ? new Blob([new Uint8Array(file.data)]) : await (await import('node:fs')).openAsBlob(file.path);
  form.append('file', blob, file.name);
  const res = await fetch(url, { method: 'POST', body: form, headers: authHeaders(key) });
  return { status: res.status, body: (await res.json()) as any };
}

async function waitForExport(url: string, key: string, jobId: string): Promise<any> {
  for (let i = 0; i < 600; i++) {
    const { body } = await getJson(`${url}/api/v1/jobs/${jobId}`, key);
    if (body.status === 'failed' || (body.export && (body.export.status === 'done' || body.export.status === 'failed')))
      return body;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('export did not finish');
}

async function waitForBatchExport(url: string, key: string, batchId: string): Promise<any> {
  for (let i = 0; i < 600; i++) {
    const { body } = await getJson(`${url}/api/batch/${batchId}`, key);
    if (body.export && (body.export.status === 'done' || body.export.status === 'failed')) return body;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('batch export did not finish');
}

/** The batch's ZIP, as its download gives it (with the API key). */
async function downloadBatch(downloadUrl: string, key: string): Promise<Buffer> {
  const res = await fetch(downloadUrl, { headers: authHeaders(key) });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** A ZIP's entries by name. */
function zipEntries(zip: Buffer): Record<string, Buffer> {
  return Object.fromEntries(
    Object.entries(unzipSync(new Uint8Array(zip))).map(([name, data]) => [name, Buffer.from(data)]),
  );
}

describe('S3 export', () => {
  let s3: any;
  let s3Dir: string;
  let endpoint: string;
  let client: S3Client;
  let server: TestServer;
  let png: Buffer;
  const exportTo = (key: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      type: 's3',
      bucket: BUCKET,
      key,
      region: 'us-east-1',
      endpoint,
      accessKeyId: 'S3RVER',
      secretAccessKey: SECRET,
      forcePathStyle: true,
      ...extra,
    });
  const fetchObject = async (key: string) =>
    Buffer.from(
      await (await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }))).Body!.transformToByteArray(),
    );

  beforeAll(async () => {
    s3Dir = await mkdtemp(path.join(os.tmpdir(), 's3rver-'));
    const port = await freePort();
    s3 = new S3rver({
      address: '127.0.0.1',
      port,
      silent: true,
      directory: s3Dir,
      configureBuckets: [{ name: BUCKET }],
    });
    await s3.run();
    endpoint = `http://127.0.0.1:${port}`;
    client = new S3Client({
      region: 'us-east-1',
      endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: SECRET },
    });
    png = await sharp({ create: { width: 50, height: 40, channels: 3, background: '#10a040' } })
      .png()
      .toBuffer();
    server = await startServer({ plugins: [...imagePlugins, ...mediaPlugins], env: { IMPORT_ALLOW_PRIVATE: '1' } });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    client?.destroy();
    await s3?.close();
    await rm(s3Dir, { recursive: true, force: true });
  });

  it('uploads a conversion to the bucket: the same bytes as the download, with location and ETag', async () => {
    const key = await server.createKey('pro');
    const submitted = await submit(
      `${server.url}/api/v1/convert`,
      key,
      { to: 'webp', export: exportTo('out/photo.webp') },
      { name: 'photo.png', data: png },
    );
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    const job = await waitForExport(server.url, key, submitted.body.jobId);
    expect(job.status).toBe('done');
    expect(job.export).toMatchObject({ status: 'done', etag: expect.stringMatching(/^"?[0-9a-f]{32}/) });
    expect(job.export.location).toContain('out/photo.webp');
    const stored = await fetchObject('out/photo.webp');
    expect(stored.equals((await download(job.downloadUrl)).data)).toBe(true);
    expect((await sharp(stored).metadata()).format).toBe('webp');
  });

  it('exports the last output of a pipeline', async () => {
    const key = await server.createKey('pro');
    const form = new FormData();
    form.append(
      'pipeline',
      JSON.stringify({
        steps: [{ to: 'jpg' }, { op: 'resize', resize: { width: 25 } }],
        export: JSON.parse(exportTo('pipelines/small.jpg')),
      }),
    );
    form.append('file', new Blob([new Uint8Array(png)]), 'photo.png');
    const res = await fetch(`${server.url}/api/v1/pipelines`, {
      method: 'POST',
      body: form,
      headers: authHeaders(key),
    });
    const accepted = (await res.json()) as any;
    expect(res.status, JSON.stringify(accepted)).toBe(200);
    const job = await waitForExport(server.url, key, accepted.jobId);
    expect(job.export.status).toBe('done');
    const meta = await sharp(await fetchObject('pipelines/small.jpg')).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 25, 20]);
  });

  it('fails the export with the S3 error and keeps the download link when the credentials are wrong', async () => {
    const key = await server.createKey('pro');
    const submitted = await submit(
      `${server.url}/api/v1/convert`,
      key,
      {
        to: 'webp',
        export: exportTo('out/denied.webp', { accessKeyId: 'NOBODY', secretAccessKey: 'wrong-secret-value' }),
      },
      { name: 'photo.png', data: png },
    );
    const job = await waitForExport(server.url, key, submitted.body.jobId);
    expect(job.status).toBe('done');
    expect(job.export).toEqual({ status: 'failed', error: expect.stringMatching(/^InvalidAccessKeyId: /) });
    expect((await download(job.downloadUrl)).status).toBe(200);
  });

  it('refuses a malformed export or a refused endpoint at submit, charging nothing', async () => {
    const key = await server.createKey('pro');
    const cases: Array<[string, RegExp]> = [
      ['not json', /'export' must be a JSON object/],
      [JSON.stringify({ type: 'ftp' }), /Invalid export/],
      [exportTo('x.webp', { endpoint: 'http://169.254.169.254' }), /cloud metadata address/],
      [exportTo('x.webp', { secretAccessKey: undefined }), /Invalid export secretAccessKey/],
    ];
    for (const [field, message] of cases) {
      const answer = await submit(
        `${server.url}/api/v1/convert`,
        key,
        { to: 'webp', export: field },
        { name: 'photo.png', data: png },
      );
      expect([answer.status, answer.body.error]).toEqual([400, expect.stringMatching(message)]);
    }
    expect((await getJson(`${server.url}/api/v1/credits`, key)).body.creditsUsed).toBe(0);
  });

  it('keeps the credentials out of the data dir', async () => {
    const marker = `secret-${randomBytes(12).toString('hex')}`;
    const key = await server.createKey('pro');
    const submitted = await submit(
      `${server.url}/api/v1/convert`,
      key,
      { to: 'webp', export: exportTo('out/marker.webp', { secretAccessKey: marker }) },
      { name: 'photo.png', data: png },
    );
    const job = await waitForExport(server.url, key, submitted.body.jobId);
    expect(JSON.stringify(job)).not.toContain(marker);
    for (const file of await listFiles(server.dataDir))
      expect((await readFile(file)).includes(marker), file).toBe(false);
  });

  it("uploads a batch's ZIP once every job has finished, and says how it went in the batch status", async () => {
    const key = await server.createKey('pro');
    const red = await sharp({ create: { width: 30, height: 20, channels: 3, background: '#d02020' } })
      .png()
      .toBuffer();
    const form = new FormData();
    form.append('to', 'webp');
    form.append('export', exportTo('batches/all.zip'));
    form.append('files', new Blob([new Uint8Array(png)]), 'green.png');
    form.append('files', new Blob([new Uint8Array(red)]), 'red.png');
    const res = await fetch(`${server.url}/api/batch/convert`, {
      method: 'POST',
      body: form,
      headers: authHeaders(key),
    });
    const accepted = (await res.json()) as any;
    expect(res.status, JSON.stringify(accepted)).toBe(200);
    const status = await waitForBatchExport(server.url, key, accepted.batchId);
    expect(status).toMatchObject({
      total: 2,
      completed: 2,
      done: true,
      export: { status: 'done', etag: expect.any(String) },
    });
    expect(status.export.location).toContain('batches/all.zip');
    expect(JSON.stringify(status)).not.toContain(SECRET);
    const entries = zipEntries(await fetchObject('batches/all.zip'));
    expect(Object.keys(entries).sort()).toEqual(['green.webp', 'red.webp']);
    expect(await sharp(entries['red.webp']!).metadata()).toMatchObject({ format: 'webp', width: 30, height: 20 });
    const downloaded = zipEntries(await downloadBatch(status.downloadUrl, key));
    expect(entries['green.webp']!.equals(downloaded['green.webp']!)).toBe(true);
  });

  it(
    'exports a batch sent over GraphQL, and fails the export with the S3 error when the bucket is ' + 'missing',
    async () => {
      const key = await server.createKey('pro');
      const operations = {
        query:
          'mutation ($files: [Upload!]!, $export: S3ExportInput) ' +
          '{ batchConvert(files: $files, to: "webp", export: $export) { batchId total } }',
        variables: { files: [null], export: { ...JSON.parse(exportTo('x.zip')), bucket: 'no-such-bucket' } },
      };
      const form = new FormData();
      form.append('operations', JSON.stringify(operations));
      form.append('map', JSON.stringify({ 0: ['variables.files.0'] }));
      form.append('0', new Blob([new Uint8Array(png)]), 'photo.png');
      const res = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        body: form,
        headers: { ...authHeaders(key), 'graphql-preflight': '1' },
      });
      const answer = (await res.json()) as any;
      expect(answer.errors, JSON.stringify(answer)).toBeUndefined();
      const status = await waitForBatchExport(server.url, key, answer.data.batchConvert.batchId);
      expect(status.export).toEqual({ status: 'failed', error: expect.stringMatching(/^NoSuchBucket: /) });
      expect(zipEntries(await downloadBatch(status.downloadUrl, key))).toHaveProperty(['photo.webp']);
      const graphql = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { ...authHeaders(key), 'content-type': 'application/json' },
        body: JSON.stringify({ query: `{ batch(id: "${answer.data.batchConvert.batchId}") { done export } }` }),
      });
      expect(((await graphql.json()) as any).data.batch).toEqual({ done: true, export: status.export });
    },
  );

  it('exports a batch sent over tRPC (export as a JSON string field, as REST)', async () => {
    const key = await server.createKey('pro');
    const form = new FormData();
    form.append('to', 'jpg');
    form.append('export', exportTo('trpc/batch.zip'));
    form.append('files', new Blob([new Uint8Array(png)]), 'photo.png');
    const res = await fetch(`${server.url}/trpc/batch.convert`, {
      method: 'POST',
      body: form,
      headers: authHeaders(key),
    });
    const answer = (await res.json()) as any;
    expect(res.status, JSON.stringify(answer)).toBe(200);
    const status = await waitForBatchExport(server.url, key, answer.result.data.batchId);
    expect(status.export.status).toBe('done');
    expect(Object.keys(zipEntries(await fetchObject('trpc/batch.zip')))).toEqual(['photo.jpg']);
  });

  it('refuses a batch with a refused export endpoint at submit, charging nothing', async () => {
    const key = await server.createKey('pro');
    const form = new FormData();
    form.append('to', 'webp');
    form.append('export', exportTo('x.zip', { endpoint: 'http://169.254.169.254' }));
    form.append('files', new Blob([new Uint8Array(png)]), 'photo.png');
    const res = await fetch(`${server.url}/api/batch/convert`, {
      method: 'POST',
      body: form,
      headers: authHeaders(key),
    });
    expect([res.status, ((await res.json()) as any).error]).toEqual([
      400,
      expect.stringMatching(/cloud metadata address/),
    ]);
    expect((await getJson(`${server.url}/api/v1/credits`, key)).body.creditsUsed).toBe(0);
  });

  it('fails an export whose holder died (its lease passed) when a server starts, keeping the download ' +
    'link', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 's3-abandoned-'));
    const env = { IMPORT_ALLOW_PRIVATE: '1' };
    const first = await startServer({ plugins: imagePlugins, env, dataDir });
    let second: TestServer | undefined;
    try {
      const key = await first.createKey('pro');
      const ids: string[] = [];
      for (const name of ['abandoned.png', 'held.png']) {
        const submitted = await submit(`${first.url}/api/v1/convert`, key, { to: 'webp' }, { name, data: png });
        expect((await waitForJob(first.url, key, submitted.body.jobId)).status).toBe('done');
        ids.push(submitted.body.jobId);
      }
      // What a server killed mid-export (kill -9) leaves behind: an open export whose lease it stopped
      // renewing; and one whose holder is alive somewhere (its lease is still running).
      const open = { type: 's3' as const, bucket: BUCKET, key: 'out/x.webp', status: 'uploading' as const };
      const { jobs } = first.server.runtime.store.jobs;
      await jobs.setExport(ids[0]!, { ...open, heldUntil: new Date(Date.now() - 1000).toISOString() });
      await jobs.setExport(ids[1]!, { ...open, heldUntil: new Date(Date.now() + 3_600_000).toISOString() });
      await first.close();
      second = await startServer({ plugins: imagePlugins, env, dataDir });
      const abandoned = (await getJson(`${second.url}/api/v1/jobs/${ids[0]}`, key)).body;
      expect(abandoned.export).toEqual({ status: 'failed', error: ABANDONED_EXPORT });
      expect(abandoned.status).toBe('done');
      const got = await download(abandoned.downloadUrl);
      expect((await sharp(got.data).metadata()).format).toBe('webp');
      expect((await getJson(`${second.url}/api/v1/jobs/${ids[1]}`, key)).body.export).toEqual({ status: 'uploading' });
    } finally {
      await second?.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('uploads a 200 MB output in flat memory', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 's3-big-'));
    const wav = path.join(dir, 'long.wav');
    await writeWav(wav, 200_000_000);
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 's3-big-data-'));
    const child = await spawnServer({ DATA_DIR: dataDir, IMPORT_ALLOW_PRIVATE: '1', LOG_LEVEL: 'silent' });
    try {
      const { result } = await admin(dataDir, 'create-key', '--plan', 'business');
      const key: string = result.key ?? result.apiKey;
      expect(key).toBeTruthy();
      const pid = child.process.pid!;
      const memory = async (field: 'VmHWM' | 'VmRSS') =>
        Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(await readFile(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
      // A small export first, so what loads on first use is not counted; then the peak is reset.
      const small = path.join(dir, 'short.wav');
      await writeWav(small, 1_000_000);
      const warm = await submit(
        `${child.url}/api/v1/convert`,
        key,
        { to: 'wav', op: 'clean-metadata', export: exportTo('big/short.wav') },
        { name: 'short.wav', path: small },
      );
      expect((await waitForExport(child.url, key, warm.body.jobId)).export?.status).toBe('done');
      await writeFile(`/proc/${pid}/clear_refs`, '5');
      const before = await memory('VmRSS');
      const submitted = await submit(
        `${child.url}/api/v1/convert`,
        key,
        { to: 'wav', op: 'clean-metadata', export: exportTo('big/long.wav') },
        { name: 'long.wav', path: wav },
      );
      expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
      for (;;) {
        const { body } = await getJson(`${child.url}/api/v1/jobs/${submitted.body.jobId}`, key);
        if (body.status === 'done' || body.status === 'failed') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const atDone = await memory('VmHWM');
      const job = await waitForExport(child.url, key, submitted.body.jobId);
      expect(job.export?.status, JSON.stringify(job)).toBe('done');
      const head = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'big/long.wav', Range: 'bytes=0-3' }));
      expect(Number(head.ContentRange?.split('/')[1])).toBeGreaterThan(199_000_000);
      // 200 MB went in over HTTP, through ffmpeg and out to S3. The server's peak grows by what
      // streaming holds (parts in flight) plus garbage not yet collected, far less than the file:
      // measured here about 45-60 MB for the upload in and 45-55 MB more for the export.
      const after = await memory('VmHWM');
      expect(after - atDone, 'the export').toBeLessThan(90 * 1024 * 1024);
      expect(after - before, 'upload and export').toBeLessThan(160 * 1024 * 1024);
    } finally {
      await child.kill('SIGTERM');
      await rm(dir, { recursive: true, force: true });
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 300_000);
});

/** A PCM WAV of about `bytes` (16-bit stereo 48 kHz) written in chunks. */
async function writeWav(file: string, bytes: number): Promise<void> {
  const dataBytes = bytes - (bytes % 4);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(2, 22);
  header.writeUInt32LE(48_000, 24);
  header.writeUInt32LE(48_000 * 4, 28);
  header.writeUInt16LE(4, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(dataBytes, 40);
  const out = createWriteStream(file);
  out.write(header);
  const chunk = randomBytes(1 << 20);
  for (let written = 0; written < dataBytes; written += chunk.length) {
    const slice = chunk.subarray(0, Math.min(chunk.length, dataBytes - written));
    if (!out.write(slice)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  out.end();
  await finished(out);
  expect((await stat(file)).size).toBe(44 + dataBytes);
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}
