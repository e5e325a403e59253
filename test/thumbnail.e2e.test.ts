/**
 * op=thumbnail over HTTP with real engines: a PDF page (pdftoppm), a video frame (ffmpeg), a DOCX's
 * first page (LibreOffice) and a JPG (sharp), each at the asked width, in the asked `to` format.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, rgb } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runProcess } from '../core/engines/process.js';
import { thumbnailPlugins } from '../plugins/thumbnail/index.js';
import { convertAndDownload, startServer, submitConvert, type TestServer } from './helpers.js';

describe('op=thumbnail over HTTP', () => {
  let server: TestServer;
  let key: string;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'thumbnail-e2e-'));
    // Two A4 pages: white, then filled red.
    const pdf = await PDFDocument.create();
    pdf.addPage([595, 842]).drawText('First page', { x: 50, y: 780, size: 30 });
    pdf.addPage([595, 842]).drawRectangle({ x: 0, y: 0, width: 595, height: 842, color: rgb(1, 0, 0) });
    await writeFile(path.join(dir, 'two-pages.pdf'), await pdf.save());
    await runProcess(
      'ffmpeg',
      [
        '-v',
        'error',
        '-f',
        'lavfi',
        '-i',
        'testsrc=duration=2:size=320x240:rate=10',
        '-pix_fmt',
        'yuv420p',
        path.join(dir, 'clip.mp4'),
      ],
      { timeoutMs: 60_000 },
    );
    await writeFile(path.join(dir, 'memo.md'), '# Quarterly Memo\n\nThe octopus approved the budget.\n');
    await runProcess('pandoc', [path.join(dir, 'memo.md'), '-o', path.join(dir, 'memo.docx')], { timeoutMs: 30_000 });
    await sharp({ create: { width: 800, height: 600, channels: 3, background: { r: 20, g: 120, b: 220 } } })
      .jpeg()
      .toFile(path.join(dir, 'photo.jpg'));
    server = await startServer({ plugins: thumbnailPlugins });
  }, 120_000);
  beforeEach(async () => {
    key = await server.createKey('pro');
  });
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a PDF page (page 2) becomes a PNG 200 px wide, in the page proportions', async () => {
    const { data, filename } = await convertAndDownload(
      server.url,
      key,
      path.join(dir, 'two-pages.pdf'),
      { op: 'thumbnail', to: 'png', width: '200', page: '2' },
      90_000,
    );
    expect(filename).toMatch(/\.png$/);
    const { width, height, format } = await sharp(data).metadata();
    expect({ width, height, format }).toEqual({ width: 200, height: 283, format: 'png' });
    const { data: pixel } = await sharp(data)
      .extract({ left: 100, top: 140, width: 1, height: 1 })
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect([...pixel.subarray(0, 3)]).toEqual([255, 0, 0]);
  }, 120_000);

  it('a video becomes a WEBP frame 160 px wide', async () => {
    const { data } = await convertAndDownload(
      server.url,
      key,
      path.join(dir, 'clip.mp4'),
      { op: 'thumbnail', to: 'webp', width: '160' },
      90_000,
    );
    const { width, height, format } = await sharp(data).metadata();
    expect({ width, height, format }).toEqual({ width: 160, height: 120, format: 'webp' });
    // testsrc is colourful: not a blank frame.
    const stats = await sharp(data).stats();
    expect(stats.channels.some((c) => c.stdev > 30)).toBe(true);
  }, 120_000);

  it('a DOCX becomes a JPG of its first page 300 px wide, with its text drawn', async () => {
    const { data } = await convertAndDownload(
      server.url,
      key,
      path.join(dir, 'memo.docx'),
      { op: 'thumbnail', to: 'jpg', width: '300' },
      120_000,
    );
    const { width, height, format } = await sharp(data).metadata();
    expect(width).toBe(300);
    expect(format).toBe('jpeg');
    // A4 or Letter portrait.
    expect(height! / width!).toBeGreaterThan(1.25);
    const { channels } = await sharp(data).stats();
    expect(channels[0]!.min).toBeLessThan(100); // dark text on the white page
  }, 150_000);

  it('a JPG becomes a thumbnail 100 px wide, and a 100x100 PNG with fit=cover', async () => {
    const small = await convertAndDownload(
      server.url,
      key,
      path.join(dir, 'photo.jpg'),
      { op: 'thumbnail', to: 'jpg', width: '100' },
      60_000,
    );
    expect(await sharp(small.data).metadata()).toMatchObject({ width: 100, height: 75, format: 'jpeg' });
    const square = await convertAndDownload(
      server.url,
      await server.createKey('pro'),
      path.join(dir, 'photo.jpg'),
      { op: 'thumbnail', to: 'png', width: '100', height: '100', fit: 'cover' },
      60_000,
    );
    expect(await sharp(square.data).metadata()).toMatchObject({ width: 100, height: 100, format: 'png' });
  }, 120_000);

  it('refuses a `to` that is not a picture, and a page the PDF does not have fails the job clearly', async () => {
    const refused = await submitConvert(server.url, key, path.join(dir, 'photo.jpg'), { op: 'thumbnail', to: 'gif' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain('png, webp, jpg');
    await expect(
      convertAndDownload(
        server.url,
        key,
        { name: 'two.pdf', data: await readFile(path.join(dir, 'two-pages.pdf')) },
        { op: 'thumbnail', to: 'png', page: '9' },
        60_000,
      ),
    ).rejects.toThrow('The PDF has no page 9');
  }, 90_000);
});
