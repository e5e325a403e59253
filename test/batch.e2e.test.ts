/** Batch conversion through HTTP: per-file acceptance, per-file charge, status, ZIP, ownership, gates. */
import { execFileSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, getJson, startServer, type TestServer } from './helpers.js';

async function submitBatch(
  url: string,
  key: string,
  files: Array<{ name: string; data: Buffer }>,
  fields: Record<string, string>,
) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const f of files) form.append('files', new Blob([new Uint8Array(f.data)]), f.name);
  const res = await fetch(`${url}/api/batch/convert`, { method: 'POST', body: form, headers: authHeaders(key) });
  return { status: res.status, body: (await res.json()) as any };
}

async function waitForBatch(url: string, key: string, id: string) {
  for (let i = 0; i < 300; i++) {
    const { body } = await getJson(`${url}/api/batch/${id}`, key);
    if (body.done) return body;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('batch did not finish');
}

describe('batch conversion', () => {
  let server: TestServer;
  let red: Buffer;
  let blue: Buffer;

  beforeAll(async () => {
    server = await startServer();
    red = await sharp({ create: { width: 10, height: 6, channels: 3, background: '#ff0000' } })
      .png()
      .toBuffer();
    blue = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#0000ff' } })
      .png()
      .toBuffer();
  });
  afterAll(() => server.close());

  it('is refused below Pro before any upload is read', async () => {
    const key = await server.createKey('free');
    const res = await submitBatch(
      server.url,
      key,
      [
        { name: 'a.png', data: red },
        { name: 'b.png', data: blue },
      ],
      { to: 'webp' },
    );
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('Batch conversion requires the Pro plan or higher');
  });

  it('accepts good files, lists bad ones, charges per file and zips the outputs', async () => {
    const key = await server.createKey('pro');
    const res = await submitBatch(
      server.url,
      key,
      [
        { name: 'red.png', data: red },
        { name: 'fake.png', data: Buffer.from('not an image') },
        { name: 'blue.png', data: blue },
        { name: 'red.png', data: red },
      ],
      { to: 'webp', quality: '50' },
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      batchId: expect.any(String),
      total: 3,
      statusUrl: `/api/batch/${res.body.batchId}`,
      errors: [{ filename: 'fake.png', error: expect.stringMatching(/does not match its declared type/) }],
    });
    expect((await getJson(`${server.url}/api/v1/credits`, key)).body.creditsUsed).toBe(3);

    const status = await waitForBatch(server.url, key, res.body.batchId);
    expect(status).toEqual({
      total: 3,
      completed: 3,
      done: true,
      downloadUrl: `${server.url}/api/batch/${res.body.batchId}/download`,
    });

    const zip = await fetch(status.downloadUrl, { headers: authHeaders(key) });
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    const dir = await mkdtemp(path.join(os.tmpdir(), 'batch-'));
    const file = path.join(dir, 'out.zip');
    await writeFile(file, Buffer.from(await zip.arrayBuffer()));
    const names = execFileSync('unzip', ['-Z1', file], { encoding: 'utf8' }).trim().split('\n').sort();
    expect(names).toEqual(['blue.webp', 'red (2).webp', 'red.webp']);
    const inner = execFileSync('unzip', ['-p', file, 'red.webp']);
    expect(await sharp(inner).metadata()).toMatchObject({ format: 'webp', width: 10, height: 6 });
  });

  it('keeps batches private and reports missing ones', async () => {
    const key = await server.createKey('pro');
    const res = await submitBatch(server.url, key, [{ name: 'a.png', data: red }], { to: 'jpg' });
    const other = await server.createKey('pro');
    expect((await getJson(`${server.url}/api/batch/${res.body.batchId}`, other)).status).toBe(403);
    expect(
      (await fetch(`${server.url}/api/batch/${res.body.batchId}/download`, { headers: authHeaders(other) })).status,
    ).toBe(403);
    expect((await getJson(`${server.url}/api/batch/nope`, key)).status).toBe(404);
    expect((await getJson(`${server.url}/api/batch/${res.body.batchId}`, undefined)).status).toBe(401);
    await waitForBatch(server.url, key, res.body.batchId);
  });

  it('answers 400 when no file can be accepted, and for a missing to', async () => {
    const key = await server.createKey('pro');
    const none = await submitBatch(server.url, key, [{ name: 'a.png', data: red }], { to: 'mp3' });
    expect(none.status).toBe(400);
    expect(none.body.error).toMatch(/No file could be accepted: a.png: Unsupported conversion/);
    expect((await submitBatch(server.url, key, [{ name: 'a.png', data: red }], {})).status).toBe(400);
  });
});
