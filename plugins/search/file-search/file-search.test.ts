import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonResult } from '../../../core/contract/index.js';
import { parseOptions } from '../../../core/contract/options.js';
import { pluginConformanceSuite, runPlugin } from '../../../core/contract/testing/index.js';
import { MAX_MATCHES, MatchCollector, compileQuery, type Match } from '../shared/match.js';
import { columnName } from '../shared/ods.js';
import { NOTES_TXT, makeFixtures, type Fixture } from '../testing/fixtures.js';
import { fileSearchPlugin } from './index.js';
import { standardPlugins } from '../../index.js';

interface Row {
  kind: string;
  count: number;
  truncated: boolean;
  error: string | null;
  matches: Match[];
}

let files: Awaited<ReturnType<typeof makeFixtures>>;
beforeAll(async () => {
  files = await makeFixtures();
});
afterAll(async () => {
  await rm(files.dir, { recursive: true, force: true });
});

async function search(file: Fixture, options: Record<string, unknown>): Promise<Row> {
  const run = await runPlugin(fileSearchPlugin, [file], options);
  await rm(run.workDir, { recursive: true, force: true });
  const row = (run.result as JsonResult).row as unknown as Row;
  // The spec's invariant: offset and length locate the hit within the snippet.
  const query = String(options.query);
  for (const match of row.matches) {
    const hit = match.snippet.substr(match.offset, match.length);
    if (options.caseSensitive) expect(hit).toBe(query);
    else expect(hit.toLowerCase()).toBe(query.toLowerCase());
    expect(match.snippet).not.toMatch(/\s{2}|[\n\t]/);
  }
  return row;
}

const hits = (row: Row) => row.matches.map((m) => m.snippet.substr(m.offset, m.length));

describe('matching', () => {
  it('takes regex metacharacters literally', () => {
    const collector = new MatchCollector({ query: 'a.b*', wholeWord: false, caseSensitive: false });
    collector.search('line 1', 'a.b* and aXb and a.bbb and (a.b*)');
    expect(collector.count).toBe(2);
    for (const query of ['(', '[a-z]+', '\\d', '$^', '|', '{2}', '.*']) {
      expect(() => compileQuery({ query, wholeWord: true, caseSensitive: false })).not.toThrow();
      const literal = new MatchCollector({ query, wholeWord: false, caseSensitive: true });
      literal.search('x', `abc ${query} 123`);
      expect(literal.count).toBe(1);
    }
  });

  it('bounds whole words with Unicode letters and digits', () => {
    const collector = new MatchCollector({ query: 'über', wholeWord: true, caseSensitive: false });
    collector.search('x', 'Über alles; darüber; überall; über_x; 1über; (über).');
    expect(collector.count).toBe(2);
  });

  it('folds case per Unicode but not ß to SS', () => {
    const collector = new MatchCollector({ query: 'ärger', wholeWord: false, caseSensitive: false });
    collector.search('x', 'ÄRGER Ärger ärger');
    expect(collector.count).toBe(3);
    const strasse = new MatchCollector({ query: 'STRASSE', wholeWord: false, caseSensitive: false });
    strasse.search('x', 'straße');
    expect(strasse.count).toBe(0);
  });

  it('matches composed and decomposed accents alike', () => {
    const collector = new MatchCollector({ query: 'café', wholeWord: true, caseSensitive: true });
    collector.search('x', 'cafe\u0301 and café');
    expect(collector.count).toBe(2);
  });

  it('keeps snippets short, marks cuts with an ellipsis and never splits a surrogate pair', () => {
    const collector = new MatchCollector({ query: 'needle', wholeWord: false, caseSensitive: false });
    collector.search('x', `${'😀'.repeat(100)} needle ${'😀'.repeat(100)}`);
    const [match] = collector.matches;
    expect(match!.snippet.startsWith('…') && match!.snippet.endsWith('…')).toBe(true);
    expect(match!.snippet.length).toBeLessThanOrEqual(6 + 2 * 60 + 2);
    expect(match!.snippet).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    expect(match!.snippet.substr(match!.offset, match!.length)).toBe('needle');
  });
});

describe('options', () => {
  it('decodes the wire strings of the REST endpoint and requires a query', () => {
    const parsed = parseOptions(
      fileSearchPlugin.options,
      { query: 'x', wholeWord: 'true', caseSensitive: 'false' },
      { fromStrings: true, operation: 'file-search' },
    );
    expect(parsed).toEqual({ ok: true, value: { query: 'x', wholeWord: true, caseSensitive: false } });
    expect(parseOptions(fileSearchPlugin.options, {}, { fromStrings: true, operation: 'file-search' }).ok).toBe(false);
    expect(
      parseOptions(fileSearchPlugin.options, { query: '' }, { fromStrings: true, operation: 'file-search' }).ok,
    ).toBe(false);
    expect(
      parseOptions(
        fileSearchPlugin.options,
        { query: 'x'.repeat(1001) },
        { fromStrings: true, operation: 'file-search' },
      ).ok,
    ).toBe(false);
  });
});

