/**
 * The data family through HTTP: CSV -> JSON and SRT -> VTT downloaded and parsed, and the
 * repair-csv plan gate.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataPlugins } from '../plugins/data/index.js';
import { parseVtt } from '../plugins/data/subtitle-convert/subtitles.js';
import { convertAndDownload, startServer, submitConvert, type TestServer } from './helpers.js';

const CSV = Buffer.from(
  'name;city;note\r\nJosé;Zürich;"line one\nline two"\r\nRenée;"Köln; Mitte";"say ""hi"""\r\n',
  'latin1',
);
const SRT =
  '1\r\n00:00:01,000 --> 00:00:02,500\r\nHello & welcome\r\n\r\n2\r\n00:01:02,030 --> 00:01:04,000\r\nSecond ' +
  'cue\r\ntwo lines\r\n';

describe('data and subtitles over HTTP', () => {
  let server: TestServer;
  let freeKey: string;
  let proKey: string;

  beforeAll(async () => {
    server = await startServer({ plugins: dataPlugins });
    [freeKey, proKey] = await Promise.all([server.createKey('free'), server.createKey('pro')]);
  });
  afterAll(() => server.close());

  it('converts a Latin-1 semicolon CSV to JSON for a Free key', async () => {
    const { data, filename } = await convertAndDownload(
      server.url,
      freeKey,
      { name: 'people.csv', data: CSV },
      { to: 'json' },
    );
    expect(filename).toBe('people.json');
    expect(JSON.parse(data.toString('utf8'))).toEqual([
      { name: 'José', city: 'Zürich', note: 'line one\nline two' },
      { name: 'Renée', city: 'Köln; Mitte', note: 'say "hi"' },
    ]);
  });

  it('converts SRT to VTT for a Free key', async () => {
    const { data, filename } = await convertAndDownload(
      server.url,
      freeKey,
      { name: 'talk.srt', data: SRT },
      { to: 'vtt' },
    );
    expect(filename).toBe('talk.vtt');
    const text = data.toString('utf8');
    expect(text.startsWith('WEBVTT\n')).toBe(true);
    expect(parseVtt(text)).toEqual([
      { id: '1', start: 1000, end: 2500, text: 'Hello &amp; welcome' },
      { id: '2', start: 62_030, end: 64_000, text: 'Second cue\ntwo lines' },
    ]);
  });

  it('repairs a CSV for a Pro key', async () => {
    const { data } = await convertAndDownload(
      server.url,
      proKey,
      { name: 'people.csv', data: CSV },
      { to: 'csv', op: 'repair-csv' },
    );
    expect(data.toString('utf8')).toBe(
      'name,city,note\r\nJosé,Zürich,"line one\nline two"\r\nRenée,Köln; Mitte,"say ""hi"""\r\n',
    );
  });

  it('refuses repair-csv to a Free key with 403', async () => {
    const res = await submitConvert(
      server.url,
      freeKey,
      { name: 'people.csv', data: CSV },
      { to: 'csv', op: 'repair-csv' },
    );
    expect(res.status).toBe(403);
    expect(res.body.error).toMatch(/Pro/);
  });
});
