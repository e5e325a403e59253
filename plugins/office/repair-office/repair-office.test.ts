/**
 * repair-office on files damaged here in each way it repairs: a broken central directory, a
 * truncated tail (and a cut in the middle of the main part), wrong CRCs, a part that does not
 * parse with content types and relationships gone wrong, and a workbook whose relationships
 * were lost. Every output must open in LibreOffice and keep the text that survived.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFileResult } from '../../../core/contract/index.js';
import { pluginConformanceSuite, runPlugin, type TestRun } from '../../../core/contract/testing/index.js';
import type { FormatId } from '../../../schema/index.js';
import { checkXml } from './package.js';
import {
  DOC_PARAGRAPHS,
  SHEET_CELLS,
  SLIDE_TITLES,
  damage,
  libreOfficeText,
  makeDocx,
  makePptx,
  makeXlsx,
  strFromU8,
  strToU8,
  unzipSync,
} from '../testing/repair.js';
import { repairOfficePlugin } from './index.js';
import { standardPlugins } from '../../index.js';

const dir = await mkdtemp(path.join(os.tmpdir(), 'repair-office-'));
const file = (name: string, format: FormatId) => ({ path: path.join(dir, name), format });
afterAll(() => rm(dir, { recursive: true, force: true }));

beforeAll(async () => {
  await Promise.all([
    makeDocx(path.join(dir, 'good.docx')),
    makeXlsx(path.join(dir, 'good.xlsx')),
    makePptx(path.join(dir, 'good.pptx')),
  ]);
  const [docx, xlsx, pptx] = await Promise.all(
    ['good.docx', 'good.xlsx', 'good.pptx'].map((name) => readFile(path.join(dir, name))),
  );
  const write = (name: string, bytes: Buffer) => writeFile(path.join(dir, name), bytes);
  await Promise.all([
    write('central.docx', damage.centralDirectory(docx!)),
    write('cut-main.docx', damage.truncateIn(docx!, 'word/document.xml', 0.7)),
    write('cut-tail.docx', damage.truncateIn(docx!, 'word/styles.xml', 0.4)),
    write('crc.docx', damage.crcs(docx!)),
    write(
      'parts.docx',
      damage.parts(docx!, (parts) => {
        parts['docProps/app.xml'] = strToU8('<Properties><Pages>1</Words></Properties>');
        parts['word/footnotes.xml'] = strToU8(
          '<w:footnotes xmlns:w="x"><w:footnote>&broken;</w:footnote></w:footnotes>',
        );
        parts['[Content_Types].xml'] = strToU8(
          strFromU8(parts['[Content_Types].xml']!).replace(/<Override PartName="\/word\/document\.xml"[^>]*>/, ''),
        );
        const rels = 'word/_rels/document.xml.rels';
        parts[rels] = strToU8(
          strFromU8(parts[rels]!).replace(
            '</Relationships>',
            '<Relationship Id="rIdGone" ' +
              'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" ' +
              'Target="media/missing.png"/></Relationships>',
          ),
        );
      }),
    ),
    write(
      'renamed-main.docx',
      damage.centralDirectory(
        damage.parts(docx!, (parts) => {
          parts['word/main.xml'] = parts['word/document.xml']!;
          parts['word/_rels/main.xml.rels'] = parts['word/_rels/document.xml.rels']!;
          delete parts['word/document.xml'];
          delete parts['word/_rels/document.xml.rels'];
          for (const name of ['_rels/.rels', '[Content_Types].xml'])
            parts[name] = strToU8(strFromU8(parts[name]!).replace('word/document.xml', 'word/main.xml'));
        }),
      ),
    ),
    write(
      'garbage-main.docx',
      damage.parts(docx!, (parts) => {
        parts['word/document.xml'] = strToU8('this is not xml at all');
      }),
    ),
    write('cut-tail.xlsx', damage.truncateIn(xlsx!, 'xl/workbook.xml', 0.5)),
    write(
      'lost-rels.xlsx',
      damage.crcs(damage.parts(xlsx!, (parts) => void delete parts['xl/_rels/workbook.xml.rels'])),
    ),
    write('central.pptx', damage.centralDirectory(pptx!)),
  ]);
}, 60_000);

/** The first sheet as LibreOffice writes it to CSV (text quoted, numbers not). */
const FIRST_SHEET = new RegExp(
  SHEET_CELLS.map((row) => row.map((cell) => (/^\d+$/.test(cell) ? cell : `"${cell}"`)).join(',')).join('\n'),
);

const outputOf = (run: TestRun) => {
  if (!isFileResult(run.result)) throw new Error('expected a file');
  return run.result.path;
};
const partsOf = async (run: TestRun) => unzipSync(new Uint8Array(await readFile(outputOf(run))));
const docxText = (run: TestRun) => libreOfficeText(outputOf(run), 'docx', run.workDir);
const everyParagraph = async (run: TestRun) => {
  const text = await docxText(run);
  for (const paragraph of DOC_PARAGRAPHS) expect(text).toContain(paragraph);
};

