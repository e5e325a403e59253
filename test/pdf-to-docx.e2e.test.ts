/**
 * PDF -> DOCX over HTTP: a PDF printed from a known DOCX, uploaded with to=docx on
 * POST /api/v1/convert (a Free key: it is a conversion, not a tool op), comes back as a DOCX
 * with the same headings, whole paragraphs and the same table grid.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pdfToDocxPlugin } from '../plugins/markdown/pdf-to-docx/index.js';
import { HEADINGS, PARAGRAPHS, TABLE, readDocx, reportPdf } from '../plugins/markdown/testing/docx.js';
import { convertAndDownload, startServer, submitConvert, type TestServer } from './helpers.js';

describe('PDF to DOCX over HTTP', () => {
  let server: TestServer;
  let dir: string;
  let pdf: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pdf-to-docx-e2e-'));
    [server, pdf] = await Promise.all([startServer({ plugins: [pdfToDocxPlugin] }), reportPdf(dir)]);
  }, 120_000);
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('converts with to=docx and keeps headings, paragraphs and the table', async () => {
    const key = await server.createKey('free');
    const { outputPath, filename } = await convertAndDownload(server.url, key, pdf, { to: 'docx' });
    expect(path.extname(filename)).toBe('.docx');
    const { paragraphs, tables } = await readDocx(outputPath);
    expect(paragraphs.filter((p) => /^Heading\d$/.test(p.style)).map((p) => p.text)).toEqual(
      HEADINGS.map((h) => h.text),
    );
    for (const text of PARAGRAPHS) expect(paragraphs.map((p) => p.text)).toContain(text);
    expect(tables).toEqual([TABLE]);
  });

  it('refuses an op on the conversion with 400', async () => {
    const key = await server.createKey('pro');
    const res = await submitConvert(server.url, key, pdf, { to: 'docx', op: 'compress' });
    expect(res.status).toBe(400);
  });
});
