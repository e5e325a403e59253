/** Sample files for the data family's tests, written to a temp dir. */
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';

export const SAMPLE_SRT = [
  '1',
  '00:00:01,000 --> 00:00:02,500',
  'Hello <i>world</i> & friends',
  '',
  '2',
  '00:01:02,030 --> 01:00:00,000',
  'Second cue',
  'two lines',
  '',
].join('\r\n');

export const SAMPLE_VTT = [
  'WEBVTT - a title',
  '',
  'NOTE this is a comment',
  'spanning lines',
  '',
  'STYLE',
  '::cue { color: yellow }',
  '',
  'intro',
  '00:01.000 --> 00:02.500 align:start position:10%',
  '<v Roger>Hi &amp; <b>bye</b> <00:00:02.000>later',
  '',
  '00:00:03.000 --> 00:00:04.000',
  'a &lt; b',
  '',
].join('\n');

/** Latin-1, semicolon-delimited, with a quoted newline, a quoted delimiter and doubled quotes. */
export const LATIN1_CSV = Buffer.from(
  'name;city;note\r\nJosé;Zürich;"line one\nline two"\r\nRenée;"Köln; Mitte";"say ""hi"""\r\n',
  'latin1',
);

export async function writeFixtures(): Promise<Record<'csv' | 'json' | 'xlsx' | 'latin1' | 'srt' | 'vtt', string>> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'data-fixtures-'));
  const file = (name: string) => path.join(dir, name);
  await writeFile(file('people.csv'), '\uFEFFname,age,city\nAda,36,London\nLinus,"54","Portland, OR"\n');
  await writeFile(
    file('people.json'),
    JSON.stringify([
      { name: 'Ada', age: 36, tags: ['math'] },
      { name: 'Linus', city: 'Portland, OR', active: true },
    ]),
  );
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('First');
  sheet.addRow(['name', 'age', 'born', 'total']);
  sheet.addRow(['Ada', 36, new Date(Date.UTC(1815, 11, 10)), { formula: 'B2*2', result: 72 }]);
  sheet.addRow(['Linus', 54, null, { richText: [{ text: 'rich ' }, { text: 'text' }] }]);
  workbook.addWorksheet('Second').addRow(['ignored']);
  await workbook.xlsx.writeFile(file('people.xlsx'));
  await writeFile(file('latin1.csv'), LATIN1_CSV);
  await writeFile(file('talk.srt'), SAMPLE_SRT);
  await writeFile(file('talk.vtt'), SAMPLE_VTT);
  return {
    csv: file('people.csv'),
    json: file('people.json'),
    xlsx: file('people.xlsx'),
    latin1: file('latin1.csv'),
    srt: file('talk.srt'),
    vtt: file('talk.vtt'),
  };
}
