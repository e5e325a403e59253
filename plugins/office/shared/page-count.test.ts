import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FormatId } from '../../../schema/index.js';
import { claimingPages } from '../testing/pages.js';
import { CHARACTERS_PER_PAGE, officePageCount, savedPageCount } from './page-count.js';

/** Real files from the office fidelity corpus (Apache POI's test data) that lay out far past a saved count. */
const CORPUS = path.join(import.meta.dirname, '..', '..', '..', 'bench', 'office-fidelity', 'corpus');

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const document = (body: string) =>
  zipSync({
    '[Content_Types].xml': strToU8('<Types/>'),
    'word/document.xml': strToU8(`<?xml version="1.0"?>\n<w:document ${W}><w:body>${body}</w:body></w:document>`),
  });
const paragraph = (text: string) => `<w:p><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`;

const S = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const workbook = (...sheets: string[]) =>
  zipSync({
    '[Content_Types].xml': strToU8('<Types/>'),
    'xl/workbook.xml': strToU8('<workbook/>'),
    ...Object.fromEntries(
      sheets.map((sheet, i) => [`xl/worksheets/sheet${i + 1}.xml`, strToU8(`<worksheet ${S}>${sheet}</worksheet>`)]),
    ),
  });
const column = (n: number) => {
  let letters = '';
  for (let rest = n; rest > 0; rest = Math.floor((rest - 1) / 26))
    letters = String.fromCharCode(65 + ((rest - 1) % 26)) + letters;
  return letters;
};
const cell = (col: number, row: number) => `<c r="${column(col)}${row}"><v>1</v></c>`;
const rows = (cells: Array<[col: number, row: number]>) => {
  const byRow = new Map<number, number[]>();
  for (const [col, row] of cells) byRow.set(row, [...(byRow.get(row) ?? []), col]);
  return `<sheetData>${[...byRow]
    .map(([row, cols]) => `<row r="${row}">${cols.map((col) => cell(col, row)).join('')}</row>`)
    .join('')}</sheetData>`;
};

