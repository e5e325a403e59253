/**
 * A word an office suite broke inside a narrow table cell is one word in the Markdown: a table of long names in a
 * narrow column, written as RTF, converted to PDF by office-convert (LibreOffice breaks each name where the cell's
 * line runs out: "ColumnD" over "efault", the bold header's "Keyword" over "Argumen" over "t") and read back by
 * pdf-to-markdown, both over HTTP. Checked on the cells; fails on the engine that joined a cell's lines with a space.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from '../core/engines/process.js';
import { pdfToMarkdownPlugin } from '../plugins/markdown/pdf-to-markdown/index.js';
import { officePlugins } from '../plugins/office/index.js';
import { authHeaders, convertAndDownload, getJson, startServer, type TestServer, waitUntil } from './helpers.js';
import { markdownTables } from '../plugins/markdown/testing/tables.js';

const HEADER = ['Keyword Argument', 'Description'];
const ROWS = [
  ['ColumnDefault', 'A plain default value on a column.'],
  ['FetchedValue', 'A marker for a transparent database-side default.'],
  ['DefaultGenerator', 'Base class for column default values.'],
  ['Identity', 'Defines an identity column.'],
];

/**
 * An RTF table without borders: a first column of 65 pt, too narrow for the names, cells centred in their rows and
 * padded apart (as LibreOffice exports an HTML table), the header in bold.
 */
function rtfTable(): string {
  const cell = (text: string, bold: boolean) => `\\pard\\intbl ${bold ? `{\\b ${text}}` : text}\\cell `;
  const row = (cells: readonly string[], bold: boolean) =>
    '\\trowd\\trgaph108\\trpaddt120\\trpaddb120\\trpaddft3\\trpaddfb3\\clvertalc\\cellx1300\\clvertalc\\cellx6500 ' +
    `${cells.map((text) => cell(text, bold)).join('')}\\row`;
  return [
    '{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0\\fswiss Liberation Sans;}}\\f0\\fs24',
    '\\pard Default objects of the schema, one a row:\\par',
    row(HEADER, true),
    ...ROWS.map((cells) => row(cells, false)),
    '\\pard Each of them is set on a column.\\par}',
  ].join('\n');
}

describe('pdf-to-markdown: words broken inside a narrow cell', () => {
  let server: TestServer;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'broken-words-e2e-'));
    await writeFile(path.join(dir, 'defaults.rtf'), rtfTable());
    server = await startServer({ plugins: [...officePlugins, pdfToMarkdownPlugin] });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reads each name whole, and a header of two words as two words', async () => {
    const key = await server.createKey('pro');
    const pdf = await convertAndDownload(server.url, key, path.join(dir, 'defaults.rtf'), { to: 'pdf' }, 120_000);
    // The export really broke the names: no name stands whole in the PDF's text.
    const { stdout } = await runProcess('pdftotext', ['-enc', 'UTF-8', pdf.outputPath, '-'], { timeoutMs: 20_000 });
    for (const [name] of ROWS.slice(0, 3)) expect(stdout).not.toContain(name);
    const form = new FormData();
    form.append('files', new Blob([new Uint8Array(pdf.data)]), 'defaults.pdf');
    const res = await fetch(`${server.url}/api/pdf-to-markdown`, {
      method: 'POST',
      body: form,
      headers: authHeaders(key),
    });
    expect(res.status).toBe(200);
    const { statusUrl } = (await res.json()) as { statusUrl: string };
    let poll: any;
    await waitUntil(
      async () => {
        poll = (await getJson(`${server.url}${statusUrl}`, key)).body;
        return poll.done === true;
      },
      120_000,
      'the extraction',
    );
    expect(poll).toMatchObject({ done: true, completed: 1, failed: 0 });
    const markdown = poll.rows[0].markdown as string;
    expect(markdownTables(markdown)).toEqual([[HEADER, ...ROWS]]);
  }, 240_000);
});