pluginConformanceSuite(
  repairOfficePlugin,
  [
    {
      name: 'DOCX with a broken central directory',
      files: [file('central.docx', 'docx')],
      expectFormat: 'docx',
      check: everyParagraph,
    },
    {
      name: 'DOCX cut in the middle of word/document.xml: the paragraphs before the cut survive',
      files: [file('cut-main.docx', 'docx')],
      expectFormat: 'docx',
      async check(run) {
        const text = await docxText(run);
        const kept = DOC_PARAGRAPHS.filter((p) => text.includes(p));
        expect(kept.length).toBeGreaterThanOrEqual(10);
        expect(kept.length).toBeLessThan(DOC_PARAGRAPHS.length);
        expect(kept).toEqual(DOC_PARAGRAPHS.slice(0, kept.length));
        expect(text).toContain('Ship Ledger');
      },
    },
    {
      name: 'DOCX with a truncated tail (central directory and last parts lost)',
      files: [file('cut-tail.docx', 'docx')],
      expectFormat: 'docx',
      check: everyParagraph,
    },
    { name: 'DOCX with wrong CRCs', files: [file('crc.docx', 'docx')], expectFormat: 'docx', check: everyParagraph },
    {
      name: 'DOCX with parts that do not parse, a content type and a relationship gone wrong',
      files: [file('parts.docx', 'docx')],
      expectFormat: 'docx',
      async check(run) {
        await everyParagraph(run);
        const parts = await partsOf(run);
        expect(Object.keys(parts)).not.toContain('docProps/app.xml');
        expect(Object.keys(parts)).not.toContain('word/footnotes.xml');
        expect(strFromU8(parts['[Content_Types].xml']!)).toContain(
          '<Override PartName="/word/document.xml" ' +
            'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>',
        );
        const rels = strFromU8(parts['word/_rels/document.xml.rels']!);
        expect(rels).not.toContain('missing.png');
        expect(rels).not.toContain('footnotes.xml');
        expect(strFromU8(parts['_rels/.rels']!)).not.toContain('app.xml');
        for (const [name, data] of Object.entries(parts))
          if (/\.(xml|rels)$/.test(name)) expect(checkXml(strFromU8(data)), name).toEqual({ ok: true });
      },
    },
    {
      name: 'DOCX whose main part has another name (found through the package relationships)',
      files: [file('renamed-main.docx', 'docx')],
      expectFormat: 'docx',
      async check(run) {
        await everyParagraph(run);
        const parts = await partsOf(run);
        expect(strFromU8(parts['[Content_Types].xml']!)).toContain(
          '<Override PartName="/word/main.xml" ' +
            'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>',
        );
        expect(strFromU8(parts['word/_rels/main.xml.rels']!)).toContain('styles.xml');
      },
    },
    {
      name: 'XLSX with a truncated tail: workbook.xml (written last) lost, rebuilt from the sheets that survived',
      files: [file('cut-tail.xlsx', 'xlsx')],
      expectFormat: 'xlsx',
      async check(run) {
        expect(await libreOfficeText(outputOf(run), 'xlsx', run.workDir)).toMatch(FIRST_SHEET);
        expect(strFromU8((await partsOf(run))['xl/workbook.xml']!)).toMatch(
          /<sheet name="Ports" sheetId="1" r:id="rIdSheet1"\/><sheet name="Second"/,
        );
      },
    },
    {
      name: 'XLSX with wrong CRCs and its workbook relationships lost: both sheets come back in order',
      files: [file('lost-rels.xlsx', 'xlsx')],
      expectFormat: 'xlsx',
      async check(run) {
        expect(await libreOfficeText(outputOf(run), 'xlsx', run.workDir)).toMatch(FIRST_SHEET);
        const workbookRels = strFromU8((await partsOf(run))['xl/_rels/workbook.xml.rels']!);
        expect(workbookRels).toMatch(/Target="worksheets\/sheet1\.xml"/);
        expect(workbookRels).toMatch(/Target="worksheets\/sheet2\.xml"/);
      },
    },
    {
      name: 'PPTX with a broken central directory',
      files: [file('central.pptx', 'pptx')],
      expectFormat: 'pptx',
      async check(run) {
        const text = await libreOfficeText(outputOf(run), 'pptx', run.workDir);
        for (const title of SLIDE_TITLES) expect(text).toContain(title);
      },
    },
  ],
  { against: standardPlugins },
);

describe('repair-office refusals', () => {
  it('fails with a clear message when the main part is unreadable and LibreOffice cannot open the file ' +
    'either', async () => {
    await expect(runPlugin(repairOfficePlugin, [file('garbage-main.docx', 'docx')])).rejects.toThrow(
      /^The DOCX could not be repaired/,
    );
  }, 60_000);
});

describe('checkXml', () => {
  it('accepts well-formed XML, refuses damage and completes XML cut short', () => {
    expect(checkXml('<?xml version="1.0"?><a x="1"><b>t &amp; u</b><c/></a>')).toEqual({ ok: true });
    expect(checkXml('<x:größe é="a > b">ü</x:größe>')).toEqual({ ok: true });
    expect(checkXml('<a><b></a>')).toEqual({ ok: false });
    expect(checkXml('<a>&nope;</a>')).toEqual({ ok: false });
    expect(checkXml('<a/><b/>')).toEqual({ ok: false });
    expect(checkXml('<!DOCTYPE a><a/>')).toEqual({ ok: false });
    expect(checkXml('<a><b>kept text</b><b>half')).toEqual({
      ok: false,
      completed: '<a><b>kept text</b><b>half</b></a>',
    });
    expect(checkXml('<a><b>kept</b><w:r attr="x')).toEqual({ ok: false, completed: '<a><b>kept</b></a>' });
  });
});
