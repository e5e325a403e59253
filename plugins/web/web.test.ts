import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFileResult } from '../../core/contract/index.js';
import { pluginConformanceSuite, runPlugin } from '../../core/contract/testing/index.js';
import { closeChromiumPool } from '../../core/engines/chromium.js';
import { runProcess } from '../../core/engines/process.js';
import { htmlToPdfPlugin } from './html-to-pdf/index.js';
import { invoiceZip, zipOf } from './testing/invoice.js';
import { markdownDocument } from './md-to-pdf/run.js';
import { mdToPdfPlugin } from './md-to-pdf/index.js';
import { parseWaitFor } from './shared/options.js';
import { standardPlugins } from '../index.js';

const dir = await mkdtemp(path.join(os.tmpdir(), 'web-plugins-'));
const file = (name: string) => path.join(dir, name);
beforeAll(async () => {
  await writeFile(file('page.html'), '<!doctype html><h1>Conformance page</h1>');
  await writeFile(file('notes.md'), '# Notes\n\n| a | b |\n|---|---|\n| 1 | 2 |\n');
  await writeFile(file('invoice.zip'), await invoiceZip());
  await writeFile(
    file('nested.zip'),
    await zipOf({ 'site/index.html': '<p>Nested site page</p>', 'site/a.css': 'p{}' }),
  );
  // yazl refuses '../' names: write a same-length name and patch it in both headers.
  const escaping = await zipOf({ 'index.html': '<p>x</p>', 'QQ/outside.txt': 'escaped' });
  await writeFile(
    file('escape.zip'),
    Buffer.from(escaping.toString('latin1').replaceAll('QQ/outside.txt', '../outside.txt'), 'latin1'),
  );
});
afterAll(async () => {
  await closeChromiumPool();
  await rm(dir, { recursive: true, force: true });
});

const pdfText = async (pdf: string) => (await runProcess('pdftotext', [pdf, '-'], { timeoutMs: 10_000 })).stdout;

pluginConformanceSuite(
  htmlToPdfPlugin,
  [
    {
      name: 'html',
      files: [{ path: file('page.html'), format: 'html' }],
      expectFormat: 'pdf',
      check: async (run) => expect(await pdfText((run.result as { path: string }).path)).toContain('Conformance page'),
    },
    {
      name: 'zip',
      files: [{ path: file('invoice.zip'), format: 'zip' }],
      options: { paper: 'A5', margin: { top: 5, right: 5, bottom: 5, left: 5 } },
      expectFormat: 'pdf',
    },
  ],
  {
    against: standardPlugins,
    wireOptions: [
      {
        paper: 'Letter',
        landscape: 'true',
        scale: '0.8',
        waitFor: 'networkidle',
        footerHtml: '<span class="pageNumber"></span>',
      },
      {
        outline: 'true',
        tagged: 'true',
        pdfua: 'true',
        preferCssPageSize: 'true',
        emulatedMediaType: 'screen',
        metadata: '{"title":"T","author":"A","subject":"S","keywords":["k"]}',
        failOnConsoleExceptions: 'true',
      },
    ],
    abortGraceMs: 5_000,
  },
);
pluginConformanceSuite(
  mdToPdfPlugin,
  [{ name: 'md', files: [{ path: file('notes.md'), format: 'md' }], expectFormat: 'pdf' }],
  { against: standardPlugins, abortGraceMs: 5_000 },
);

describe('web plugins', () => {
  it('reads waitFor as an event, a delay of at most 10 s, or a selector', () => {
    expect(parseWaitFor('load')).toEqual({ kind: 'load' });
    expect(parseWaitFor('networkidle')).toEqual({ kind: 'networkidle' });
    expect(parseWaitFor('1500')).toEqual({ kind: 'delay', ms: 1500 });
    expect(parseWaitFor('2s')).toEqual({ kind: 'delay', ms: 2000 });
    expect(parseWaitFor('250ms')).toEqual({ kind: 'delay', ms: 250 });
    expect(parseWaitFor('11s')).toEqual({ error: 'a delay of at most 10 s' });
    expect(parseWaitFor('#chart.ready')).toEqual({ kind: 'selector', selector: '#chart.ready' });
  });

  it('shows raw HTML in Markdown as text, and renders GFM tables and code', () => {
    const html = markdownDocument('<script>alert(1)</script>\n\n| a |\n|---|\n| 1 |\n\n```\ncode()\n```\n', 'T<1>');
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('&lt;script&gt;');
    expect(html).toContain('<table>');
    expect(html).toContain('<pre><code>code()');
    expect(html).toContain('<title>T&#60;1&#62;</title>');
  });

  it("finds index.html in the ZIP's one top folder", async () => {
    const run = await runPlugin(htmlToPdfPlugin, [{ path: file('nested.zip'), format: 'zip' }]);
    if (!isFileResult(run.result)) throw new Error('expected a file');
    expect(await pdfText(run.result.path)).toContain('Nested site page');
  }, 60_000);

  // yauzl refuses such names as it reads the directory (a damaged ZIP); unpack() checks again.
  it('refuses a ZIP entry that would land outside its folder', async () => {
    await expect(runPlugin(htmlToPdfPlugin, [{ path: file('escape.zip'), format: 'zip' }])).rejects.toThrow(
      /damaged|outside its own folder/,
    );
  });
});
