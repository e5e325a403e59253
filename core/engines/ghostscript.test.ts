import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PluginError } from '../contract/index.js';
import { GHOSTSCRIPT, pdfWrite } from './ghostscript.js';
import { FONT_PACKAGES } from './fonts.js';
import { runProcess } from './process.js';
import { openPdf } from './qpdf.js';
import { rejectionOf, useEngineTestFiles } from './testing/files.js';

const files = useEngineTestFiles();

describe('ghostscript', () => {
  it('requires the ghostscript package for gs, and the fonts', () => {
    expect(GHOSTSCRIPT).toEqual({
      command: 'gs',
      debian: ['ghostscript', ...FONT_PACKAGES],
      license: 'AGPL-3.0-or-later',
    });
  });

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
});
