/**
 * Every text format uploaded over POST /api/v1/convert and converted, in UTF-8, UTF-8 with a BOM
 * and UTF-16 LE/BE with a BOM: csv -> json, json -> csv, srt -> vtt, vtt -> srt, txt -> pdf
 * (read back with pdftotext), svg -> png (dimensions and colour). Outputs are checked by content.
 */
import { execFileSync } from 'node:child_process';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseSrt, parseVtt } from '../plugins/data/subtitle-convert/subtitles.js';
import { authHeaders, convertAndDownload, getJson, startServer, submitConvert, type TestServer } from './helpers.js';

type Encoding = 'utf-8' | 'utf-8 bom' | 'utf-16le' | 'utf-16be';
const ENCODINGS: readonly Encoding[] = ['utf-8', 'utf-8 bom', 'utf-16le', 'utf-16be'];

function encode(text: string, encoding: Encoding): Buffer {
  switch (encoding) {
    case 'utf-8':
      return Buffer.from(text, 'utf8');
    case 'utf-8 bom':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
    case 'utf-16le':
      return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    case 'utf-16be':
      return Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);
  }
}

const CSV = 'name,city,note\r\nJosé,Zürich,"line one\nline two"\r\nRenée,Köln,東京 😀\r\n';
const CSV_ROWS = [
  { name: 'José', city: 'Zürich', note: 'line one\nline two' },
  { name: 'Renée', city: 'Köln', note: '東京 😀' },
];
const JSON_TEXT = JSON.stringify(
  [
    { title: 'Größe', tags: 'a,b' },
    { title: 'naïve "quote"', tags: 'ß' },
  ],
  null,
  2,
);
const SRT =
  '1\r\n00:00:01,000 --> 00:00:02,500\r\nGrüß Gott\r\n\r\n2\r\n00:01:02,030 --> 00:01:04,000\r\nSecond cue\r\ntwo ' +
  'lines\r\n';
const VTT =
  'WEBVTT\n\nintro\n00:00:01.000 --> 00:00:02.500 align:start\nBonjour à tous\n\n00:01:02.030 --> 00:01:04.000\n<v ' +
  'Anna>Second cue</v>\n';
const TXT = 'Transmute text upload\nZürich Köln naïve\n';
/** The XML declaration names the encoding actually used, as an editor saving UTF-16 would. */
const svg = (encoding: Encoding) =>
  `<?xml version="1.0" encoding="${encoding.startsWith('utf-16') ? 'UTF-16' : 'UTF-8'}"?>\n` +
  '<svg xmlns="http://www.w3.org/2000/svg" width="48" height="20"><rect width="100%" height="100%" ' +
  'fill="#0000ff"/></svg>\n';

const pdfText = (file: string) => execFileSync('pdftotext', ['-enc', 'UTF-8', file, '-'], { encoding: 'utf8' });

