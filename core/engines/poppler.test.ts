import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PluginError } from '../contract/index.js';
import {
  PDFFONTS,
  PDFIMAGES,
  PDFTOPPM,
  PDFTOTEXT,
  extractImages,
  pdfFonts,
  pdfText,
  pdfTextToFile,
  popplerFailure,
  renderPages,
} from './poppler.js';
import { EngineError } from './process.js';
import { ENCRYPTED_PDF_MESSAGE } from './qpdf.js';
import { PAGE_TEXTS, rejectionOf, useEngineTestFiles } from './testing/files.js';

const files = useEngineTestFiles();

describe('poppler requirements', () => {
  it('are one Debian package for every command', () => {
    const all = [PDFTOTEXT, PDFTOPPM, PDFIMAGES, PDFFONTS];
    for (const requirement of all) expect(requirement.debian).toBe('poppler-utils');
    expect(all.map((r) => r.command)).toEqual(['pdftotext', 'pdftoppm', 'pdfimages', 'pdffonts']);
  });
});

describe('pdffonts', () => {
  it('lists each font with its type (spaces and all) and whether it is embedded', async () => {
    const fixture = path.join(import.meta.dirname, '../../test/fixtures/pdf-cjk/ryumin-identity-h.pdf');
    expect(await pdfFonts(fixture, await files().ctx())).toEqual([
      { name: 'YJDAOK+CMR10', type: 'Type 1C', embedded: true },
      { name: 'Ryumin-Light-Identity-H', type: 'CID Type 0', embedded: false },
    ]);
    expect(await pdfFonts(files().pdf, await files().ctx())).toEqual([
      expect.objectContaining({ type: 'Type 1', embedded: false }),
    ]);
  });
});

describe('pdftotext', () => {
  it('reads the text layer, every page ended by a form feed', async () => {
    const text = await pdfText(files().pdf, await files().ctx());
    expect(
      text
        .split('\f')
        .slice(0, -1)
        .map((page) => page.trim()),
    ).toEqual(PAGE_TEXTS);
  });

  it('writes the text to a file', async () => {
    const ctx = await files().ctx();
    const output = path.join(ctx.workDir, 'out.txt');
    await pdfTextToFile(files().pdf, output, ctx);
    expect(await readFile(output, 'utf8')).toContain(PAGE_TEXTS[1]);
  });

  it('a file that is no PDF is a PluginError in poppler`s words, without server paths', async () => {
    const error = await rejectionOf(pdfText(files().notPdf, await files().ctx()));
    expect(error).toBeInstanceOf(PluginError);
    expect(error.message).toMatch(/^The file is not a readable PDF; it may be damaged or truncated \(.+\)$/);
    expect(error.message).not.toContain(files().dir);
    expect((error as PluginError).cause).toBeInstanceOf(EngineError);
  });

  it('an encrypted PDF asks for it to be unlocked first', async () => {
    const error = await rejectionOf(pdfText(files().encryptedPdf, await files().ctx()));
    expect(error).toBeInstanceOf(PluginError);
    expect(error.message).toBe(ENCRYPTED_PDF_MESSAGE);
  });

  it('an abort passes through untranslated', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await rejectionOf(pdfText(files().pdf, { signal: controller.signal, remainingMs: () => 10_000 }));
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).reason).toBe('aborted');
  });
});

describe('pdftoppm and pdfimages', () => {
  it('renders pages as PNG files in page order', async () => {
    const ctx = await files().ctx();
    await renderPages(files().pdf, path.join(ctx.workDir, 'page'), ctx, { dpi: 50, gray: true, lastPage: 1 });
    const images = (await readdir(ctx.workDir)).filter((name) => name.endsWith('.png'));
    expect(images).toEqual(['page-1.png']);
    expect((await readFile(path.join(ctx.workDir, images[0]!))).subarray(1, 4).toString()).toBe('PNG');
  });

  it('a truncated PDF is a PluginError from either program', async () => {
    const ctx = await files().ctx();
    const render = await rejectionOf(renderPages(files().notPdf, path.join(ctx.workDir, 'page'), ctx, { dpi: 50 }));
    expect(render).toBeInstanceOf(PluginError);
    expect(render.message).toMatch(/^The file is not a readable PDF/);
    const images = await rejectionOf(extractImages(files().notPdf, path.join(ctx.workDir, 'img'), ctx));
    expect(images).toBeInstanceOf(PluginError);
    expect(images.message).toMatch(/^The images could not be extracted/);
  });
});

describe('popplerFailure', () => {
  const signal = new AbortController().signal;
  it('says when the permissions forbid copying', () => {
    const denied = new EngineError(
      'pdftotext exited with code 3',
      'exit',
      'pdftotext',
      3,
      'Permission Error: copying of text from this document is not allowed.',
    );
    expect((popplerFailure(denied, signal) as Error).message).toBe(
      "The PDF's permissions do not allow copying its text",
    );
  });

  it('leaves timeouts and missing programs to the runner', () => {
    const timeout = new EngineError('pdftotext timed out after 1 s', 'timeout', 'pdftotext', null, '');
    const missing = new EngineError('pdftotext is not installed', 'missing', 'pdftotext', null, '');
    expect(popplerFailure(timeout, signal)).toBe(timeout);
    expect(popplerFailure(missing, signal)).toBe(missing);
  });
});
