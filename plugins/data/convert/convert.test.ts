import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { isFileResult, type FileResult } from '../../../core/contract/index.js';
import { pluginConformanceSuite, runPlugin, type TestRun } from '../../../core/contract/testing/index.js';
import type { FormatId } from '../../../schema/index.js';
import { dataConvertPlugin } from './index.js';
import { parseCsv } from '../shared/csv.js';
import { writeFixtures } from '../testing/fixtures.js';
import { standardPlugins } from '../../index.js';

const files = await writeFixtures();
const outputOf = (run: TestRun): string => (run.result as FileResult).path;
const json = async (run: TestRun) => JSON.parse(await readFile(outputOf(run), 'utf8'));
const csv = async (run: TestRun) => parseCsv(await readFile(outputOf(run), 'utf8'));
async function sheetValues(run: TestRun): Promise<unknown[][]> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(outputOf(run));
  const rows: unknown[][] = [];
  workbook.worksheets[0]!.eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
  return rows;
}

pluginConformanceSuite(
  dataConvertPlugin,
  [
    {
      name: 'csv -> json',
      files: [{ path: files.csv, format: 'csv' }],
      target: 'json',
      expectFormat: 'json',
      check: async (run) =>
        expect(await json(run)).toEqual([
          { name: 'Ada', age: '36', city: 'London' },
          { name: 'Linus', age: '54', city: 'Portland, OR' },
        ]),
    },
    {
      name: 'csv -> xlsx',
      files: [{ path: files.csv, format: 'csv' }],
      target: 'xlsx',
      expectFormat: 'xlsx',
      check: async (run) =>
        expect(await sheetValues(run)).toEqual([
          ['name', 'age', 'city'],
          ['Ada', 36, 'London'],
          ['Linus', 54, 'Portland, OR'],
        ]),
    },
    {
      name: 'json -> csv',
      files: [{ path: files.json, format: 'json' }],
      target: 'csv',
      expectFormat: 'csv',
      check: async (run) => {
        expect(await readFile(outputOf(run), 'utf8')).toContain('\r\n');
        expect(await csv(run)).toEqual([
          ['name', 'age', 'tags', 'city', 'active'],
          ['Ada', '36', '["math"]', '', ''],
          ['Linus', '', '', 'Portland, OR', 'true'],
        ]);
      },
    },
    {
      name: 'json -> xlsx',
      files: [{ path: files.json, format: 'json' }],
      target: 'xlsx',
      check: async (run) =>
        expect(await sheetValues(run)).toEqual([
          ['name', 'age', 'tags', 'city', 'active'],
          ['Ada', 36, '["math"]'],
          ['Linus', undefined, undefined, 'Portland, OR', true],
        ]),
    },
    {
      name: 'xlsx -> json (first sheet, formulas and rich text as values)',
      files: [{ path: files.xlsx, format: 'xlsx' }],
      target: 'json',
      check: async (run) =>
        expect(await json(run)).toEqual([
          { name: 'Ada', age: 36, born: '1815-12-10', total: 72 },
          { name: 'Linus', age: 54, born: null, total: 'rich text' },
        ]),
    },
    {
      name: 'xlsx -> csv',
      files: [{ path: files.xlsx, format: 'xlsx' }],
      target: 'csv',
      check: async (run) =>
        expect(await csv(run)).toEqual([
          ['name', 'age', 'born', 'total'],
          ['Ada', '36', '1815-12-10', '72'],
          ['Linus', '54', '', 'rich text'],
        ]),
    },
  ],
  { against: standardPlugins },
);

describe('data-convert', () => {
  let dir: string;
  beforeAll(() => {
    dir = path.dirname(files.csv);
  });
  const run = async (name: string, content: string | Buffer, format: FormatId, target: FormatId) => {
    const file = path.join(dir, name);
    await writeFile(file, content);
    const result = await runPlugin(dataConvertPlugin, [{ path: file, format }], {}, { target });
    if (!isFileResult(result.result)) throw new Error('expected a file');
    const text = await readFile(result.result.path, 'utf8');
    await rm(result.workDir, { recursive: true, force: true });
    return text;
  };

  it('reads a Latin-1 semicolon CSV with a quoted newline', async () => {
    const out = JSON.parse(await run('latin.csv', await readFile(files.latin1), 'csv', 'json'));
    expect(out).toEqual([
      { name: 'José', city: 'Zürich', note: 'line one\nline two' },
      { name: 'Renée', city: 'Köln; Mitte', note: 'say "hi"' },
    ]);
  });

  it('names blank and repeated headers and pads short rows with null', async () => {
    const out = JSON.parse(await run('h.csv', 'a\tа\ta\t\n1\t2\n1\t2\t3\t4\t5\n', 'csv', 'json'));
    expect(out).toEqual([
      { a: '1', а: '2', a_2: null, column_4: null, column_5: null },
      { a: '1', а: '2', a_2: '3', column_4: '4', column_5: '5' },
    ]);
  });

  it('writes [] for a header-only CSV', async () => {
    expect(JSON.parse(await run('empty.csv', 'a,b\n', 'csv', 'json'))).toEqual([]);
  });

  it('refuses JSON that is not an array of objects', async () => {
    await expect(run('obj.json', '{"a":1}', 'json', 'csv')).rejects.toThrow(
      'JSON must be an array of objects (one per row); got an object',
    );
    await expect(run('arr.json', '[{"a":1},[1,2]]', 'json', 'csv')).rejects.toThrow(
      'JSON must be an array of objects (one per row); item 2 is an array',
    );
    await expect(run('bad.json', '[{"a":1}', 'json', 'csv')).rejects.toThrow(/^Invalid JSON/);
  });

  it('keeps leading zeros and non-canonical numbers as text in XLSX', async () => {
    const file = path.join(dir, 'zeros.csv');
    await writeFile(file, 'code,amount,exp,price\n007,-12.5,1e5,1.50\n');
    const result = await runPlugin(dataConvertPlugin, [{ path: file, format: 'csv' }], {}, { target: 'xlsx' });
    expect((await sheetValues(result))[1]).toEqual(['007', -12.5, '1e5', '1.50']);
  });

  it('refuses a damaged xlsx with a clear message', async () => {
    await expect(run('broken.xlsx', 'not a zip', 'xlsx', 'csv')).rejects.toThrow(
      'Could not read the spreadsheet: it is damaged or not an XLSX workbook',
    );
  });
});
