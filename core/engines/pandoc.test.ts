import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { PluginError } from '../contract/index.js';
import { PANDOC, pandocConvert } from './pandoc.js';
import { rejectionOf, useEngineTestFiles } from './testing/files.js';

const files = useEngineTestFiles();

describe('pandoc', () => {
  it('requires the pandoc package', () => {
    expect(PANDOC).toEqual({ command: 'pandoc', debian: 'pandoc', license: 'GPL-2.0-or-later' });
  });

  it('converts in the work dir', async () => {
    const ctx = await files().ctx();
    const output = path.join(ctx.workDir, 'out.html');
    await pandocConvert(
      { input: files().notPdf, from: 'markdown', to: 'html', output, workDir: ctx.workDir, summary: 'x' },
      ctx,
    );
    expect(await readFile(output, 'utf8')).toContain('this is plain text');
  });

  it('writes HTML under --sandbox, and DOCX and EPUB where this pandoc cannot sandbox their writers', async () => {
    const ctx = await files().ctx();
    for (const to of ['html5', 'docx', 'epub3']) {
      const output = path.join(ctx.workDir, `out.${to}`);
      await pandocConvert(
        { input: files().notPdf, from: 'markdown', to, output, workDir: ctx.workDir, summary: 'x' },
        ctx,
      );
      expect((await readFile(output)).length).toBeGreaterThan(0);
    }
  });

  it('a file that is no DOCX is a PluginError after the summary, in pandoc`s words', async () => {
    const ctx = await files().ctx();
    const summary = 'Could not convert this DOCX to EPUB (the file may be damaged)';
    const error = await rejectionOf(
      pandocConvert(
        {
          input: files().notPdf,
          from: 'docx',
          to: 'epub3',
          output: path.join(ctx.workDir, 'out.epub'),
          workDir: ctx.workDir,
          summary,
        },
        ctx,
      ),
    );
    expect(error).toBeInstanceOf(PluginError);
    expect(error.message.startsWith(summary)).toBe(true);
    expect(error.message).not.toContain(files().dir);
  });
});
