import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { PluginError, type FileResult } from '../../../core/contract/index.js';
import { pluginConformanceSuite } from '../../../core/contract/testing/index.js';
import { SAMPLE_SRT, SAMPLE_VTT, writeFixtures } from '../testing/fixtures.js';
import { subtitleConvertPlugin } from './index.js';
import { parseSrt, parseVtt, writeSrt, writeVtt } from './subtitles.js';
import { standardPlugins } from '../../index.js';

const files = await writeFixtures();

pluginConformanceSuite(
  subtitleConvertPlugin,
  [
    {
      name: 'srt -> vtt',
      files: [{ path: files.srt, format: 'srt' }],
      target: 'vtt',
      expectFormat: 'vtt',
      check: async (run) => {
        const text = await readFile((run.result as FileResult).path, 'utf8');
        expect(text).toBe(
          'WEBVTT\n\n1\n00:00:01.000 --> 00:00:02.500\nHello <i>world</i> &amp; friends\n\n2\n00:01:02.030 --> ' +
            '01:00:00.000\nSecond cue\ntwo lines\n',
        );
        expect(parseVtt(text)).toEqual([
          { id: '1', start: 1000, end: 2500, text: 'Hello <i>world</i> &amp; friends' },
          { id: '2', start: 62_030, end: 3_600_000, text: 'Second cue\ntwo lines' },
        ]);
      },
    },
    {
      name: 'vtt -> srt',
      files: [{ path: files.vtt, format: 'vtt' }],
      target: 'srt',
      expectFormat: 'srt',
      check: async (run) => {
        const text = await readFile((run.result as FileResult).path, 'utf8');
        expect(text).toBe(
          '1\n00:00:01,000 --> 00:00:02,500\nHi & <b>bye</b> later\n\n2\n00:00:03,000 --> 00:00:04,000\na < b\n',
        );
        expect(parseSrt(text).map((c) => [c.start, c.end])).toEqual([
          [1000, 2500],
          [3000, 4000],
        ]);
      },
    },
  ],
  { against: standardPlugins },
);

describe('subtitle parsing', () => {
  it('reads SRT cues with CRLF line endings', () => {
    expect(parseSrt(SAMPLE_SRT)).toEqual([
      { start: 1000, end: 2500, text: 'Hello <i>world</i> & friends' },
      { start: 62_030, end: 3_600_000, text: 'Second cue\ntwo lines' },
    ]);
  });

  it('skips NOTE and STYLE blocks and cue settings in VTT', () => {
    const cues = parseVtt(SAMPLE_VTT);
    expect(cues).toHaveLength(2);
    expect(cues[0]).toMatchObject({ id: 'intro', start: 1000, end: 2500 });
  });

  it('names the line of a malformed timestamp', () => {
    expect(() => parseSrt('1\n00:00:01,000 --> 00:00:02,000\nok\n\n2\n00:00:03.5 --> 00:00:04,000\nbad\n')).toThrow(
      "Malformed timestamp on line 6: '00:00:03.5 --> 00:00:04,000' (expected 00:00:01,000 --> 00:00:02,000)",
    );
    expect(() => parseSrt('1\nnot a time\ntext\n')).toThrow(PluginError);
    expect(() => parseSrt('1\nnot a time\ntext\n')).toThrow(/line 2/);
    expect(() => parseVtt('WEBVTT\n\n00:00:01.000 --> 00:00:99.000\nx\n')).toThrow(/line 3/);
    expect(() => parseVtt('hello\n')).toThrow("Not a WebVTT file: line 1 must start with 'WEBVTT'");
  });

  it('round-trips SRT -> VTT -> SRT', () => {
    const srt = writeSrt(parseVtt(writeVtt(parseSrt(SAMPLE_SRT))));
    expect(parseSrt(srt)).toEqual(parseSrt(SAMPLE_SRT));
  });
});
