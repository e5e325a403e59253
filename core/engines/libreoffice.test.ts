import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PluginError } from '../contract/index.js';
import { SOFFICE, convertDocument, libreOfficeFailure } from './libreoffice.js';
import { FONT_PACKAGES } from './fonts.js';
import { EngineError } from './process.js';
import { rejectionOf, useEngineTestFiles } from './testing/files.js';

const files = useEngineTestFiles();

async function job(name: string, content: string | Buffer) {
  const ctx = await files().ctx();
  const input = path.join(ctx.workDir, name);
  await writeFile(input, content);
  return {
    ctx,
    job: {
      input,
      outDir: path.join(ctx.workDir, 'out'),
      profileDir: path.join(ctx.workDir, 'profile'),
      summary: 'Could not convert this document to PDF',
    },
  };
}

describe('LibreOffice', () => {
  it(
    'requires the Writer, Calc and Impress packages for soffice, python3-uno for the warm pool and the fonts (one ' +
      'definition for every plugin)',
    () => {
      expect(SOFFICE).toEqual({
        command: 'soffice',
        debian: [
          'libreoffice-writer-nogui',
          'libreoffice-calc-nogui',
          'libreoffice-impress-nogui',
          'python3-uno',
          ...FONT_PACKAGES,
        ],
        license: 'MPL-2.0',
      });
    },
  );

  it('converts a text file to PDF', async () => {
    const { ctx, job: base } = await job('note.txt', 'hello from soffice\n');
    const output = await convertDocument(
      { ...base, convertTo: 'pdf:writer_pdf_Export', inputFilter: 'Text (encoded):UTF8', inputLabel: 'TXT' },
      ctx,
    );
    expect(path.basename(output)).toBe('note.pdf');
  }, 60_000);

  it('a damaged file (soffice exits 0, writes nothing) is a PluginError quoting its error line', async () => {
    const { ctx, job: base } = await job(
      'broken.docx',
      Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(2000, 0x5a)]),
    );
    const error = await rejectionOf(
      convertDocument(
        { ...base, convertTo: 'pdf:writer_pdf_Export', inputFilter: 'MS Word 2007 XML', inputLabel: 'DOCX' },
        ctx,
      ),
    );
    expect(error).toBeInstanceOf(PluginError);
    expect(error.message).toBe(
      'Could not convert this document to PDF: the file may be damaged or is not a DOCX file (Error: source file ' +
        'could not be loaded)',
    );
  }, 60_000);

  it('a run past its time is killed and is a PluginError', async () => {
    const { ctx, job: base } = await job('slow.txt', 'too slow\n');
    const error = await rejectionOf(
      convertDocument(
        { ...base, convertTo: 'pdf:writer_pdf_Export', inputLabel: 'TXT' },
        { ...ctx, remainingMs: () => 300 },
      ),
    );
    expect(error).toBeInstanceOf(PluginError);
    expect(error.message).toBe('Could not convert this document to PDF: the conversion took too long');
    expect((error as PluginError).cause).toBeInstanceOf(EngineError);
  });

  it('leaves aborts and a missing soffice to the runner', () => {
    const controller = new AbortController();
    const missing = new EngineError('soffice is not installed', 'missing', 'soffice', null, '');
    expect(libreOfficeFailure(missing, controller.signal, 'x')).toBe(missing);
    const exit = new EngineError(
      'soffice exited with code 1',
      'exit',
      'soffice',
      1,
      'Warning: failed to launch javaldx\nError: boom',
    );
    expect((libreOfficeFailure(exit, controller.signal, 'Summary') as Error).message).toBe('Summary (Error: boom)');
    controller.abort();
    expect(libreOfficeFailure(exit, controller.signal, 'x')).toBe(exit);
  });
});