describe('text files', () => {
  it('finds a word by line, whole word or not', async () => {
    const loose = await search(files.notes, { query: 'cat' });
    expect(loose).toMatchObject({ kind: 'text', count: 3, truncated: false, error: null });
    expect(loose.matches.map((m) => m.location)).toEqual(['line 1', 'line 2', 'line 2']);
    const whole = await search(files.notes, { query: 'cat', wholeWord: true });
    expect(whole.count).toBe(2);
    expect(hits(whole)).toEqual(['cat', 'CAT']);
    const exact = await search(files.notes, { query: 'cat', wholeWord: true, caseSensitive: true });
    expect(exact.count).toBe(1);
  });

  it('folds the case of non-ASCII letters unless caseSensitive', async () => {
    expect((await search(files.notes, { query: 'ärger' })).count).toBe(2);
    expect((await search(files.notes, { query: 'ärger', caseSensitive: true })).count).toBe(1);
  });

  it('takes the query literally', async () => {
    const row = await search(files.notes, { query: 'a.b*' });
    expect(row.count).toBe(1);
    expect(row.matches[0]).toMatchObject({ location: 'line 4' });
    expect(hits(row)).toEqual(['a.b*']);
  });

  it('cuts long lines into a snippet around the hit', async () => {
    const row = await search(files.notes, { query: 'NEEDLE' });
    const [match] = row.matches;
    expect(match!.location).toBe('line 5');
    expect(match!.snippet).toMatch(/^…lorem.*needle.*ipsum…$/);
    expect(match!.snippet.substr(match!.offset, match!.length)).toBe('needle');
  });

  it('searches CSV rows', async () => {
    const row = await search(files.people, { query: 'berlin' });
    expect(row).toMatchObject({ kind: 'text', count: 2 });
    expect(row.matches.map((m) => m.location)).toEqual(['line 2', 'line 4']);
  });

  it(`counts every hit but returns ${MAX_MATCHES}`, async () => {
    const row = await search(files.many, { query: 'needle' });
    expect(row).toMatchObject({ count: 150, truncated: true, error: null });
    expect(row.matches).toHaveLength(MAX_MATCHES);
  });

  it('reports no match as count 0 without an error', async () => {
    expect(await search(files.notes, { query: 'zebra' })).toEqual({
      kind: 'text',
      count: 0,
      truncated: false,
      error: null,
      matches: [],
    });
  });

  it('reads UTF-16 LE and BE text and UTF-8 with a BOM', async () => {
    const encodings = {
      le: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(NOTES_TXT, 'utf16le')]),
      be: Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(NOTES_TXT, 'utf16le').swap16()]),
      bom: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(NOTES_TXT)]),
    };
    for (const [name, bytes] of Object.entries(encodings)) {
      const file = path.join(files.dir, `notes-${name}.txt`);
      await writeFile(file, bytes);
      const row = await search({ path: file, format: 'txt' }, { query: 'ärger' });
      expect(row, name).toMatchObject({ kind: 'text', count: 2, error: null });
      expect(
        row.matches.map((m) => m.location),
        name,
      ).toEqual(['line 3', 'line 3']);
      expect(
        (await search({ path: file, format: 'txt' }, { query: 'The cat', caseSensitive: true })).matches[0],
        name,
      ).toMatchObject({ location: 'line 1', offset: 0 });
    }
  });
});

describe('PDF', () => {
  it('names the page of every hit', async () => {
    const row = await search(files.pdf, { query: 'invoice' });
    expect(row).toMatchObject({ kind: 'pdf', count: 3, error: null });
    expect(row.matches.map((m) => m.location)).toEqual(['page 2', 'page 2', 'page 3']);
  });

  it('matches a phrase broken across lines', async () => {
    const row = await search(files.pdf, { query: 'total amount' });
    expect(row.count).toBe(1);
    expect(row.matches[0]!.location).toBe('page 1');
  });

  it('returns an error row for a password-protected PDF', async () => {
    const row = await search(files.lockedPdf, { query: 'invoice' });
    expect(row).toMatchObject({ kind: 'pdf', count: 0, truncated: false, matches: [] });
    expect(row.error).toMatch(/password-protected/);
  });

  it('returns an error row for a damaged PDF', async () => {
    const row = await search(files.garbagePdf, { query: 'invoice' });
    expect(row.count).toBe(0);
    expect(row.error).toMatch(/not a readable PDF/);
  });
});

