import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PluginError } from '../contract/index.js';
import { EngineError } from './process.js';
import {
  ENCRYPTED_PDF_MESSAGE,
  QPDF,
  UNREADABLE_PDF_MESSAGE,
  isEncrypted,
  openPdf,
  qpdfFailure,
  runQpdf,
} from './qpdf.js';
import { PASSWORD, rejectionOf, useEngineTestFiles } from './testing/files.js';

const files = useEngineTestFiles();

describe('qpdf', () => {
  it('requires the qpdf package', () => {
    expect(QPDF).toEqual({ command: 'qpdf', debian: 'qpdf', license: 'Apache-2.0' });
  });

  it('opens a PDF: its page count, the job file gone afterwards', async () => {
    const ctx = await files().ctx();
    expect(await openPdf(files().pdf, ctx)).toBe(2);
    expect(await readdir(ctx.workDir)).toEqual([]);
  });

  it('a truncated PDF is a PluginError quoting qpdf without server paths', async () => {
    const error = await rejectionOf(openPdf(files().truncatedPdf, await files().ctx()));
    expect(error).toBeInstanceOf(PluginError);
    expect(error.message.startsWith(`${UNREADABLE_PDF_MESSAGE} (`)).toBe(true);
    expect(error.message).not.toContain(files().dir);
  });

  it(
    'an encrypted PDF: unlock first without a password, "Wrong password" with a wrong one, pages with the right ' +
      'one',
    async () => {
      expect((await rejectionOf(openPdf(files().encryptedPdf, await files().ctx()))).message).toBe(
        ENCRYPTED_PDF_MESSAGE,
      );
      expect(
        (await rejectionOf(openPdf(files().encryptedPdf, await files().ctx(), { password: 'nope' }))).message,
      ).toBe('Wrong password');
      expect(await openPdf(files().encryptedPdf, await files().ctx(), { password: PASSWORD })).toBe(2);
      expect(await isEncrypted(files().encryptedPdf, await files().ctx())).toBe(true);
      expect(await isEncrypted(files().pdf, await files().ctx())).toBe(false);
    },
  );

  it('a failed job names what failed, in qpdf`s words', async () => {
    const ctx = await files().ctx();
    const error = await rejectionOf(
      runQpdf(
        { inputFile: files().notPdf, outputFile: path.join(ctx.workDir, 'out.pdf') },
        ctx,
        'The PDF could not be rotated',
      ),
    );
    expect(error).toBeInstanceOf(PluginError);
    expect(error.message).toMatch(/^The PDF could not be rotated \(.+\)$/);
  });

  it('leaves aborts to the runner', () => {
    const controller = new AbortController();
    const err = new EngineError('qpdf exited with code 2', 'exit', 'qpdf', 2, 'qpdf: /tmp/x.pdf: damaged');
    expect(qpdfFailure(err, controller.signal, 'x')).toBeInstanceOf(PluginError);
    controller.abort();
    expect(qpdfFailure(err, controller.signal, 'x')).toBe(err);
  });
});
