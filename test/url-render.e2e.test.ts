/**
 * Web pages rendered from their URL over HTTP (Pro): the page and its subresources are fetched by
 * Node under the outbound address policy and handed to Chromium. A local site stands in for the
 * web (IMPORT_ALLOW_PRIVATE=1); without that setting, and for metadata addresses always, the
 * render is refused.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runProcess } from '../core/engines/process.js';
import { webPlugins } from '../plugins/web/index.js';
import { convertAndDownload, startServer, submitConvert, waitForJob, type TestServer } from './helpers.js';

describe('web pages from their URL over HTTP', () => {
  let open: TestServer;
  let closed: TestServer;
  let key: string;
  let site: http.Server;
  let siteUrl: string;
  const siteHits: string[] = [];

  beforeAll(async () => {
    const logo = await sharp({ create: { width: 60, height: 30, channels: 3, background: { r: 10, g: 160, b: 60 } } })
      .png()
      .toBuffer();
    site = http.createServer((req, res) => {
      siteHits.push(req.url ?? '');
      if (req.url === '/') {
        res.setHeader('content-type', 'text/html; charset=utf-8');
        return res.end(
          `<!doctype html><link rel="stylesheet" href="/style.css"><h1>Harbour timetable</h1>` +
            `<img src="/logo.png">
<img src="http://169.254.169.254/latest/meta-data/pixel.png"><div style="height:3000px">Ferries leave hourly.</div>` +
            `<p>Bottom of the page</p>`,
        );
      }
      if (req.url === '/style.css')
        return res.setHeader('content-type', 'text/css').end('h1 { color: rgb(200, 0, 0); }');
      if (req.url === '/logo.png') return res.setHeader('content-type', 'image/png').end(logo);
      res.statusCode = 404;
      res.end('missing');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
    open = await startServer({ plugins: webPlugins, env: { IMPORT_ALLOW_PRIVATE: '1' } });
    closed = await startServer({ plugins: webPlugins });
  }, 90_000);
  beforeEach(async () => {
    key = await open.createKey('pro');
  });
  afterAll(async () => {
    await open?.close();
    await closed?.close();
    site?.close();
  });

  it('renders a page to PDF with its stylesheet and image, fetched through the policy', async () => {
    siteHits.length = 0;
    const { outputPath } = await convertAndDownload(
      open.url,
      key,
      { name: 'timetable.url', data: `[InternetShortcut]\r\nURL=${siteUrl}\r\n` },
      { to: 'pdf' },
      120_000,
    );
    expect((await runProcess('pdftotext', [outputPath, '-'], { timeoutMs: 10_000 })).stdout).toContain(
      'Harbour timetable',
    );
    expect(siteHits).toEqual(expect.arrayContaining(['/', '/style.css', '/logo.png']));
    expect((await runProcess('pdfimages', ['-list', outputPath], { timeoutMs: 10_000 })).stdout).toMatch(/\s60\s+30\s/);
  }, 150_000);

  it('takes a PNG of the window at the asked viewport, a full-page one, and a WEBP', async () => {
    const window = await convertAndDownload(
      open.url,
      key,
      { name: 'page.url', data: siteUrl },
      { to: 'png', viewport: JSON.stringify({ width: 800, height: 600 }) },
      120_000,
    );
    expect(await sharp(window.data).metadata()).toMatchObject({ width: 800, height: 600, format: 'png' });
    const full = await convertAndDownload(
      open.url,
      await open.createKey('pro'),
      { name: 'page.url', data: siteUrl },
      { to: 'png', viewport: JSON.stringify({ width: 800, height: 600 }), fullPage: 'true' },
      120_000,
    );
    expect((await sharp(full.data).metadata()).height).toBeGreaterThan(3000);
    const webp = await convertAndDownload(
      open.url,
      await open.createKey('pro'),
      { name: 'page.url', data: siteUrl },
      { to: 'webp' },
      120_000,
    );
    expect(await sharp(webp.data).metadata()).toMatchObject({ width: 1280, height: 800, format: 'webp' });
  }, 240_000);

  it('refuses a cloud metadata address even with IMPORT_ALLOW_PRIVATE=1', async () => {
    const metadata = await submitConvert(
      open.url,
      key,
      { name: 'meta.url', data: 'http://169.254.169.254/latest/meta-data/' },
      { to: 'pdf' },
    );
    const metadataJob = await waitForJob(open.url, key, metadata.body.jobId, 60_000);
    expect(metadataJob).toMatchObject({ status: 'failed', error: expect.stringContaining('cloud metadata address') });
  }, 120_000);

  it('a plain-http or loopback page on a server that does not allow private addresses fails with the ' +
    'reason', async () => {
    const closedKey = await closed.createKey('pro');
    const submitted = await submitConvert(closed.url, closedKey, { name: 'page.url', data: siteUrl }, { to: 'pdf' });
    const job = await waitForJob(closed.url, closedKey, submitted.body.jobId, 60_000);
    expect(job).toMatchObject({ status: 'failed', error: expect.stringMatching(/Page URL (must use https|refused)/) });
  }, 120_000);
});