describe('office documents', () => {
  it('finds words in DOCX paragraphs, across runs and in tables, not in deleted text', async () => {
    const row = await search(files.docx, { query: 'invoice' });
    expect(row).toMatchObject({ kind: 'document', count: 3, error: null });
    expect(row.matches.map((m) => m.location)).toEqual(['paragraph 2', 'paragraph 3', 'paragraph 4']);
    expect(row.matches[1]!.snippet).toBe('Tom & Jerry <invoice>');
  });

  it('returns error rows for a damaged DOCX and a ZIP that is not one', async () => {
    for (const file of [files.corruptDocx, files.zipWithoutDocument]) {
      const row = await search(file, { query: 'invoice' });
      expect(row).toMatchObject({ kind: 'document', count: 0, matches: [] });
      expect(row.error).toMatch(/not a valid Word document/);
    }
  });

  it('reads ODT paragraphs and headings, with repeated spaces', async () => {
    const row = await search(files.odt, { query: 'long invoice story' });
    expect(row).toMatchObject({ kind: 'document', count: 1 });
    expect(row.matches[0]!.location).toBe('paragraph 2');
    expect((await search(files.odt, { query: 'chapter' })).matches[0]!.location).toBe('paragraph 1');
  });

  it('names the sheet and cell in XLSX, once per merged range', async () => {
    const row = await search(files.xlsx, { query: 'invoice' });
    expect(row).toMatchObject({ kind: 'spreadsheet', count: 4, error: null });
    expect(row.matches.map((m) => m.location).sort()).toEqual(["'Q1 Data'!A1", 'Sheet1!B4', 'Sheet1!D1', 'Sheet1!E1']);
    expect((await search(files.xlsx, { query: '2024-03-15' })).matches[0]!.location).toBe('Sheet1!C2');
  });

  it('returns an error row for a ZIP that is not a workbook', async () => {
    const row = await search({ path: files.docx.path, format: 'xlsx' }, { query: 'invoice' });
    expect(row).toMatchObject({ kind: 'spreadsheet', count: 0 });
    expect(row.error).toMatch(/not a valid Excel workbook/);
  });

  it('names the sheet and cell in ODS, counting repeated cells', async () => {
    const row = await search(files.ods, { query: 'invoice' });
    expect(row).toMatchObject({ kind: 'spreadsheet', count: 6, error: null });
    expect(row.matches.map((m) => m.location)).toEqual([
      "'Budget 2024'!C4",
      "'Budget 2024'!A5",
      "'Budget 2024'!B5",
      "'Budget 2024'!A6",
      "'Budget 2024'!B6",
      'Notes!A1',
    ]);
    expect(row.matches[0]!.snippet).toBe('Invoice due');
    expect(row.matches[5]!.snippet).toBe('no invoice here second line');
  });
});

describe('spreadsheet addresses', () => {
  it('names columns as spreadsheets do', () => {
    expect([0, 25, 26, 51, 52, 701, 702, 16383].map(columnName)).toEqual([
      'A',
      'Z',
      'AA',
      'AZ',
      'BA',
      'ZZ',
      'AAA',
      'XFD',
    ]);
  });
});

describe('images', () => {
  it('reads printed text with OCR', async () => {
    const row = await search(files.photo, { query: 'invoice 12345' });
    expect(row).toMatchObject({ kind: 'image', count: 1, error: null });
    expect(row.matches[0]!.location).toBe('line 1');
  });

  it('fails the run, rather than the row, when the OCR language data is missing', async () => {
    const previous = process.env.TESSDATA_PREFIX;
    process.env.TESSDATA_PREFIX = files.dir;
    try {
      await expect(runPlugin(fileSearchPlugin, [files.photo], { query: 'invoice' })).rejects.toThrow(
        /tesseract exited/,
      );
    } finally {
      if (previous === undefined) delete process.env.TESSDATA_PREFIX;
      else process.env.TESSDATA_PREFIX = previous;
    }
  });

  it('returns an error row for an unreadable image', async () => {
    const row = await search(files.brokenPhoto, { query: 'invoice' });
    expect(row).toMatchObject({ kind: 'image', count: 0 });
    expect(row.error).toMatch(/could not be read/);
  });
});

describe('conformance', () => {
  // The suite's samples are built before the fixtures exist, so they name paths lazily.
  const lazy = (pick: () => Fixture): Fixture => ({
    get path() {
      return pick().path;
    },
    get format() {
      return pick().format;
    },
  });
  pluginConformanceSuite(
    fileSearchPlugin,
    [
      { name: 'text', files: [lazy(() => files.notes)], options: { query: 'cat' } },
      { name: 'pdf', files: [lazy(() => files.pdf)], options: { query: 'invoice', wholeWord: true } },
    ],
    { against: standardPlugins },
  );
});
