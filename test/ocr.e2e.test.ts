/**
 * op=ocr through HTTP: a generated scan uploaded to POST /api/v1/convert comes back searchable;
 * `lang` is validated at submit time (400), and a Free key gets the plan gate. A 5,000-page PDF
 * of a few kilobytes is refused at submit with the page limit named (bounded work).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneLine, pdfText, scannedPdf } from '../plugins/ocr/testing/fixtures.js';
import { ocrPlugins } from '../plugins/ocr/index.js';
import { pdfSharedPages } from './fixtures/hostile.js';
import { convertAndDownload, getJson, startServer, submitConvert, type TestServer } from './helpers.js';

describe('ocr over HTTP', () => {
  let server: TestServer;
  let dir: string;
  let scan: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'ocr-e2e-'));
    [server, scan] = await Promise.all([
      startServer({ plugins: ocrPlugins }),
      scannedPdf(path.join(dir, 'scan.pdf'), [['Invoice number 4711'], ['Le total est de cent euros']]),
    ]);
  }, 60_000);
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('returns the scan with a searchable text layer', async () => {
    const key = await server.createKey('pro');
    const { job, outputPath, filename } = await convertAndDownload(
      server.url,
      key,
      scan,
      { to: 'pdf', op: 'ocr', lang: 'eng+fra' },
      120_000,
    );
    expect(job.status).toBe('done');
    expect(filename).toBe('scan.pdf');
    const text = oneLine(await pdfText(outputPath));
    expect(text).toContain('Invoice number 4711');
    expect(text).toContain('Le total est de cent euros');
  }, 150_000);

  it('refuses a language outside the list before any credit is spent', async () => {
    const key = await server.createKey('pro');
    for (const lang of ['spa', 'eng+fra+deu+jpn']) {
      const { status, body } = await submitConvert(server.url, key, scan, { to: 'pdf', op: 'ocr', lang });
      expect(status).toBe(400);
      expect(body.error).toMatch(/lang/);
    }
  });

  it('is a paid op: a Free key gets 403', async () => {
    const { status, body } = await submitConvert(server.url, await server.createKey('free'), scan, {
      to: 'pdf',
      op: 'ocr',
    });
    expect(status).toBe(403);
    expect(body.code).toBe('plan_required');
  });

  it('refuses a 5,000-page PDF of a few kilobytes at submit, naming the page limit, and charges nothing', async () => {
    const key = await server.createKey('pro');
    const pages = pdfSharedPages(5000);
    expect(pages.length).toBeLessThan(50_000);
    const { status, body } = await submitConvert(
      server.url,
      key,
      { name: 'pages.pdf', data: pages },
      { to: 'pdf', op: 'ocr' },
    );
    expect(status).toBe(400);
    expect(body.error).toBe(
      "op 'ocr' takes at most 250 pages per job; pages.pdf has 5,000 pages: split it first (op split-pdf)",
    );
    expect((await getJson(`${server.url}/api/v1/credits`, key)).body.creditsUsed).toBe(0);
    expect((await getJson(`${server.url}/api/v1/history`, key)).body.total).toBe(0);
  });
});
