/**
 * remove-watermark over HTTP: a watermarked PDF uploaded to POST /api/v1/convert comes back
 * without its watermarks (text, uncompressed content, raw bytes) and with toolReport.detected;
 * a PDF without any reports 0 and downloads byte for byte.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pdfPlugins } from '../plugins/pdf/index.js';
import {
  KEPT_TEXT,
  WATERMARK_ELEMENTS,
  WATERMARK_MARKERS,
  pdfText,
  plainPdf,
  qdfText,
  rawText,
  watermarkedPdf,
} from '../plugins/pdf/testing/watermark.js';
import { convertAndDownload, startServer, type TestServer } from './helpers.js';

describe('remove-watermark over HTTP', () => {
  let server: TestServer;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'watermark-e2e-'));
    [server] = await Promise.all([
      startServer({ plugins: pdfPlugins }),
      watermarkedPdf(path.join(dir, 'marked.pdf')),
      plainPdf(path.join(dir, 'plain.pdf')),
    ]);
  }, 60_000);
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('removes the watermarks and reports how many', async () => {
    const key = await server.createKey('pro');
    const { job, outputPath } = await convertAndDownload(server.url, key, path.join(dir, 'marked.pdf'), {
      to: 'pdf',
      op: 'remove-watermark',
    });
    expect(job.toolReport).toEqual({ op: 'remove-watermark', detected: WATERMARK_ELEMENTS });
    const [text, qdf, raw] = await Promise.all([pdfText(outputPath), qdfText(outputPath, dir), rawText(outputPath)]);
    for (const marker of WATERMARK_MARKERS) expect([text, qdf, raw].some((s) => s.includes(marker))).toBe(false);
    for (const kept of KEPT_TEXT) expect(text).toContain(kept);
  });

  it('reports 0 and returns the file unchanged when there is no watermark', async () => {
    const key = await server.createKey('pro');
    const { job, data } = await convertAndDownload(server.url, key, path.join(dir, 'plain.pdf'), {
      to: 'pdf',
      op: 'remove-watermark',
    });
    expect(job.toolReport).toEqual({ op: 'remove-watermark', detected: 0 });
    expect(data.equals(await readFile(path.join(dir, 'plain.pdf')))).toBe(true);
  });
});
