/** The example plugin under Transmute's conformance kit, plus checks of what it writes. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { isFileResult } from 'transmute/contract';
import { pluginConformanceSuite, runPlugin, type TestRun } from 'transmute/contract/testing';
import { csvTsvPlugin as plugin } from './index.js';
import { standardPlugins } from 'transmute/plugins';

const fixture = (name: string) => path.join(import.meta.dirname, '..', 'testing', name);
const csvFile = { path: fixture('people.csv'), format: 'csv' as const };
const tsvFile = { path: fixture('people.tsv'), format: 'tsv' as never };
const outputOf = async ({ result }: TestRun) => readFile(isFileResult(result) ? result.path : '', 'utf8');

pluginConformanceSuite(
  plugin,
  [
    {
      name: 'csv -> tsv: quotes, commas and line breaks in fields',
      files: [csvFile],
      target: 'tsv' as never,
      expectFormat: 'tsv' as never,
      check: async (run) => {
        expect(await outputOf(run)).toBe(
          'name\tcity\tnote\nAda Lovelace\tLondon\twrote the first program, 1843\nGrace "Amazing" Hopper\t  New ' +
            'York  \tline one\\nline two\n',
        );
      },
    },
    {
      name: 'tsv -> csv: escapes undone, quotes where CSV needs them',
      files: [tsvFile],
      target: 'csv',
      expectFormat: 'csv',
      check: async (run) => {
        expect(await outputOf(run)).toBe(
          'name,city,note\r\nAlan Turing,Wilmslow,path C:\\temp\r\nKatherine Johnson,Hampton,"said ""go"""\r\n',
        );
      },
    },
    {
      name: 'trimSpaces',
      files: [csvFile],
      target: 'tsv' as never,
      options: { trimSpaces: true },
      check: async (run) =>
        expect((await outputOf(run)).split('\n')[2]).toBe('Grace "Amazing" Hopper\tNew York\tline one\\nline two'),
    },
  ],
  { against: standardPlugins, wireOptions: [{ trimSpaces: 'true' }, { trimSpaces: 'false' }] },
);

it('round-trips: csv -> tsv -> csv keeps every field', async () => {
  const there = await runPlugin(plugin, [csvFile], {}, { target: 'tsv' as never });
  const back = await runPlugin(
    plugin,
    [{ path: (there.result as { path: string }).path, format: 'tsv' as never }],
    {},
    { target: 'csv' },
  );
  expect(await outputOf(back)).toBe(
    'name,city,note\r\nAda Lovelace,London,"wrote the first program, 1843"\r\n"Grace ""Amazing"" Hopper",  New York  ' +
      ',"line one\nline two"\r\n',
  );
});