describe('office page counts', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'office-pages-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const input = async (name: string, data: Uint8Array) => {
    const file = path.join(dir, name);
    await writeFile(file, data);
    return { path: file, format: name.split('.').pop() as FormatId, filename: name, bytes: data.length };
  };
  const signal = () => AbortSignal.timeout(20_000);
  const saved = async (name: string, data: Uint8Array) => savedPageCount(await input(name, data), signal());
  const pages = async (name: string, data: Uint8Array) => officePageCount(await input(name, data), signal());

  const bare = document(paragraph('Hello'));

  it('reads <Pages> of a DOCX and <Slides> of a PPTX as saved', async () => {
    expect(await saved('long.docx', claimingPages(bare, 2345))).toBe(2345);
    expect(await saved('deck.pptx', claimingPages(bare, 42, 'Slides'))).toBe(42);
  });

  it('cannot tell a saved count without one, for other formats, or from a file that is not a ZIP', async () => {
    expect(await saved('bare.docx', bare)).toBeUndefined();
    expect(await saved('deck.pptx', claimingPages(bare, 42))).toBeUndefined();
    expect(await saved('sheet.xlsx', claimingPages(bare, 42))).toBeUndefined();
    expect(await saved('broken.docx', Buffer.from('PK\x03\x04 not a zip'))).toBeUndefined();
  });

  it('estimates a document from its text characters (white space aside) and its page and section breaks', async () => {
    const text = 'x '.repeat(CHARACTERS_PER_PAGE * 10);
    expect(await pages('text.docx', document(paragraph(text)))).toBe(10);
    expect(await pages('empty.docx', document('<w:p/>'))).toBe(1);
    const breaks = `${paragraph('a')}<w:p><w:r><w:br w:type="page"/></w:r></w:p>`.repeat(30);
    const sections = '<w:p><w:pPr><w:sectPr/></w:pPr></w:p>'.repeat(5);
    expect(await pages('breaks.docx', document(`${breaks}${sections}<w:sectPr/>`))).toBe(1 + 30 + 5);
  });

  it('takes the saved count or the estimate, whichever is larger: a stale count does not shorten work', async () => {
    const text = document(paragraph('y'.repeat(CHARACTERS_PER_PAGE * 40)));
    expect(await pages('stale.docx', claimingPages(text, 1))).toBe(40);
    expect(await pages('counted.docx', claimingPages(text, 55))).toBe(55);
    const deck = zipSync({
      'ppt/presentation.xml': strToU8('<p:presentation/>'),
      ...Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`ppt/slides/slide${i + 1}.xml`, strToU8('<p:sld/>')])),
    });
    expect(await pages('deck.pptx', deck)).toBe(7);
    expect(await pages('claims.pptx', claimingPages(deck, 12, 'Slides'))).toBe(12);
  });

  it('estimates a sheet from the pages of 10 columns by 50 rows that hold a cell', async () => {
    // One row across every column Excel has: 1,639 pages side by side.
    const wide = Array.from({ length: 16_384 }, (_, i): [number, number] => [i + 1, 1]);
    expect(await pages('wide.xlsx', workbook(rows(wide)))).toBe(1_639);
    // 120 rows of 3 columns: 3 pages down; two far corners: 2 pages (the empty ones between are not printed).
    const tall = Array.from({ length: 120 }, (_, i) => [1, 2, 3].map((c): [number, number] => [c, i + 1])).flat();
    expect(await pages('tall.xlsx', workbook(rows(tall)))).toBe(3);
    expect(
      await pages(
        'corners.xlsx',
        workbook(
          rows([
            [1, 1],
            [16_384, 1_048_576],
          ]),
        ),
      ),
    ).toBe(2);
    // Sheets add up; a self-closing (styled, empty) cell holds nothing.
    expect(await pages('two.xlsx', workbook(rows(tall), rows([[1, 1]])))).toBe(4);
    expect(await pages('styled.xlsx', workbook('<sheetData><row r="900"><c r="ZZ900" s="1"/></row></sheetData>'))).toBe(
      1,
    );
  });

  it('honours a sheet print scale and fit-to-page', async () => {
    const grid = Array.from({ length: 200 }, (_, r) =>
      Array.from({ length: 40 }, (_, c): [number, number] => [c + 1, r + 1]),
    ).flat();
    expect(await pages('grid.xlsx', workbook(rows(grid)))).toBe(16);
    expect(await pages('half.xlsx', workbook(`${rows(grid)}<pageSetup scale="50"/>`))).toBe(4);
    const fitted = (width: number, height: number) =>
      workbook(
        `<sheetPr><pageSetUpPr fitToPage="1"/></sheetPr>${rows(grid)}` +
          `<pageSetup fitToWidth="${width}" fitToHeight="${height}"/>`,
      );
    expect(await pages('fit.xlsx', fitted(1, 1))).toBe(1);
    expect(await pages('fit-wide.xlsx', fitted(1, 0))).toBe(4);
  });

  it('extrapolates past the XML it reads (64 MB) from the declared sizes', async () => {
    const characters = 80 * 1024 * 1024;
    const big = document(paragraph('z'.repeat(characters)));
    const estimate = (await pages('big.docx', big))!;
    expect(estimate).toBeGreaterThanOrEqual(Math.floor(characters / CHARACTERS_PER_PAGE));
    expect(estimate).toBeLessThan(Math.ceil(characters / CHARACTERS_PER_PAGE) * 1.01);
  }, 60_000);

  it('gives no count for formats without one, or a file that is not a ZIP', async () => {
    expect(await pages('notes.odt', bare)).toBeUndefined();
    expect(await pages('broken.xlsx', Buffer.from('PK\x03\x04 not a zip'))).toBeUndefined();
  });

  it('counts what LibreOffice lays out on real files whose saved count is missing or stale', async () => {
    // LibreOffice 7.4 alone (soffice --convert-to pdf, a fresh profile) lays them out to 180 and 1,639 pages.
    const real = async (name: string) => {
      const file = path.join(CORPUS, name);
      const bytes = (await readFile(file)).length;
      return officePageCount({ path: file, format: name.slice(-4) as FormatId, filename: name, bytes }, signal());
    };
    // Word saved it as 1 page: 240,000 characters, mostly in tables (about 1,500 a page).
    expect(await real('document__bug65649.docx')).toBe(103);
    expect(await real('spreadsheet__53105.xlsx')).toBe(1_639);
  });
});
