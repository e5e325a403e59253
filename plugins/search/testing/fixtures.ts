/**
 * Test files for file-search, made on the fly: text and CSV, a 3-page PDF (pdf-lib) and its
 * encrypted copy (qpdf), a DOCX, an ODT and an ODS written by hand with yazl, an XLSX (exceljs), and a
 * photo of large printed text (sharp from SVG) for OCR.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import ExcelJS from 'exceljs';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { ZipFile } from 'yazl';
import { runProcess } from '../../../core/engines/process.js';
import type { FormatId } from '../../../schema/index.js';

export interface Fixture {
  path: string;
  format: FormatId;
}

export const NOTES_TXT = [
  'The cat sat on the mat.',
  'We concatenate strings; the CAT. ran off.',
  'Ärger im Büro, ärger zu Hause.',
  'Regex a.b* taken literally; not aXb, not a.bbb.',
  `${'lorem '.repeat(30)}needle${' ipsum'.repeat(30)}`,
].join('\n');

async function zipOf(file: string, members: Record<string, string>): Promise<void> {
  const zip = new ZipFile();
  for (const [name, content] of Object.entries(members)) zip.addBuffer(Buffer.from(content, 'utf8'), name);
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(file));
}

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';

/** A minimal valid DOCX: the three parts Word needs. */
async function writeDocx(file: string, bodyXml: string): Promise<void> {
  await zipOf(file, {
    '[Content_Types].xml':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types ' +
      'xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ' +
      'ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ' +
      'ContentType="application/xml"/><Override PartName="/word/document.xml" ' +
      'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    '_rels/.rels':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships ' +
      'xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" ' +
      'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" ' +
      'Target="word/document.xml"/></Relationships>',
    'word/document.xml':
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ${W}><w:body>` +
      `${bodyXml}</w:body></w:document>`,
  });
}

const para = (...runs: string[]) => `<w:p>${runs.map((run) => `<w:r>${run}</w:r>`).join('')}</w:p>`;

async function writePdf(file: string): Promise<void> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const pages = ['Introduction\nTotal\namount due later', 'Invoice number 1\nsee the invoice', 'Final invoice page'];
  for (const text of pages) doc.addPage([400, 400]).drawText(text, { x: 30, y: 300, size: 18, lineHeight: 24, font });
  await writeFile(file, await doc.save());
}

async function writeXlsx(file: string): Promise<void> {
  const workbook = new ExcelJS.Workbook();
  const first = workbook.addWorksheet('Sheet1');
  first.getCell('A1').value = 'Item';
  first.getCell('B4').value = 'Invoice total';
  first.getCell('C2').value = new Date(Date.UTC(2024, 2, 15));
  first.getCell('D1').value = { formula: 'CONCATENATE("invoice"," due")', result: 'invoice due' };
  first.mergeCells('E1:F2');
  first.getCell('E1').value = 'merged invoice';
  const second = workbook.addWorksheet('Q1 Data');
  second.getCell('A1').value = 'INVOICE';
  await workbook.xlsx.writeFile(file);
}

/** Black on white, large: tesseract reads it reliably. */
async function writePhoto(file: string): Promise<void> {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="700" height="200"><rect width="100%" height="100%" ` +
    `fill="white"/><text x="30" y="120" font-family="DejaVu Sans, sans-serif" font-size="56" fill="black">INVOICE ` +
    `12345</text></svg>`;
  await sharp(Buffer.from(svg)).flatten({ background: '#ffffff' }).toFile(file);
}

export async function makeFixtures() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'file-search-'));
  const at = (name: string) => path.join(dir, name);
  const fixture = (name: string, format: FormatId): Fixture => ({ path: at(name), format });

  await writeFile(at('notes.txt'), `\uFEFF${NOTES_TXT}\n`);
  await writeFile(at('people.csv'), 'id,name,city\n1,Alice,Berlin\n2,Bob,Zürich\n3,Carol,berlin\n');
  await writeFile(at('many.txt'), Array.from({ length: 150 }, (_, i) => `row ${i} needle`).join('\n'));
  await writePdf(at('three.pdf'));
  await runProcess('qpdf', ['--encrypt', 'u', 'o', '256', '--', at('three.pdf'), at('locked.pdf')], {
    timeoutMs: 30_000,
  });
  await writeFile(at('garbage.pdf'), '%PDF-1.7\nthis is not really a pdf\n');
  await writeDocx(
    at('letter.docx'),
    [
      para('<w:t>Dear customer,</w:t>'),
      '<w:p/>',
      // "Invoice" split over two runs, as Word does after an edit; deleted text is not shown.
      para('<w:t>Your Inv</w:t>', '<w:t>oice is attached</w:t>', '<w:delText>old invoice</w:delText>'),
      para('<w:t xml:space="preserve">Tom &amp; Jerry </w:t>', '<w:tab/>', '<w:t>&lt;invoice&gt;</w:t>'),
      `<w:tbl><w:tr><w:tc>${para('<w:t>Cell invoice</w:t>')}</w:tc></w:tr></w:tbl>`,
    ].join(''),
  );
  await writeFile(at('corrupt.docx'), Buffer.from('PK\u0003\u0004 definitely not a complete zip archive'));
  await zipOf(at('empty-zip.docx'), { 'readme.txt': 'no document here' });
  await zipOf(at('story.odt'), {
    mimetype: 'application/vnd.oasis.opendocument.text',
    'content.xml':
      '<?xml version="1.0" encoding="UTF-8"?><office:document-content ' +
      'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ' +
      'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text><text:h ' +
      'text:outline-level="1">Chapter one</text:h><text:p>A long<text:s text:c="3"/>invoice ' +
      '<text:span>story</text:span></text:p></office:text></office:body></office:document-content>',
  });
  await zipOf(at('budget.ods'), {
    mimetype: 'application/vnd.oasis.opendocument.spreadsheet',
    'content.xml': [
      '<?xml version="1.0" encoding="UTF-8"?><office:document-content ' +
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ' +
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ' +
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:spreadsheet>',
      '<table:table table:name="Budget 2024">',
      '<table:table-row><table:table-cell><text:p>Item</text:p></table:table-cell>' +
        '<table:table-cell><text:p>Cost</text:p></table:table-cell></table:table-row>',
      '<table:table-row table:number-rows-repeated="2"/>',
      '<table:table-row><table:table-cell ' +
        'table:number-columns-repeated="2"/><table:table-cell><text:p>Invoice<text:s/>due</text:p>' +
        '</table:table-cell></table:table-row>',
      '<table:table-row table:number-rows-repeated="2"><table:table-cell ' +
        'table:number-columns-repeated="2"><text:p>invoice copy</text:p></table:table-cell></table:table-row>',
      '<table:table-row table:number-rows-repeated="1048570"><table:table-cell ' +
        'table:number-columns-repeated="16384"/></table:table-row>',
      '</table:table><table:table table:name="Notes"><table:table-row><table:table-cell><text:p>no invoice ' +
        'here</text:p><text:p>second line</text:p></table:table-cell></table:table-row></table:table>',
      '</office:spreadsheet></office:body></office:document-content>',
    ].join(''),
  });
  await writeXlsx(at('book.xlsx'));
  await writePhoto(at('invoice.png'));
  await writeFile(at('broken.png'), Buffer.from('\x89PNG\r\n\x1a\n truncated', 'latin1'));

  return {
    dir,
    notes: fixture('notes.txt', 'txt'),
    people: fixture('people.csv', 'csv'),
    many: fixture('many.txt', 'txt'),
    pdf: fixture('three.pdf', 'pdf'),
    lockedPdf: fixture('locked.pdf', 'pdf'),
    garbagePdf: fixture('garbage.pdf', 'pdf'),
    docx: fixture('letter.docx', 'docx'),
    corruptDocx: fixture('corrupt.docx', 'docx'),
    zipWithoutDocument: fixture('empty-zip.docx', 'docx'),
    odt: fixture('story.odt', 'odt'),
    xlsx: fixture('book.xlsx', 'xlsx'),
    ods: fixture('budget.ods', 'ods'),
    photo: fixture('invoice.png', 'png'),
    brokenPhoto: fixture('broken.png', 'png'),
  };
}
