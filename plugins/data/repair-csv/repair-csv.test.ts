import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { FileResult } from '../../../core/contract/index.js';
import { pluginConformanceSuite } from '../../../core/contract/testing/index.js';
import { parseCsv } from '../shared/csv.js';
import { LATIN1_CSV, writeFixtures } from '../testing/fixtures.js';
import { standardPlugins } from '../../index.js';
import { repairCsvPlugin } from './index.js';

const files = await writeFixtures();

pluginConformanceSuite(
  repairCsvPlugin,
  [
    {
      name: 'Latin-1 semicolon CSV with a quoted newline',
      files: [{ path: files.latin1, format: 'csv' }],
      expectFormat: 'csv',
      check: async (run) => {
        const bytes = await readFile((run.result as FileResult).path);
        expect(bytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(false);
        const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
        expect(text).toBe('name,city,note\r\nJosé,Zürich,"line one\nline two"\r\nRenée,Köln; Mitte,"say ""hi"""\r\n');
        // Content preserved: every field identical to the input's after a parse round trip.
        expect(parseCsv(text)).toEqual(parseCsv(new TextDecoder('windows-1252').decode(LATIN1_CSV), ';'));
        expect(parseCsv(text)).toEqual([
          ['name', 'city', 'note'],
          ['José', 'Zürich', 'line one\nline two'],
          ['Renée', 'Köln; Mitte', 'say "hi"'],
        ]);
      },
    },
    {
      name: 'pads short rows and drops blank lines',
      files: [{ path: files.csv, format: 'csv' }],
      check: async (run) => {
        expect(await readFile((run.result as FileResult).path, 'utf8')).toBe(
          'name,age,city\r\nAda,36,London\r\nLinus,54,"Portland, OR"\r\n',
        );
      },
    },
  ],
  { against: standardPlugins },
);

describe('repair-csv manifest', () => {
  it('is a Pro tool on CSV', () => {
    expect([repairCsvPlugin.kind, repairCsvPlugin.op, repairCsvPlugin.plan, repairCsvPlugin.inputs]).toEqual([
      'tool',
      'repair-csv',
      'pro',
      ['csv'],
    ]);
  });
});
