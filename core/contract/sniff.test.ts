import { fileTypeFromBuffer } from 'file-type';
import { describe, expect, it } from 'vitest';
import type { FormatId } from '../../schema/index.js';
import { checkContent, checkText, headText } from './sniff.js';

const utf16le = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
const utf16be = (text: string) => Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);
const utf8bom = (text: string) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);

/** The upload check as identify() runs it: file-type's real guess, then the text rules. */
async function check(format: FormatId, head: Buffer) {
  return checkText(format, head, (await fileTypeFromBuffer(head))?.ext);
}

const SAMPLES: Record<string, string> = {
  csv: 'name,city\r\nJosé,Zürich\r\n',
  json: '[{"name":"José"}]\n',
  srt: '1\r\n00:00:01,000 --> 00:00:02,500\r\nHello\r\n',
  vtt: 'WEBVTT\n\n00:00:01.000 --> 00:00:02.500\nHello\n',
  txt: 'Plain text, ünïcode.\n',
  md: '# Title\n\nText.\n',
  svg: '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="4" height="3"></svg>\n',
};

describe('checkText', () => {
  it('accepts WebVTT, which file-type now recognises as vtt', async () => {
    expect((await fileTypeFromBuffer(Buffer.from(SAMPLES.vtt!)))?.ext).toBe('vtt');
    expect(await check('vtt', Buffer.from(SAMPLES.vtt!))).toEqual({ ok: true });
    // Plain text that happens to be WebVTT is still text.
    expect(await check('txt', Buffer.from(SAMPLES.vtt!))).toEqual({ ok: true });
  });

  it('accepts every text format in UTF-8, UTF-8 with BOM, and UTF-16 LE and BE with BOM', async () => {
    for (const [format, text] of Object.entries(SAMPLES)) {
      for (const encode of [(t: string) => Buffer.from(t), utf8bom, utf16le, utf16be]) {
        expect(await check(format as FormatId, encode(text)), `${format} ${encode.name}`).toEqual({ ok: true });
      }
    }
  });

  it('is not misled by file-type reading a UTF-16LE BOM as an MPEG audio frame', async () => {
    const csv = utf16le('id,value\r\n1,2\r\n');
    expect((await fileTypeFromBuffer(csv))?.ext).toBe('mp1');
    expect(await check('csv', csv)).toEqual({ ok: true });
  });

  it('still refuses binary detections and binary bytes', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    expect(await check('csv', png)).toEqual({ ok: false, found: 'png data' });
    expect(await check('txt', Buffer.from([0x41, 0x00, 0x42]))).toEqual({ ok: false, found: 'binary data' });
    expect(await check('txt', Buffer.from('%PDF-1.7\n'))).toEqual({ ok: false, found: 'pdf data' });
  });

  it('refuses broken UTF-16 after a BOM: a lone surrogate or a NUL', async () => {
    const lone = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from('a', 'utf16le'),
      Buffer.from([0x00, 0xd8]),
      Buffer.from('bc', 'utf16le'),
    ]);
    expect(await check('csv', lone)).toEqual({ ok: false, found: 'binary data' });
    expect(await check('csv', utf16le('a\0b'))).toEqual({ ok: false, found: 'binary data' });
  });

  it("requires each format's opening, in any encoding", async () => {
    expect(await check('json', utf16le('hello'))).toEqual({ ok: false, found: 'text that is not JSON' });
    expect(await check('vtt', utf16be('1\n00:00:01.000 --> 00:00:02.000\nHi\n'))).toEqual({
      ok: false,
      found: 'text without the WEBVTT header',
    });
    expect(await check('srt', Buffer.from('WEBVTT\n\nHi\n'))).toEqual({
      ok: false,
      found: 'text that is not SubRip (no numbered cue)',
    });
    expect(await check('svg', utf16le('<html></html>'))).toEqual({ ok: false, found: 'no <svg> element' });
  });

  it('accepts legacy single-byte text and XML', async () => {
    expect(await check('csv', Buffer.from('name;city\r\nJosé;Zürich\r\n', 'latin1'))).toEqual({ ok: true });
    expect(await check('txt', Buffer.from('<?xml version="1.0"?><a/>'))).toEqual({ ok: true });
  });
});

describe('headText', () => {
  it('decodes by BOM and drops it', () => {
    expect(headText(utf16le('héllo'))).toBe('héllo');
    expect(headText(utf16be('héllo'))).toBe('héllo');
    expect(headText(utf8bom('héllo'))).toBe('héllo');
  });

  it('allows a character cut at the end of the head', () => {
    const emoji = utf16le('ab😀');
    expect(headText(emoji.subarray(0, emoji.length - 2))).toBe('ab'); // half a surrogate pair
    expect(headText(emoji.subarray(0, emoji.length - 1))).toBe('ab'); // an odd byte
    const utf8 = Buffer.from('ab😀');
    expect(headText(utf8.subarray(0, utf8.length - 1))?.startsWith('ab')).toBe(true);
  });
});

describe('checkContent', () => {
  it('takes a TIFF whose first directory lies past the head (file-type then reports nothing)', async () => {
    // ImageMagick's layout: the header points at a directory after the pixels.
    const head = Buffer.alloc(64 * 1024);
    head.write('II*\0', 0, 'latin1');
    head.writeUInt32LE(1_900_000, 4);
    expect(await fileTypeFromBuffer(head)).toBeUndefined();
    expect(checkContent('tiff', head, undefined)).toEqual({ ok: true });
    const bigEndian = Buffer.from('MM\0*\0\x1d\x4c\x08', 'latin1');
    expect(checkContent('tiff', bigEndian, undefined)).toEqual({ ok: true });
    // The header decides for TIFF only.
    expect(checkContent('png', head, undefined).ok).toBe(false);
    expect(checkContent('tiff', Buffer.from('not a tiff at all'), undefined).ok).toBe(false);
  });
});
