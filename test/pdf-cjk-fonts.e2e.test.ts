/**
 * Chinese, Japanese and Korean text in fonts a PDF names but does not embed, through the operations that rewrite a
 * PDF with Ghostscript, over HTTP: PDF/A (`to=pdf&pdfa=2b`, pdf-to-pdfa) and `op=compress-pdf`. Real PDFs from
 * dvipdfmx, ReportLab and pdf.js's test corpus (test/fixtures/pdf-cjk/README.md). Checked on the output: its text
 * holds every character, and each is drawn with the glyph the substitute font gives it (PyMuPDF), never .notdef;
 * the PDF/A embeds every font. Ghostscript 10.0 alone lost the text or drew other glyphs.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runProcess } from '../core/engines/process.js';
import { CJK_PDFS, expectCjkKept } from '../core/engines/testing/cjk-pdfs.js';
import { pdfPlugins } from '../plugins/pdf/index.js';
import { convertAndDownload, startServer, type TestServer } from './helpers.js';

/** pdffonts: the fonts of `pdf`, each embedded. */
async function expectEveryFontEmbedded(pdf: string): Promise<void> {
  const { stdout } = await runProcess('pdffonts', [pdf], { timeoutMs: 30_000 });
  const lines = stdout
    .split('\n')
    .slice(2)
    .filter((line) => line.trim());
  expect(lines.length).toBeGreaterThan(0);
  // Columns: name type encoding emb sub uni object ID; "emb" is the 4th from the end.
  for (const line of lines) expect(line.trim().split(/\s+/).at(-5), `not embedded: ${line}`).toBe('yes');
}

describe('unembedded CJK fonts through Ghostscript, over HTTP', () => {
  let server: TestServer;
  let key: string;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pdf-cjk-e2e-'));
    server = await startServer({ plugins: pdfPlugins });
  }, 60_000);
  beforeEach(async () => {
    key = await server.createKey('pro');
  });
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it.each(CJK_PDFS.map((pdf) => [pdf.name, pdf] as const))(
    '%s becomes a PDF/A-2b that says and draws every character',
    async (_name, pdf) => {
      const { outputPath } = await convertAndDownload(server.url, key, pdf.path, { to: 'pdf', pdfa: '2b' }, 120_000);
      expect((await runProcess('pdfinfo', ['-meta', outputPath], { timeoutMs: 30_000 })).stdout).toMatch(
        /pdfaid:part(='|>|=")2/,
      );
      await expectEveryFontEmbedded(outputPath);
      await expectCjkKept(outputPath, pdf);
    },
    180_000,
  );

  it('compress-pdf keeps every character of a ReportLab page that also holds a large photo', async () => {
    // compress-pdf returns the input when pdfwrite does not make it smaller: a photo at 600 dpi makes it so.
    const pdf = CJK_PDFS.find((fixture) => fixture.name === 'reportlab-cid.pdf')!;
    const doc = await PDFDocument.load(await readFile(pdf.path));
    const noise = await sharp({
      create: {
        width: 1200,
        height: 1200,
        channels: 3,
        background: '#808080',
        noise: { type: 'gaussian', mean: 128, sigma: 40 },
      },
    })
      .png()
      .toBuffer();
    doc.getPage(0).drawImage(await doc.embedPng(noise), { x: 72, y: 200, width: 144, height: 144 });
    const withPhoto = path.join(dir, 'cjk-photo.pdf');
    await writeFile(withPhoto, await doc.save());
    const { outputPath, data } = await convertAndDownload(
      server.url,
      key,
      withPhoto,
      { to: 'pdf', op: 'compress-pdf' },
      120_000,
    );
    expect(data.length).toBeLessThan((await readFile(withPhoto)).length / 2);
    await expectCjkKept(outputPath, pdf);
  }, 180_000);
});