describe('text formats over HTTP', () => {
  let server: TestServer;
  let key: string;

  beforeAll(async () => {
    server = await startServer();
  });
  // A key per test: the whole file polls more than one key's 120 requests a minute.
  beforeEach(async () => {
    key = await server.createKey('pro');
  });
  afterAll(() => server.close());

  describe.each(ENCODINGS)('in %s', (encoding) => {
    it('csv -> json: the rows', async () => {
      const { data, filename } = await convertAndDownload(
        server.url,
        key,
        { name: 'people.csv', data: encode(CSV, encoding) },
        { to: 'json' },
      );
      expect(filename).toBe('people.json');
      expect(JSON.parse(data.toString('utf8'))).toEqual(CSV_ROWS);
    });

    it('json -> csv: a header and one record per object', async () => {
      const { data } = await convertAndDownload(
        server.url,
        key,
        { name: 'items.json', data: encode(JSON_TEXT, encoding) },
        { to: 'csv' },
      );
      expect(data.toString('utf8').replace(/^\uFEFF/, '')).toBe('title,tags\r\nGröße,"a,b"\r\n"naïve ""quote""",ß\r\n');
    });

    it('srt -> vtt: cue text and times', async () => {
      const { data, filename } = await convertAndDownload(
        server.url,
        key,
        { name: 'talk.srt', data: encode(SRT, encoding) },
        { to: 'vtt' },
      );
      expect(filename).toBe('talk.vtt');
      const text = data.toString('utf8');
      expect(text.startsWith('WEBVTT')).toBe(true);
      expect(text).toContain('00:00:01.000 --> 00:00:02.500');
      expect(parseVtt(text)).toEqual([
        { id: '1', start: 1000, end: 2500, text: 'Grüß Gott' },
        { id: '2', start: 62_030, end: 64_000, text: 'Second cue\ntwo lines' },
      ]);
    });

    it('vtt -> srt: cue text and times (the upload file-type calls vtt is accepted)', async () => {
      const { data, filename } = await convertAndDownload(
        server.url,
        key,
        { name: 'subs.vtt', data: encode(VTT, encoding) },
        { to: 'srt' },
      );
      expect(filename).toBe('subs.srt');
      const text = data.toString('utf8');
      expect(text).toMatch(/^1\r?\n00:00:01,000 --> 00:00:02,500\r?\nBonjour à tous\r?\n/);
      expect(text).toMatch(/\r?\n2\r?\n00:01:02,030 --> 00:01:04,000\r?\nSecond cue\r?\n/);
      expect(parseSrt(text)).toEqual([
        { start: 1000, end: 2500, text: 'Bonjour à tous' },
        { start: 62_030, end: 64_000, text: 'Second cue' },
      ]);
    });

    it('svg -> png: the declared size and colour', async () => {
      const { data } = await convertAndDownload(
        server.url,
        key,
        { name: 'badge.svg', data: encode(svg(encoding), encoding) },
        { to: 'png' },
      );
      const image = sharp(data);
      expect(await image.metadata()).toMatchObject({ format: 'png', width: 48, height: 20 });
      const { data: pixels } = await image.raw().toBuffer({ resolveWithObject: true });
      expect([...pixels.subarray(0, 3)]).toEqual([0, 0, 255]);
    });
  });

  // LibreOffice runs are slower: plain UTF-8 and both UTF-16 byte orders.
  it.each(['utf-8', 'utf-16le', 'utf-16be'] as const)(
    'txt -> pdf in %s: the text, read back with pdftotext',
    async (encoding) => {
      const { outputPath, filename } = await convertAndDownload(
        server.url,
        key,
        { name: 'notes.txt', data: encode(TXT, encoding) },
        { to: 'pdf' },
        120_000,
      );
      expect(filename).toBe('notes.pdf');
      const text = pdfText(outputPath);
      expect(text).toContain('Transmute text upload');
      expect(text).toContain('Zürich Köln naïve');
    },
  );

  it('searches UTF-16 text with file-search', async () => {
    const form = new FormData();
    form.append('query', 'köln');
    form.append('files', new Blob([new Uint8Array(encode(CSV, 'utf-16le'))]), 'people.csv');
    form.append('files', new Blob([new Uint8Array(encode(TXT, 'utf-16be'))]), 'notes.txt');
    const res = await fetch(`${server.url}/api/file-search`, { method: 'POST', body: form, headers: authHeaders(key) });
    const accepted = (await res.json()) as { statusUrl: string; errors: unknown[] };
    expect(res.status).toBe(200);
    expect(accepted.errors).toEqual([]);
    let poll: { done?: boolean; rows?: unknown[] } = {};
    for (let i = 0; i < 300; i++) {
      poll = (await getJson(`${server.url}${accepted.statusUrl}`, key)).body;
      if (poll.done) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(poll.rows).toMatchObject([
      { filename: 'people.csv', status: 'completed', count: 1, error: null, matches: [{ location: 'line 4' }] },
      { filename: 'notes.txt', status: 'completed', count: 1, error: null, matches: [{ location: 'line 2' }] },
    ]);
  });

  it('still refuses binary content under a text name, and text without the format opening', async () => {
    const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#ff0000' } })
      .png()
      .toBuffer();
    expect(await submitConvert(server.url, key, { name: 'data.csv', data: png }, { to: 'json' })).toMatchObject({
      status: 400,
      body: { error: 'Content does not match its declared type: data.csv is named .csv but contains png data' },
    });
    expect(
      await submitConvert(
        server.url,
        key,
        { name: 'subs.vtt', data: encode('1\n00:00:01.000 --> 00:00:02.000\nHi\n', 'utf-16le') },
        { to: 'srt' },
      ),
    ).toMatchObject({
      status: 400,
      body: {
        error:
          'Content does not match its declared type: subs.vtt is named .vtt but contains text without the WEBVTT ' +
          'header',
      },
    });
  });
});
