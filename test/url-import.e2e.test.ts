/**
 * URL imports over HTTP: `url` on convert and repeated `urls` on merge, batch
 * and the extraction submits fetch from a real HTTP server on 127.0.0.1; the output is checked by
 * content. At submit (400/413): 127.0.0.1 without IMPORT_ALLOW_PRIVATE=1, a metadata address
 * always (also behind a redirect), too many redirects, a declared size over the plan, a URL that
 * names no format. In the background (the job fails, refunded): HTTP errors, a body over the
 * plan's limit while streaming, content that does not match its name, a refused connection, work
 * over a plugin's maximum. Credits: an undeclared size is trued up once fetched (or the job fails
 * when the account cannot pay); a server stopped mid-import leaves the job to run again.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTransmuteClient } from '../apps/server/trpc/client.js';
import { imagePlugins } from '../plugins/image/index.js';
import { ocrPlugins } from '../plugins/ocr/index.js';
import { pdfToMarkdownPlugin } from '../plugins/markdown/pdf-to-markdown/index.js';
import { pdfPlugins } from '../plugins/pdf/index.js';
import { pageCount, pageTexts, PdfFixtures } from '../plugins/pdf/testing/fixtures.js';
import { pdfSharedPages } from './fixtures/hostile.js';
import { authHeaders, download, getJson, startServer, waitForJob, type TestServer, waitUntil } from './helpers.js';

async function post(url: string, key: string, fields: Array<[string, string]>) {
  const form = new FormData();
  for (const [name, value] of fields) form.append(name, value);
  const res = await fetch(url, { method: 'POST', body: form, headers: authHeaders(key) });
  return { status: res.status, body: (await res.json()) as any };
}

describe('URL import', () => {
  const fixtures = new PdfFixtures();
  let origin: http.Server;
  let base: string;
  let server: TestServer;
  let strict: TestServer;
  let png: Buffer;
  let noise: Buffer;
  let pdfs: Buffer[];
  let release: () => void = () => undefined;
  const stalled = new Promise<void>((resolve) => (release = resolve));
  const hits: string[] = [];

  beforeAll(async () => {
    png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#c03020' } })
      .png()
      .toBuffer();
    // Random pixels do not compress: a PNG over 10 MB, the next size tier (3 credits where a small image costs 1).
    const side = 2000;
    noise = await sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    await fixtures.make();
    pdfs = await Promise.all([readFile(fixtures.get('three').path), readFile(fixtures.get('eight').path)]);
    origin = http.createServer((req, res) => {
      hits.push(req.url!);
      const route = new URL(req.url!, 'http://x');
      switch (route.pathname) {
        case '/photo.png':
          return res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png);
        case '/download':
          // No extension in the path: the name comes from Content-Disposition.
          return res.writeHead(200, { 'content-disposition': 'attachment; filename="from-header.png"' }).end(png);
        case '/three.pdf':
          return res.writeHead(200).end(pdfs[0]);
        case '/eight.pdf':
          return res.writeHead(200).end(pdfs[1]);
        case '/moved':
          return res.writeHead(302, { location: '/photo.png' }).end();
        case '/to-metadata':
          return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
        case '/loop':
          return res.writeHead(302, { location: `/loop?n=${Number(route.searchParams.get('n') ?? 0) + 1}` }).end();
        case '/noise.png':
          // No Content-Length (chunked), and a HEAD that does not say either: priced at the first class, then trued up.
          res.writeHead(200, { 'content-type': 'image/png' });
          return req.method === 'HEAD' ? res.end() : res.end(noise);
        case '/stall.png':
          // Holds the body until the test lets it go (a server stopped mid-import).
          res.writeHead(200, { 'content-type': 'image/png' });
          if (req.method === 'HEAD') return res.end();
          res.on('error', () => undefined);
          res.write(png.subarray(0, 16));
          return void stalled.then(() => res.end(png.subarray(16)));
        case '/pages.pdf':
          return res.writeHead(200).end(pdfSharedPages(5000));
        case '/fake.png':
          return res.writeHead(200).end('%PDF-1.4 not a png');
        case '/big-declared.png':
          return res.writeHead(200, { 'content-length': String(30_000_000) }).end();
        case '/big-streamed.png': {
          // No Content-Length: the limit is found while streaming.
          res.writeHead(200);
          const chunk = Buffer.alloc(1_000_000);
          let sent = 0;
          const more = () => {
            while (sent < 30 && res.write(chunk)) sent++;
            if (sent >= 30) return res.end();
            res.once('drain', more);
          };
          res.on('error', () => undefined);
          return more();
        }
        default:
          return res.writeHead(404).end('not here');
      }
    });
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
    [server, strict] = await Promise.all([
      startServer({
        plugins: [...imagePlugins, ...pdfPlugins, pdfToMarkdownPlugin, ...ocrPlugins],
        env: { IMPORT_ALLOW_PRIVATE: '1' },
      }),
      startServer({ plugins: imagePlugins }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([server?.close(), strict?.close(), fixtures.cleanup()]);
    await new Promise((resolve) => origin.close(resolve));
  });

  it(
    'converts a file fetched from a URL (name from the path, then from Content-Disposition, through a ' + 'redirect)',
    async () => {
      const key = await server.createKey('pro');
      for (const [path, name] of [
        ['/photo.png', 'photo.webp'],
        ['/download', 'from-header.webp'],
        ['/moved', 'photo.webp'],
      ] as const) {
        const submitted = await post(`${server.url}/api/v1/convert`, key, [
          ['to', 'webp'],
          ['url', `${base}${path}`],
        ]);
        expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
        expect(submitted.body.creditCost).toBeGreaterThan(0);
        const job = await waitForJob(server.url, key, submitted.body.jobId);
        expect(job.status).toBe('done');
        const got = await download(job.downloadUrl!);
        expect(got.headers.get('content-disposition')).toContain(name);
        const meta = await sharp(got.data).metadata();
        expect([meta.format, meta.width, meta.height]).toEqual(['webp', 40, 30]);
      }
    },
  );

  it('converts from a URL over GraphQL (convert url) and tRPC (convert form with url)', async () => {
    const key = await server.createKey('pro');
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authHeaders(key) },
      body: JSON.stringify({
        query: 'mutation($url: String!) { convert(url: $url, to: "webp") { jobId status } }',
        variables: { url: `${base}/photo.png` },
      }),
    });
    const viaGraphql = ((await res.json()) as any).data.convert;
    const form = new FormData();
    form.append('to', 'webp');
    form.append('url', `${base}/photo.png`);
    const viaTrpc = await createTransmuteClient(server.url, key).convert.mutate(form);
    for (const jobId of [viaGraphql.jobId, viaTrpc.jobId]) {
      const job = await waitForJob(server.url, key, jobId);
      expect((await sharp((await download(job.downloadUrl!)).data).metadata()).format).toBe('webp');
    }
  });

  it('merges PDFs fetched from repeated urls, in the order given', async () => {
    const key = await server.createKey('pro');
    const submitted = await post(`${server.url}/api/pdf/merge`, key, [
      ['urls', `${base}/three.pdf`],
      ['urls', `${base}/eight.pdf`],
    ]);
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    const job = await waitForJob(server.url, key, submitted.body.jobId);
    expect(job.status).toBe('done');
    const got = await download(job.downloadUrl!);
    const out = `${fixtures.dir}/merged-from-urls.pdf`;
    await writeFile(out, got.data);
    expect(await pageCount(out)).toBe(11);
    expect((await pageTexts(out))[3]).toContain('Page 1');
  });

  it('takes urls on an extraction submit (pdf-to-markdown)', async () => {
    const key = await server.createKey('pro');
    const answer = await post(`${server.url}/api/pdf-to-markdown`, key, [['urls', `${base}/three.pdf`]]);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    for (let i = 0; i < 150; i++) {
      const { body } = await getJson(`${server.url}/api/pdf-to-markdown/${answer.body.batchId}`, key);
      const row = body.rows?.[0];
      if (row && (row.status === 'completed' || row.status === 'failed')) {
        expect(row.status, JSON.stringify(row)).toBe('completed');
        expect(JSON.stringify(row)).toMatch(/Page 1/);
        return;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error('the extraction did not finish');
  }, 60_000);

  it('takes urls beside files on a batch', async () => {
    const key = await server.createKey('pro');
    const form = new FormData();
    form.append('to', 'webp');
    form.append('files', new Blob([new Uint8Array(png)]), 'uploaded.png');
    form.append('urls', `${base}/photo.png`);
    const res = await fetch(`${server.url}/api/batch/convert`, {
      method: 'POST',
      body: form,
      headers: authHeaders(key),
    });
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect([body.total, body.errors]).toEqual([2, []]);
    await waitUntil(
      async () => (await getJson(`${server.url}/api/batch/${body.batchId}`, key)).body.done === true,
      50_000,
      'the batch to finish',
    );
    const zip = await fetch(`${server.url}/api/batch/${body.batchId}/download`, { headers: authHeaders(key) });
    expect(zip.status).toBe(200);
  });

  it('refuses 127.0.0.1 without IMPORT_ALLOW_PRIVATE=1, and plain http', async () => {
    const key = await strict.createKey('pro');
    const local = await post(`${strict.url}/api/v1/convert`, key, [
      ['to', 'webp'],
      ['url', `${base}/photo.png`],
    ]);
    expect(local.status).toBe(400);
    expect(local.body.error).toMatch(/Import URL must use https/);
    const tls = await post(`${strict.url}/api/v1/convert`, key, [
      ['to', 'webp'],
      ['url', 'https://127.0.0.1:1/photo.png'],
    ]);
    expect(tls.status).toBe(400);
    expect(tls.body.error).toMatch(/127\.0\.0\.1 resolves to a loopback, private, link-local or reserved address/);
    expect((await getJson(`${strict.url}/api/v1/history`, key)).body.total).toBe(0);
  });

  it('refuses cloud metadata addresses whatever IMPORT_ALLOW_PRIVATE says, also behind a redirect', async () => {
    const key = await server.createKey('pro');
    const direct = await post(`${server.url}/api/v1/convert`, key, [
      ['to', 'webp'],
      ['url', 'http://169.254.169.254/latest/meta-data/x.png'],
    ]);
    expect(direct.status).toBe(400);
    expect(direct.body.error).toMatch(/169\.254\.169\.254 is a cloud metadata address/);
    const redirected = await post(`${server.url}/api/v1/convert`, key, [
      ['to', 'webp'],
      ['url', `${base}/to-metadata`],
    ]);
    expect(redirected.status).toBe(400);
    expect(redirected.body.error).toMatch(/cloud metadata address/);
    const strictKey = await strict.createKey('pro');
    const strictDirect = await post(`${strict.url}/api/v1/convert`, strictKey, [
      ['to', 'webp'],
      ['url', 'https://169.254.169.254/x.png'],
    ]);
    expect(strictDirect.body.error).toMatch(/cloud metadata address/);
  });

  it('answers a clear 4xx at submit for malformed URLs, redirect loops and a declared size over the plan', async () => {
    const key = await server.createKey('free');
    const cases: Array<[string, number, RegExp]> = [
      ['not a url', 400, /Import URL is not a valid URL/],
      ['ftp://example.com/a.png', 400, /must use https/],
      [`${base}/loop`, 400, /more than 5 redirects/],
      [`${base}/big-declared.png`, 413, /plan's limit of 25 MB/],
      [`${base}/nameless`, 400, /Cannot tell the format of nameless/],
    ];
    for (const [url, status, message] of cases) {
      const answer = await post(`${server.url}/api/v1/convert`, key, [
        ['to', 'webp'],
        ['url', url],
      ]);
      expect([url, answer.status, answer.body.error]).toEqual([url, status, expect.stringMatching(message)]);
    }
    // Two URLs where convert takes one; a file and a URL.
    const two = await post(`${server.url}/api/v1/convert`, key, [
      ['to', 'webp'],
      ['url', `${base}/photo.png`],
      ['url', `${base}/photo.png`],
    ]);
    expect(two.status).toBe(400);
    expect(two.body.error).toMatch(/Send exactly one 'file' or 'url'/);
    // Nothing was charged for any of them.
    expect((await getJson(`${server.url}/api/v1/credits`, key)).body.creditsUsed ?? 0).toBe(0);
  });

  it('accepts at once and fails the job with a clear error and a full refund when the fetch fails later', async () => {
    const key = await server.createKey('free');
    const cases: Array<[string, RegExp]> = [
      [`${base}/missing.png`, /answered HTTP 404/],
      [`${base}/big-streamed.png`, /plan's limit of 25 MB/],
      [`${base}/fake.png`, /named \.png but contains/],
      ['http://127.0.0.1:1/closed.png', /Connection refused/],
    ];
    for (const [url, message] of cases) {
      const answer = await post(`${server.url}/api/v1/convert`, key, [
        ['to', 'webp'],
        ['url', url],
      ]);
      expect([url, answer.status, answer.body.creditCost]).toEqual([url, 200, 1]);
      const job = await waitForJob(server.url, key, answer.body.jobId);
      expect([url, job.status, (job as any).error]).toEqual([url, 'failed', expect.stringMatching(message)]);
    }
    expect((await getJson(`${server.url}/api/v1/credits`, key)).body.creditsUsed).toBe(0);
  });

  it(
    'measures the work of an import once fetched: a 5,000-page PDF sent to ocr fails naming the limit, ' + 'refunded',
    async () => {
      const key = await server.createKey('pro');
      const answer = await post(`${server.url}/api/v1/convert`, key, [
        ['to', 'pdf'],
        ['op', 'ocr'],
        ['url', `${base}/pages.pdf`],
      ]);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const job = await waitForJob(server.url, key, answer.body.jobId);
      expect([job.status, (job as any).error]).toEqual([
        'failed',
        "op 'ocr' takes at most 250 pages per job; the input has 5,000 pages: split it first (op split-pdf)",
      ]);
      expect((await getJson(`${server.url}/api/v1/credits`, key)).body.creditsUsed).toBe(0);
    },
  );

  it('prices a body of undeclared size at the first class, then trues the cost up once it has arrived', async () => {
    const key = await server.createKey('pro');
    const answer = await post(`${server.url}/api/v1/convert`, key, [
      ['to', 'jpg'],
      ['url', `${base}/noise.png`],
    ]);
    expect([answer.status, answer.body.creditCost]).toEqual([200, 1]);
    const job = await waitForJob(server.url, key, answer.body.jobId);
    expect(job.status, JSON.stringify(job)).toBe('done');
    const meta = await sharp((await download(job.downloadUrl!)).data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 2000, 2000]);
    // Over 10 MB: 3 credits, not the 1 charged at acceptance.
    expect((await getJson(`${server.url}/api/v1/credits`, key)).body.creditsUsed).toBe(3);
  }, 60_000);

  it('fails the job and refunds all when the account cannot pay the true-up', async () => {
    const { key, accountId } = await server.createAccount('free');
    const { creditsIncluded } = (await getJson(`${server.url}/api/v1/credits`, key)).body;
    await server.server.runtime.services.credits.setUsed(accountId, creditsIncluded - 1);
    const answer = await post(`${server.url}/api/v1/convert`, key, [
      ['to', 'jpg'],
      ['url', `${base}/noise.png`],
    ]);
    expect([answer.status, answer.body.creditCost]).toEqual([200, 1]);
    const job = await waitForJob(server.url, key, answer.body.jobId);
    expect([job.status, (job as any).error]).toEqual(['failed', expect.stringMatching(/^Insufficient API credits/)]);
    expect((await getJson(`${server.url}/api/v1/credits`, key)).body.creditsUsed).toBe(creditsIncluded - 1);
  }, 60_000);

  it('leaves a job stopped mid-import to run again after a restart', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'transmute-import-restart-'));
    const env = { IMPORT_ALLOW_PRIVATE: '1' };
    const first = await startServer({ plugins: imagePlugins, env, dataDir });
    let second: TestServer | undefined;
    try {
      const key = await first.createKey('pro');
      const answer = await post(`${first.url}/api/v1/convert`, key, [
        ['to', 'webp'],
        ['url', `${base}/stall.png`],
      ]);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      // The HEAD at submit, then the runner's GET (a loaded machine takes a while to start the run).
      await waitUntil(
        () => hits.filter((hit) => hit === '/stall.png').length >= 2,
        30_000,
        "the runner's GET of the stalled import",
      );
      await first.close();
      second = await startServer({ plugins: imagePlugins, env, dataDir });
      release();
      const job = await waitForJob(second.url, key, answer.body.jobId);
      expect(job.status, JSON.stringify(job)).toBe('done');
      const meta = await sharp((await download(job.downloadUrl!)).data).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['webp', 40, 30]);
    } finally {
      release();
      await second?.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
