/**
 * HTML and Markdown to PDF over HTTP on the warm Chromium of the sandbox process: an invoice ZIP
 * with a local image and a web font, a Markdown file with a table and code, and a page that tries
 * to reach the network (a local beacon server must see no connection at all).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runProcess } from '../core/engines/process.js';
import { webPlugins } from '../plugins/web/index.js';
import { invoiceZip, zipOf } from '../plugins/web/testing/invoice.js';
import { convertAndDownload, startServer, submitConvert, waitForJob, type TestServer } from './helpers.js';

const pdftotext = async (file: string) =>
  (await runProcess('pdftotext', ['-layout', file, '-'], { timeoutMs: 20_000 })).stdout;
const pdfinfo = async (file: string) => (await runProcess('pdfinfo', [file], { timeoutMs: 20_000 })).stdout;
const pdffonts = async (file: string) => (await runProcess('pdffonts', [file], { timeoutMs: 20_000 })).stdout;
const pdfimages = async (file: string) =>
  (await runProcess('pdfimages', ['-list', file], { timeoutMs: 20_000 })).stdout;

describe('HTML and Markdown to PDF over HTTP', () => {
  let server: TestServer;
  let key: string;
  let beacon: http.Server;
  let beaconUrl: string;
  const beaconHits: string[] = [];
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'web-e2e-'));
    beacon = http.createServer((req, res) => {
      beaconHits.push(`${req.method} ${req.url}`);
      res.end('seen');
    });
    // Any connection counts, WebSockets and pre-connects included.
    beacon.on('connection', () => beaconHits.push('connection'));
    await new Promise<void>((resolve) => beacon.listen(0, '127.0.0.1', resolve));
    beaconUrl = `http://127.0.0.1:${(beacon.address() as AddressInfo).port}`;
    server = await startServer({ plugins: webPlugins, env: { IMPORT_ALLOW_PRIVATE: '1' } });
  }, 60_000);
  // A Free key polls 30 times a minute at most: one key per case.
  beforeEach(async () => {
    key = await server.createKey('free');
  });
  afterAll(async () => {
    await server?.close();
    beacon?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('an invoice ZIP with a local image and a web font becomes a Letter PDF with its text, image, font and ' +
    'footer', async () => {
    const { outputPath } = await convertAndDownload(
      server.url,
      key,
      { name: 'invoice.zip', data: await invoiceZip() },
      {
        to: 'pdf',
        paper: 'Letter',
        margin: JSON.stringify({ top: 15, right: 12, bottom: 20, left: 12 }),
        footerHtml:
          '<div style="font-size:9px;width:100%;text-align:center">Page <span class="pageNumber"></span> of <span ' +
          'class="totalPages"></span></div>',
      },
      120_000,
    );
    const text = await pdftotext(outputPath);
    expect(text).toContain('INVOICE 2026-0042');
    expect(text).toMatch(/Octopus grooming\s+1,250\.00 EUR/);
    expect(text).toContain('Total due: 1,250.00 EUR');
    expect(text).toContain('Page 1 of 1');
    expect(await pdfinfo(outputPath)).toMatch(/Page size:\s+612 x 792 pts \(letter\)/);
    // The web font came from the ZIP (the fallback would be a serif face), embedded.
    expect(await pdffonts(outputPath)).toMatch(/LiberationSans-Bold\s+\S+.*\byes\b/);
    // The logo from the ZIP: one 120x40 image.
    expect(await pdfimages(outputPath)).toMatch(/^\s*1\s+0\s+image\s+120\s+40\b/m);
  }, 150_000);

  it('a single HTML file becomes an A4 PDF (the default paper)', async () => {
    const { outputPath } = await convertAndDownload(
      server.url,
      key,
      { name: 'note.html', data: '<!doctype html><h1>Plain note</h1><p>Printed on A4.</p>' },
      { to: 'pdf' },
      120_000,
    );
    expect(await pdftotext(outputPath)).toContain('Printed on A4.');
    const info = await pdfinfo(outputPath);
    expect(info).toMatch(/Page size:\s+595\.\d+ x 842\.\d+ pts \(A4\)/);
    // No <title>: the file's name, not the made-up address the page was served under.
    expect(info).toMatch(/Title:\s+note\n/);
  }, 150_000);

  it('a Markdown file with a table and code becomes a PDF with both', async () => {
    const markdown = [
      '# Release notes',
      '',
      '| Planet | Moons |',
      '| --- | ---: |',
      '| Mars | 2 |',
      '| Jupiter | 95 |',
      '',
      '```js',
      'const answer = compute(42);',
      '```',
      '',
      'Inline `code` and **bold** text.',
      '',
    ].join('\n');
    const { outputPath } = await convertAndDownload(
      server.url,
      key,
      { name: 'notes.md', data: markdown },
      { to: 'pdf', landscape: 'true' },
      120_000,
    );
    const text = await pdftotext(outputPath);
    expect(text).toContain('Release notes');
    expect(text).toMatch(/Planet\s+Moons/);
    expect(text).toMatch(/Jupiter\s+95/);
    expect(text).toContain('const answer = compute(42);');
    // The code is set in the stylesheet's monospace face.
    expect(await pdffonts(outputPath)).toMatch(/DejaVuSansMono/);
    expect(await pdfinfo(outputPath)).toMatch(/Page size:\s+842\.\d+ x 595\.\d+ pts/);
  }, 150_000);

  it('a page that tries to reach the network still converts, and nothing reaches the network', async () => {
    const hostile =
      `<!doctype html><html><head>
<link rel="stylesheet" href="${beaconUrl}/style.css"><link rel="preconnect" href="${beaconUrl}">` +
      `<link rel="dns-prefetch" href="//beacon.example">
<script src="${beaconUrl}/script.js"></script></head><body><h1>Still printed</h1>
<img src="${beaconUrl}/pixel.png"><img src="https://example.com/remote.png"><iframe src="${beaconUrl}/frame"></iframe>
<script>
fetch('${beaconUrl}/fetch').catch(() => {});
navigator.sendBeacon('${beaconUrl}/beacon', 'x');
try { new WebSocket('${beaconUrl.replace('http', 'ws')}/socket'); } catch {}
try { new EventSource('${beaconUrl}/events'); } catch {}
document.body.insertAdjacentHTML('beforeend', '<p id="js">JavaScript ran</p>');
</script></body></html>`;
    const { outputPath } = await convertAndDownload(
      server.url,
      key,
      { name: 'hostile.html', data: hostile },
      { to: 'pdf', waitFor: '500ms' },
      120_000,
    );
    const text = await pdftotext(outputPath);
    expect(text).toContain('Still printed');
    expect(text).toContain('JavaScript ran');
    expect(beaconHits).toEqual([]);
  }, 150_000);

  it('a ZIP without index.html fails with a clear reason', async () => {
    const submitted = await submitConvert(
      server.url,
      key,
      { name: 'site.zip', data: await zipOf({ 'readme.txt': 'no page here' }) },
      { to: 'pdf' },
    );
    expect(submitted.status).toBe(200);
    const job = await waitForJob(server.url, key, submitted.body.jobId, 60_000);
    expect(job).toMatchObject({ status: 'failed', error: expect.stringContaining('index.html') });
  }, 90_000);

  it('refuses a waitFor delay past 10 s before any credit is spent', async () => {
    const submitted = await submitConvert(
      server.url,
      key,
      { name: 'note.html', data: '<p>x</p>' },
      { to: 'pdf', waitFor: '30s' },
    );
    expect(submitted.status).toBe(400);
    expect(JSON.stringify(submitted.body)).toContain('10 s');
  });
});
