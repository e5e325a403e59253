import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PluginError } from '../contract/index.js';
import {
  pointsOutside,
  rtfWithoutLoadingFields,
  unsafeXmlPart,
  withoutOutsideLinks,
  xmlWithoutOutsideLinks,
} from './office-links.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'office-links-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('office links', () => {
  it('tells links outside the package from pictures stored in it, however they are spelled', () => {
    for (const outside of [
      'file:///etc/passwd',
      'http://127.0.0.1/x.png',
      'vnd.sun.star.expand:$BRAND_BASE_DIR/x',
      '/usr/lib/x.gif',
      '%2Fproc%2Fself%2Fmountinfo',
      '%252Fetc%252Fpasswd',
      '../secret.png',
      'Pictures/../../x.png',
      '..%2F..%2Fx',
      'C:\\x.png',
      '\\\\host\\share\\x.png',
      ' /etc/passwd',
    ])
      expect(pointsOutside(outside), outside).toBe(true);
    for (const inside of ['Pictures/1000.png', './Object 1', 'Object 2', '#Bookmark', ''])
      expect(pointsOutside(inside), inside).toBe(false);
  });

  it('empties loading links to outside, keeps stored pictures and hyperlinks', () => {
    const xml =
      '<draw:image xlink:href="file:///usr/share/x.gif" xlink:type="simple"/>' +
      '<draw:image xlink:href="Pictures/1.png"/>' +
      '<text:a xlink:href="https://example.com/page">link</text:a>' +
      `<draw:image xlink:href='file&#58;///etc/passwd'/>` +
      '<draw:image q:href="/etc/passwd" xmlns:q="http://www.w3.org/1999/xlink"/>' +
      '<draw:image xlink:href="&ext;"/>' +
      '<form:button form:image-data="file:///etc/x.png"/>' +
      '<style:background-image xlink:href="%2Fetc%2Fx.png"/>' +
      '<table:table-source xlink:href="file:///data/other.ods"/>';
    expect(xmlWithoutOutsideLinks(xml)).toBe(
      '<draw:image xlink:href="" xlink:type="simple"/>' +
        '<draw:image xlink:href="Pictures/1.png"/>' +
        '<text:a xlink:href="https://example.com/page">link</text:a>' +
        '<draw:image xlink:href=""/>' +
        '<draw:image q:href="" xmlns:q="http://www.w3.org/1999/xlink"/>' +
        '<draw:image xlink:href=""/>' +
        '<form:button form:image-data=""/>' +
        '<style:background-image xlink:href=""/>' +
        '<table:table-source xlink:href=""/>',
    );
  });

  it('refuses XML parts it cannot read byte for byte, and DTDs', async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<a xlink:href="/etc/x"/>', 'utf16le')]);
    expect(unsafeXmlPart(utf16)).toMatch(/not UTF-8/);
    expect(unsafeXmlPart(Buffer.from('<?xml version="1.0" encoding="UTF-7"?><a/>'))).toMatch(/not UTF-8/);
    expect(unsafeXmlPart(Buffer.from('<!DOCTYPE a [<!ENTITY e SYSTEM "file:///etc/passwd">]><a>&e;</a>'))).toMatch(
      /DTD/,
    );
    expect(unsafeXmlPart(Buffer.from('<?xml version="1.0" encoding="UTF-8"?><office:document/>'))).toBeUndefined();
    const input = path.join(dir, 'dtd.odt');
    await writeFile(
      input,
      zipSync({
        mimetype: [strToU8('application/vnd.oasis.opendocument.text'), { level: 0 }],
        'content.xml': strToU8('<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/hostname">]><x>&e;</x>'),
      }),
    );
    await expect(withoutOutsideLinks(input, path.join(dir, 'dtd-out'))).rejects.toThrow(/declares a DTD/);
  });

  it('drops the instruction of RTF fields that load files, whatever their spelling, and keeps the others', () => {
    const rtf = (body: string) => Buffer.from(`{\\rtf1\\ansi ${body}}`, 'latin1');
    const out = (body: string) => rtfWithoutLoadingFields(rtf(body)).toString('latin1');
    expect(out('{\\field{\\*\\fldinst INCLUDEPICTURE "/etc/x.png" \\\\* MERGEFORMAT}{\\fldrslt shown}}')).toBe(
      '{\\rtf1\\ansi {\\field{\\*\\transmuteremovedfield}{\\fldrslt shown}}}',
    );
    for (const hidden of [
      '{\\fldinst \\\'49NCLUDETEXT "/etc/passwd"}',
      '{\\*\\fldinst {\\b INCLUDE}{PICTURE} "/x"}',
      '{\\*\\fldinst  import "/x.wmf"}',
      '{\\*\\fldinst \\u73 ?NCLUDEPICTURE "/x"}',
    ])
      expect(out(`{\\field${hidden}{\\fldrslt r}}`), hidden).toContain('transmuteremovedfield');
    const kept = '{\\field{\\*\\fldinst HYPERLINK "https://example.com"}{\\fldrslt link}} {\\field{\\*\\fldinst PAGE}}';
    expect(out(kept)).toBe(`{\\rtf1\\ansi ${kept}}`);
  });

  it('rewrites an ODF package entry by entry, its mimetype first and stored', async () => {
    const input = path.join(dir, 'linked.ods');
    const content =
      '<office:document-content><draw:image xlink:href="file:///usr/lib/x.gif"/>' +
      '<draw:image xlink:href="Pictures/a.png"/></office:document-content>';
    await writeFile(
      input,
      zipSync({
        mimetype: [strToU8('application/vnd.oasis.opendocument.spreadsheet'), { level: 0 }],
        'content.xml': strToU8(content),
        'Pictures/a.png': strToU8('not really a png'),
      }),
    );
    const output = await withoutOutsideLinks(input, path.join(dir, 'out'));
    expect(path.basename(output)).toBe('linked.ods');
    const bytes = await readFile(output);
    // ODF's rule: "mimetype" is the first entry, stored, so its name and value sit at fixed offsets.
    expect(bytes.subarray(30, 38).toString('latin1')).toBe('mimetype');
    expect(bytes.subarray(38, 84).toString('latin1')).toBe('application/vnd.oasis.opendocument.spreadsheet');
    const entries = unzipSync(new Uint8Array(bytes));
    expect(strFromU8(entries['content.xml']!)).toBe(
      '<office:document-content><draw:image xlink:href=""/><draw:image xlink:href="Pictures/a.png"/>' +
        '</office:document-content>',
    );
    expect(strFromU8(entries['Pictures/a.png']!)).toBe('not really a png');
  });

  it('leaves other formats alone and refuses an ODF package it cannot read', async () => {
    const docx = path.join(dir, 'a.docx');
    await writeFile(docx, 'whatever');
    expect(await withoutOutsideLinks(docx, path.join(dir, 'docx-out'))).toBe(docx);
    const broken = path.join(dir, 'broken.odt');
    await writeFile(broken, 'PK not a zip at all');
    await expect(withoutOutsideLinks(broken, path.join(dir, 'broken-out'))).rejects.toBeInstanceOf(PluginError);
  });
});
