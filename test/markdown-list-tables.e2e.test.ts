/**
 * A table set inside a list item is a table in the Markdown, and the list goes on around it: the same HTML printed by
 * the project's own browser engine (html-to-pdf) and exported by LibreOffice (Writer/Web's PDF export, as an office
 * suite prints a web page), read back by pdf-to-markdown's engine. Checked on the cells and the items.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFileResult } from '../core/contract/index.js';
import { runPlugin } from '../core/contract/testing/index.js';
import { closeChromiumPool } from '../core/engines/chromium.js';
import { runProcess } from '../core/engines/process.js';
import { pdfToMarkdown } from '../plugins/markdown/shared/engine/index.js';
import { markdownTables } from '../plugins/markdown/testing/tables.js';
import { htmlToPdfPlugin } from '../plugins/web/html-to-pdf/index.js';

const VERSIONS = [
  ['Component', 'Minimum', 'Tested up to'],
  ['Python', '3.8', '3.12'],
  ['PostgreSQL', '12', '16'],
  ['Redis', '6.0', '7.2'],
];
const OPTIONS = [
  ['Option', 'Default'],
  ['retries', '3'],
  ['timeout', '30 s'],
  ['backoff', '2.0'],
];

const table = ([head, ...rows]: string[][]) =>
  `<table><thead><tr>${head!.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>` +
  rows.map((row) => `<tr>${row.map((cell) => `<td>${cell}</td>`).join('')}</tr>`).join('') +
  '</tbody></table>';

const HTML =
  '<!doctype html><html><head><meta charset="utf-8"><style>body{font-family:"Liberation Sans";font-size:12pt}' +
  'table{border-collapse:collapse}td,th{border:1px solid #000;padding:3px 8px}</style></head><body>' +
  '<h1>Release checklist</h1><ol><li>Freeze the branch and tag the candidate.</li>' +
  `<li>Check the supported versions:${table(VERSIONS)}</li><li>Publish the release notes.</li></ol>` +
  `<ul><li>Plain options:${table(OPTIONS)}</li><li>Another item.</li></ul></body></html>`;

describe('pdf-to-markdown: tables inside list items', () => {
  let dir: string;
  let html: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'list-tables-'));
    html = path.join(dir, 'checklist.html');
    await writeFile(html, HTML);
  });
  afterAll(async () => {
    await closeChromiumPool();
    await rm(dir, { recursive: true, force: true });
  });

  const expectListAround = (markdown: string) => {
    expect(markdownTables(markdown)).toEqual([VERSIONS, OPTIONS]);
    const lines = markdown.split('\n');
    for (const item of ['1. Freeze the branch', '2. Check the supported versions:', '3. Publish the release notes.'])
      expect(lines.some((line) => line.startsWith(item))).toBe(true);
  };

  it('printed by the browser', async () => {
    const run = await runPlugin(htmlToPdfPlugin, [{ path: html, format: 'html' }], {}, { workDir: dir });
    if (!isFileResult(run.result)) throw new Error('html-to-pdf gave no file');
    expectListAround((await pdfToMarkdown(new Uint8Array(await readFile(run.result.path)))).markdown);
  }, 120_000);

  it('exported by an office suite, bullets and all', async () => {
    const out = path.join(dir, 'office');
    await runProcess(
      'soffice',
      [
        `-env:UserInstallation=${pathToFileURL(path.join(dir, 'profile')).href}`,
        '--headless',
        '--convert-to',
        'pdf:writer_web_pdf_Export',
        '--outdir',
        out,
        html,
      ],
      { timeoutMs: 120_000 },
    );
    const { markdown } = await pdfToMarkdown(new Uint8Array(await readFile(path.join(out, 'checklist.pdf'))));
    expectListAround(markdown);
    expect(markdown).toContain('- Plain options:');
    expect(markdown).toContain('- Another item.');
  }, 180_000);
});
