import path from 'node:path';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { strToU8, unzipSync, zipSync } from 'fflate';
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

  it('an ODT picture outside the document is not embedded in the EPUB, however its path is spelled', async () => {
    // Unconfined (unit tests run engines bare): pandoc itself must not read the file.
    const secretDir = await mkdtemp(path.join(os.tmpdir(), 'pandoc-secret-'));
    const secret = path.join(secretDir, 'secret.png');
    const secretBytes = Buffer.from(`secret-${Date.now()}-bytes`);
    try {
      await writeFile(secret, secretBytes);
      const ctx = await files().ctx();
      for (const href of [
        encodeURIComponent(secret),
        secret,
        `file://${secret}`,
        `..%2F..%2F..%2F..%2F..%2F..%2F..%2F..${encodeURIComponent(secret)}`,
        encodeURIComponent('/proc/self/environ'),
      ]) {
        const input = path.join(ctx.workDir, 'linked.odt');
        await writeFile(input, odtLinking(href));
        const output = path.join(ctx.workDir, 'out.epub');
        await pandocConvert({ input, from: 'odt', to: 'epub3', output, workDir: ctx.workDir, summary: 'x' }, ctx);
        const entries = unzipSync(new Uint8Array(await readFile(output)));
        expect(
          Object.keys(entries).filter((name) => name.includes('media/')),
          href,
        ).toEqual([]);
        const text = Buffer.from(entries['EPUB/text/ch001.xhtml'] ?? new Uint8Array()).toString('utf8');
        expect(text).toContain('Picture below');
      }
    } finally {
      await rm(secretDir, { recursive: true, force: true });
    }
  });
});

/** An ODT whose only picture links (not embeds) `href`. */
function odtLinking(href: string): Buffer {
  const ns =
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ' +
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ' +
    'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" ' +
    'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" xmlns:xlink="http://www.w3.org/1999/xlink"';
  const content =
    `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${ns} office:version="1.2"><office:body>` +
    '<office:text><text:p>Picture below</text:p><text:p><draw:frame svg:width="2cm" svg:height="2cm">' +
    `<draw:image xlink:href="${href.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}" xlink:type="simple"/>` +
    '</draw:frame></text:p></office:text></office:body></office:document-content>';
  const styles =
    `<?xml version="1.0" encoding="UTF-8"?><office:document-styles ${ns}><office:styles/>` +
    '</office:document-styles>';
  return Buffer.from(
    zipSync({
      mimetype: [strToU8('application/vnd.oasis.opendocument.text'), { level: 0 }],
      'content.xml': strToU8(content),
      'styles.xml': strToU8(styles),
    }),
  );
}
