import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PluginError } from '../contract/index.js';
import { OCRMYPDF, ocrPdf } from './ocrmypdf.js';
import { EngineError, runProcess } from './process.js';
import { ENCRYPTED_PDF_MESSAGE, UNREADABLE_PDF_MESSAGE } from './qpdf.js';
import { PAGE_TEXTS, rejectionOf, useEngineTestFiles } from './testing/files.js';

const files = useEngineTestFiles();

describe('ocrmypdf', () => {
  it('requires ocrmypdf, tesseract with the four languages and a Japanese font; MPL-2.0', () => {
    expect(OCRMYPDF).toEqual({
      command: 'ocrmypdf',
      debian: [
        'ocrmypdf',
        'tesseract-ocr',
        'tesseract-ocr-eng',
        'tesseract-ocr-fra',
        'tesseract-ocr-deu',
        'tesseract-ocr-jpn',
        'fonts-ipafont-gothic',
      ],
      license: 'MPL-2.0',
    });
  });

  it('keeps a PDF that has text as it reads (skip-text)', async () => {
    const ctx = await files().ctx(60_000);
    const output = path.join(ctx.workDir, 'out.pdf');
    const pages: number[] = [];
    await ocrPdf(files().pdf, output, ctx, { languages: 'eng', onPage: (page) => pages.push(page) });
    const { stdout } = await runProcess('pdftotext', [output, '-'], { timeoutMs: 10_000 });
    expect(
      stdout
        .split('\f')
        .map((page) => page.trim())
        .filter(Boolean),
    ).toEqual(PAGE_TEXTS);
    expect((await readFile(output)).subarray(0, 5).toString()).toBe('%PDF-');
  }, 60_000);

  it('an encrypted PDF and a file that is not a PDF are PluginErrors without server paths', async () => {
    const encrypted = await rejectionOf(
      ocrPdf(files().encryptedPdf, path.join(files().dir, 'e.pdf'), await files().ctx(), { languages: 'eng' }),
    );
    expect(encrypted).toEqual(new PluginError(ENCRYPTED_PDF_MESSAGE));
    const notPdf = await rejectionOf(
      ocrPdf(files().notPdf, path.join(files().dir, 'n.pdf'), await files().ctx(), { languages: 'eng' }),
    );
    expect(notPdf).toBeInstanceOf(PluginError);
    expect(notPdf.message.startsWith(UNREADABLE_PDF_MESSAGE)).toBe(true);
    expect(notPdf.message).not.toContain(files().dir);
  }, 60_000);

  it('missing language data is a broken install: the EngineError passes through', async () => {
    const error = await rejectionOf(
      ocrPdf(files().pdf, path.join(files().dir, 'x.pdf'), await files().ctx(), { languages: 'xyz' }),
    );
    expect(error).toBeInstanceOf(EngineError);
  }, 60_000);

  it('an aborted run passes the abort through', async () => {
    const controller = new AbortController();
    const ctx = { ...(await files().ctx()), signal: controller.signal };
    const running = ocrPdf(files().pdf, path.join(files().dir, 'a.pdf'), ctx, { languages: 'eng' });
    setTimeout(() => controller.abort(), 200);
    const error = await rejectionOf(running);
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).reason).toBe('aborted');
  }, 60_000);
});
