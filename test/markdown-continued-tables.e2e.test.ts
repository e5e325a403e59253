/**
 * A table that page breaks cut is one table in the Markdown: real multi-page PDFs printed by the project's own
 * browser engine (html-to-pdf) from HTML tables long enough to run over pages, rows cut by the breaks, read back by
 * pdf-to-markdown's engine. Checked on the cells: every row once, in order, each cut row whole.
 */
import { readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFileResult } from '../core/contract/index.js';
import { runPlugin } from '../core/contract/testing/index.js';
import { closeChromiumPool } from '../core/engines/chromium.js';
import { runProcess } from '../core/engines/process.js';
import { pdfToMarkdown } from '../plugins/markdown/shared/engine/index.js';
import { htmlToPdfPlugin } from '../plugins/web/html-to-pdf/index.js';
import { markdownTables } from '../plugins/markdown/testing/tables.js';

const ITEMS = ['bolts', 'nuts', 'washers', 'hinges', 'brackets', 'screws', 'rivets', 'springs', 'clamps'];
const NOTES = ['packed in crates', 'checked twice a week', 'kept dry and cool', 'moved from the old shed'];
const HEADER = ['Code', 'Item', 'Count'];
const CLOSING = 'Counted by hand on the last day of the month, and checked again by the foreman the week after.';

/** A shelf's name of two letters, a different one for each row and line. */
const shelf = (i: number, k: number) => String.fromCharCode(65 + (i % 26), 65 + ((7 * i + 3 * k) % 26));

/**
 * Row i: a code, an item over `lines` lines (each a block of its own, so a page break may fall between them). Each
 * line differs from row to row: a line repeated at one place on several pages would be a running header.
 */
const cells = (i: number, lines: number) =>
  [
    `A-${101 + i}`,
    Array.from({ length: lines }, (_, k) =>
      k ? `${NOTES[(i + k) % NOTES.length]} on shelf ${shelf(i, k)}` : `${ITEMS[i % ITEMS.length]} size ${i % 5}`,
    ),
    String(((i * 37) % 500) + 12),
  ] as const;

function page(rows: (readonly [string, string[], string])[], repeatHeader: boolean): string {
  const head = `<tr>${HEADER.map((h) => `<th>${h}</th>`).join('')}</tr>`;
  const body = rows
    .map(
      ([code, item, count]) =>
        `<tr><td>${code}</td><td>${item.map((l) => `<div>${l}</div>`).join('')}</td>` + `<td>${count}</td></tr>`,
    )
    .join('');
  const table = repeatHeader ? `<thead>${head}</thead><tbody>${body}</tbody>` : `<tbody>${head}${body}</tbody>`;
  return (
    '<!doctype html><html><head><meta charset="utf-8"><style>body{font-family:sans-serif;font-size:12pt}' +
    'table{border-collapse:collapse}td,th{padding:1px 12px;text-align:left;vertical-align:top}</style></head><body>' +
    `<h1>Stock</h1><p>Parts in the warehouse at the end of the month.</p><table>${table}</table><p>${CLOSING}</p>` +
    '</body></html>'
  );
}

const expected = (rows: (readonly [string, string[], string])[]) => [
  HEADER,
  ...rows.map(([code, item, count]) => [code, item.join(' '), count]),
];

describe('pdf-to-markdown: a table printed over pages by the browser is one table', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'continued-tables-'));
  });
  afterAll(async () => {
    await closeChromiumPool();
    await rm(dir, { recursive: true, force: true });
  });

  const print = async (name: string, html: string): Promise<string> => {
    const file = path.join(dir, `${name}.html`);
    await writeFile(file, html);
    const run = await runPlugin(htmlToPdfPlugin, [{ path: file, format: 'html' }], { paper: 'A5' }, { workDir: dir });
    if (!isFileResult(run.result)) throw new Error('html-to-pdf gave no file');
    return run.result.path;
  };
  const pageText = async (pdf: string, page: number) =>
    (
      await runProcess('pdftotext', ['-layout', '-f', String(page), '-l', String(page), pdf, '-'], {
        timeoutMs: 10_000,
      })
    ).stdout;

  it('keeps every row once when the header is set again on each page and the breaks cut rows', async () => {
    const rows = Array.from({ length: 45 }, (_, i) => cells(i, 3));
    const pdf = await print('repeated', page(rows, true));
    const { markdown, pages } = await pdfToMarkdown(new Uint8Array(await readFile(pdf)));
    expect(pages).toBeGreaterThanOrEqual(3);
    // The breaks do cut rows: a page opens with the header and then a row's later lines.
    const opens = await Promise.all(Array.from({ length: pages - 1 }, (_, p) => pageText(pdf, p + 2)));
    expect(opens.some((text) => /^Code\s+Item\s+Count\s+(?!A-)/.test(text.trim()))).toBe(true);
    expect(markdownTables(markdown)).toEqual([expected(rows)]);
    expect(markdown).toContain(CLOSING);
  }, 120_000);

  it('takes the rest of a cut row and a row alone at the top of the last page into the table', async () => {
    // How many one-line rows fill the first page, with these fonts; then the last of them grows to four lines
    // (cut by the break) and one more row follows it, alone on the next page above the closing paragraph.
    const probe = await print(
      'probe',
      page(
        Array.from({ length: 60 }, (_, i) => cells(i, 1)),
        false,
      ),
    );
    const fit = (await pageText(probe, 1)).match(/A-\d+/g)?.length ?? 0;
    expect(fit).toBeGreaterThan(5);
    const rows = Array.from({ length: fit + 1 }, (_, i) => cells(i, i === fit - 1 ? 4 : 1));
    const pdf = await print('cut', page(rows, false));
    const second = await pageText(pdf, 2);
    expect(second.trim()).toMatch(new RegExp(`^${rows[fit - 1]![1][1]}`));
    const { markdown } = await pdfToMarkdown(new Uint8Array(await readFile(pdf)));
    expect(markdownTables(markdown)).toEqual([expected(rows)]);
    expect(markdown).toContain(`<!-- page 2 -->\n\n${CLOSING}`);
  }, 120_000);
});
