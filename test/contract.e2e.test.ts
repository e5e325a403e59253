/**
 * Contract details over HTTP: integer fields in decimal digits only; `to` and `op` exact and
 * lower-case; every plan-gate 403 carries `{error, code: 'plan_required'}`.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, convertAndDownload, startServer, submitConvert, waitForJob, type TestServer } from './helpers.js';

async function postFiles(
  url: string,
  path: string,
  key: string,
  files: Array<{ name: string; data: Buffer }>,
  fields: Record<string, string> = {},
) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const f of files) form.append('files', new Blob([new Uint8Array(f.data)]), f.name);
  const res = await fetch(`${url}${path}`, { method: 'POST', body: form, headers: authHeaders(key) });
  return { status: res.status, body: (await res.json()) as any };
}

describe('contract details over HTTP', () => {
  let server: TestServer;
  let proKey: string;
  let freeKey: string;
  let photo: { name: string; data: Buffer };
  const text = { name: 'notes.txt', data: 'hello contract' };

  beforeAll(async () => {
    server = await startServer();
    [proKey, freeKey] = await Promise.all([server.createKey('pro'), server.createKey('free')]);
    photo = {
      name: 'photo.png',
      data: await sharp({ create: { width: 16, height: 12, channels: 3, background: '#ff0000' } })
        .png()
        .toBuffer(),
    };
  });
  afterAll(() => server.close());

  describe('integer fields', () => {
    it.each(['0x32', '1e2', '5e1', '+50', '50.0', '50.5', 'Infinity', '', 'fifty'])(
      'refuses quality=%j with a 400 naming the field',
      async (quality) => {
        const res = await submitConvert(server.url, proKey, photo, { to: 'png', op: 'compress', quality });
        expect(res).toMatchObject({
          status: 400,
          body: { error: 'Invalid quality: must be a whole number in decimal digits' },
        });
      },
    );

    it('takes decimal digits, surrounding whitespace trimmed', async () => {
      for (const quality of ['50', ' 50 ']) {
        const { data } = await convertAndDownload(server.url, proKey, photo, { to: 'png', op: 'compress', quality });
        expect(await sharp(data).metadata()).toMatchObject({ format: 'png', width: 16, height: 12 });
      }
    });

    it('refuses a hex angle for rotate-pdf', async () => {
      const pdf = {
        name: 'a.pdf',
        data: Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n'),
      };
      const res = await submitConvert(server.url, proKey, pdf, { to: 'pdf', op: 'rotate-pdf', angle: '0x5A' });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/^Invalid angle: /);
    });
  });

  describe('to and op', () => {
    it('refuses an upper-case to, naming the field and the expected value', async () => {
      expect(await submitConvert(server.url, proKey, text, { to: 'PDF' })).toMatchObject({
        status: 400,
        body: { error: "Invalid 'to': formats are lower-case extensions, e.g. to=pdf" },
      });
      expect(await submitConvert(server.url, proKey, photo, { to: 'Webp' })).toMatchObject({
        status: 400,
        body: { error: "Invalid 'to': formats are lower-case extensions, e.g. to=webp" },
      });
    });

    it('refuses an op in any other case', async () => {
      expect(await submitConvert(server.url, proKey, photo, { to: 'png', op: 'Compress' })).toMatchObject({
        status: 400,
        body: { error: "Invalid 'op': ops are lower-case names, e.g. op=compress" },
      });
    });

    it('refuses an upper-case to for a whole batch at once', async () => {
      expect(await postFiles(server.url, '/api/batch/convert', proKey, [photo, photo], { to: 'WEBP' })).toMatchObject({
        status: 400,
        body: { error: "Invalid 'to': formats are lower-case extensions, e.g. to=webp" },
      });
    });

    it('keeps jpeg as an alias of jpg', async () => {
      const { data, filename } = await convertAndDownload(server.url, proKey, photo, { to: 'jpeg' });
      expect(filename).toBe('photo.jpg');
      expect((await sharp(data).metadata()).format).toBe('jpeg');
    });
  });

  describe('plan gates carry code plan_required', () => {
    it('transcription on Pro', async () => {
      const res = await postFiles(server.url, '/api/transcribe', proKey, [{ name: 'a.mp3', data: Buffer.from('ID3') }]);
      expect(res).toEqual({
        status: 403,
        body: { error: 'Transcription requires the Business plan or higher', code: 'plan_required' },
      });
    });

    it('a tool op on Free', async () => {
      const res = await submitConvert(server.url, freeKey, photo, { to: 'png', op: 'compress' });
      expect(res).toMatchObject({
        status: 403,
        body: { error: 'Tool operations require the Pro plan or higher', code: 'plan_required' },
      });
    });

    it('merge and batch on Free', async () => {
      const merge = await postFiles(server.url, '/api/pdf/merge', freeKey, [photo, photo]);
      expect(merge).toEqual({
        status: 403,
        body: { error: 'PDF merge requires the Pro plan or higher', code: 'plan_required' },
      });
      const batch = await postFiles(server.url, '/api/batch/convert', freeKey, [photo], { to: 'webp' });
      expect(batch).toEqual({
        status: 403,
        body: { error: 'Batch conversion requires the Pro plan or higher', code: 'plan_required' },
      });
    });

    it('a signed URL on Pro', async () => {
      const accepted = await submitConvert(server.url, proKey, photo, { to: 'webp' });
      await waitForJob(server.url, proKey, accepted.body.jobId);
      const res = await fetch(`${server.url}/api/v1/signed-url`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...authHeaders(proKey) },
        body: JSON.stringify({ jobId: accepted.body.jobId }),
      });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({
        error: 'Signed URLs require the Business plan or higher',
        code: 'plan_required',
      });
    });

    it("another holder's batch is a 403 without a plan code", async () => {
      const accepted = await postFiles(server.url, '/api/batch/convert', proKey, [photo], { to: 'webp' });
      const other = await server.createKey('pro');
      const res = await fetch(`${server.url}${accepted.body.statusUrl}`, { headers: authHeaders(other) });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ error: 'This batch belongs to another account' });
    });
  });
});
