import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PluginError } from '../contract/index.js';
import { FONT_PACKAGES } from './fonts.js';
import { CIDFONT_SUBSTITUTES, GHOSTSCRIPT, pdfToPdfa, pdfWrite } from './ghostscript.js';
import { runProcess } from './process.js';
import { openPdf } from './qpdf.js';
import { CJK_PDFS, expectCjkKept } from './testing/cjk-pdfs.js';
import { rejectionOf, useEngineTestFiles } from './testing/files.js';

const files = useEngineTestFiles();

describe('ghostscript', () => {
  it('requires the ghostscript package for gs, the fonts, the CIDFont substitutes and pdffonts', () => {
    expect(GHOSTSCRIPT).toEqual({
      command: 'gs',
      debian: ['ghostscript', ...FONT_PACKAGES, 'fonts-ipafont-gothic', 'fonts-wqy-microhei', 'poppler-utils'],
      license: 'AGPL-3.0-or-later',
    });
    for (const file of Object.values(CIDFONT_SUBSTITUTES)) expect(existsSync(file), file).toBe(true);
  });

  // Unembedded Chinese, Japanese and Korean CIDFonts: Ghostscript 10.0's own PDF interpreter drew every character
  // with the glyph numbered like its CID in a fallback font (the text layer still read right).
  it.each(CJK_PDFS.map((pdf) => [pdf.name, pdf] as const))(
    '%s keeps every character, drawn with its own glyph, through pdfwrite and PDF/A',
    async (_name, pdf) => {
      const ctx = await files().ctx();
      const compressed = path.join(ctx.workDir, 'compressed.pdf');
      await pdfWrite(pdf.path, compressed, ctx, { settings: '/ebook', summary: 'x' });
      await expectCjkKept(compressed, pdf);
      const pdfa = path.join(ctx.workDir, 'pdfa.pdf');
      await pdfToPdfa(pdf.path, pdfa, ctx, {
        part: 2,
        definitionFile: path.join(ctx.workDir, 'pdfa.ps'),
        summary: 'x',
      });
      await expectCjkKept(pdfa, pdf);
    },
  );

  it('rewrites a PDF through pdfwrite, even to a name with a %', async () => {
    const ctx = await files().ctx();
    const output = path.join(ctx.workDir, 'out %d.pdf');
    await pdfWrite(files().pdf, output, ctx, { settings: '/ebook', summary: 'The PDF could not be compressed' });
    expect(await openPdf(output, ctx)).toBe(2);
  });

  it('gs never starts without -dSAFER, whoever calls it', async () => {
    await expect(
      runProcess('gs', ['-q', '-dNOPAUSE', '-dBATCH', '-sDEVICE=nullpage', files().pdf], { timeoutMs: 30_000 }),
    ).rejects.toThrow(/-dSAFER/);
  });

  it('a file that is no PDF is a PluginError after the summary, without server paths', async () => {
    const ctx = await files().ctx();
    const error = await rejectionOf(
      pdfWrite(files().notPdf, path.join(ctx.workDir, 'out.pdf'), ctx, {
        settings: '/ebook',
        summary: 'The PDF could not be compressed',
      }),
    );
    expect(error).toBeInstanceOf(PluginError);
    expect(error.message).toMatch(/^The PDF could not be compressed( \(.+\))?$/);
    expect(error.message).not.toContain(files().dir);
  });

  it.each([
    ['', false],
    [' (with an unembedded CIDFont: the PostScript interpreter)', true],
  ])(
    'a page whose content is an external stream (/F) in the system temp folder reads nothing from there%s',
    async (_what, withCidFont) => {
      // Unconfined (unit tests run engines bare): the host's own /tmp is what -dSAFER alone would open.
      const secretDir = await mkdtemp(path.join(os.tmpdir(), 'gs-secret-'));
      const marker = `GSSECRET${randomUUID().replaceAll('-', '')}`;
      const secret = path.join(secretDir, 'content.txt');
      try {
        await writeFile(secret, `BT /F1 24 Tf 72 700 Td (${marker}) Tj ET\n`);
        const ctx = await files().ctx();
        const input = path.join(ctx.workDir, 'external.pdf');
        await writeFile(input, pdfWithExternalContent(secret, withCidFont));
        const compressed = path.join(ctx.workDir, 'compressed.pdf');
        await pdfWrite(input, compressed, ctx, { settings: '/ebook', summary: 'x' }).catch(() => undefined);
        const pdfa = path.join(ctx.workDir, 'pdfa.pdf');
        await pdfToPdfa(input, pdfa, ctx, {
          part: 2,
          definitionFile: path.join(ctx.workDir, 'pdfa.ps'),
          summary: 'x',
        }).catch(() => undefined);
        for (const output of [compressed, pdfa]) {
          const text = await runProcess('pdftotext', [output, '-'], { timeoutMs: 30_000 }).then(
            (r) => r.stdout,
            () => '',
          );
          expect(text, path.basename(output)).not.toContain(marker);
        }
      } finally {
        await rm(secretDir, { recursive: true, force: true });
      }
    },
  );
});

/**
 * A one-page PDF whose content stream is the external file `file` (a stream's /F key); with `cidFont`, its resources
 * also hold a Japanese CIDFont that is not embedded.
 */
function pdfWithExternalContent(file: string, cidFont = false): Buffer {
  const cid =
    ' /F2 << /Type /Font /Subtype /Type0 /BaseFont /Ryumin-Light /Encoding /Identity-H /DescendantFonts [<< /Type ' +
    '/Font /Subtype /CIDFontType0 /BaseFont /Ryumin-Light /CIDSystemInfo << /Registry (Adobe) /Ordering (Japan1) ' +
    '/Supplement 2 >> /FontDescriptor << /Type /FontDescriptor /FontName /Ryumin-Light /Flags 4 /FontBBox [0 -141 ' +
    '1000 859] /ItalicAngle 0 /Ascent 859 /Descent -141 /CapHeight 700 /StemV 80 >> >>] >>';
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 << /Type /Font ' +
      `/Subtype /Type1 /BaseFont /Helvetica >>${cidFont ? cid : ''} >> >> >>`,
    `<< /Length 0 /F (${file}) >>\nstream\n\nendstream`,
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  body += offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}
